/**
 * Names shared by the runtime's metrics (lib/runtime/observability.ts) and the CDK alarms
 * (cdk/constructs/alarms.ts): one definition, so an alarm cannot watch a metric nobody emits.
 */

/** CloudWatch namespace of cronfence's metrics (the CDK alarms read it). */
export const METRIC_NAMESPACE = 'cronfence';
/** Value of the `service` dimension Powertools puts on every metric (and the logs' `service` key). */
export const METRIC_SERVICE = 'cronfence';

/**
 * Metric names, each emitted per job (dimensions `service` + `job`); `RunSkipped` additionally per
 * `Reason`. Values are counts of 1 per event, except `RunDuration` (milliseconds).
 */
export const RuntimeMetric = {
  /** A run finished `succeeded`. Drives the "no successful run within two periods" alarm. */
  RunSucceeded: 'RunSucceeded',
  RunFailed: 'RunFailed',
  RunSkipped: 'RunSkipped',
  RunStale: 'RunStale',
  RunAbandoned: 'RunAbandoned',
  StaleWriteRejected: 'StaleWriteRejected',
  EffectNeedsReview: 'EffectNeedsReview',
  /**
   * A run left an effect not terminal (`sending`: outcome unknown, or a lookup that may still find
   * it). Its alarm, with `cronfence effects --status unsettled` (the `problems` index), surfaces an
   * effect nobody settles.
   */
  EffectUnsettled: 'EffectUnsettled',
  /** An invocation with trigger `catch-up` (a slot the sweeper re-triggered) ran to its finish. */
  CatchUpTriggered: 'CatchUpTriggered',
  RunDuration: 'RunDuration',
} as const;
/** Union of {@link RuntimeMetric} values. */
export type RuntimeMetric = (typeof RuntimeMetric)[keyof typeof RuntimeMetric];
