/**
 * Names shared by the runtime's metrics (lib/runtime/observability.ts), the sweeper's and the CDK
 * alarms (cdk/constructs/alarms.ts): one definition, so an alarm cannot watch a metric nobody emits.
 */
import { isProblemRun, Outcome, Reason } from './outcomes.js';

/** CloudWatch namespace of cronfence's metrics (the CDK alarms read it). */
export const METRIC_NAMESPACE = 'cronfence';
/** Value of the `service` dimension Powertools puts on every metric (and the logs' `service` key). */
export const METRIC_SERVICE = 'cronfence';

/**
 * Metric names, each emitted per job (dimensions `service` + `job`); `RunSkipped` additionally per
 * `Reason`. Values are counts of 1 per event, except `RunDuration` (milliseconds) and `RunSucceeded`
 * (1 per success, 0 per problem: see {@link RuntimeMetric.RunSucceeded}).
 */
export const RuntimeMetric = {
  /**
   * 1 when a run finished `succeeded`; 0 when a run or the sweeper recorded a problem of the job (or the
   * sweeper found a due slot not done). Drives the "no successful run within two periods" alarm: a window
   * with data and a sum below 1 breaches, a window without data (no occurrence due yet, e.g. right after
   * the first deploy) does not.
   */
  RunSucceeded: 'RunSucceeded',
  RunFailed: 'RunFailed',
  RunSkipped: 'RunSkipped',
  RunStale: 'RunStale',
  RunAbandoned: 'RunAbandoned',
  /**
   * A slot was given up: it will never run under the current definition (a `skipped` record whose reason
   * is in PROBLEM_REASONS: `not-on-schedule`, `catch-up-limit`, `buffer-full`), or an `after-previous`
   * slot waited for its predecessor past its bound (`waiting-too-long`); written by a run or the sweeper.
   */
  SlotNotRun: 'SlotNotRun',
  /** The sweeper could not sweep this job (`failed / sweep-failed`); the other jobs were swept. */
  SweepFailed: 'SweepFailed',
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

/**
 * The metric that counts a problem record (one that lands in the `problems` index), the same for the
 * runtime and the sweeper; `undefined` for a record that is not a problem. Every problem maps to a
 * metric the job's alarms watch (test/cdk/problem-alarms.test.ts checks every outcome and reason).
 * @param outcome - the record's outcome.
 * @param reason - the record's reason, if any.
 */
export function problemMetric(outcome: Outcome, reason: string | undefined): RuntimeMetric | undefined {
  if (!isProblemRun(outcome, reason)) return undefined;
  switch (outcome) {
    case Outcome.Failed:
      // `error`, `deadline`, `store-error`, `terminated` (an ECS task stopped by SIGTERM), ...: RunFailed.
      return reason === Reason.SweepFailed ? RuntimeMetric.SweepFailed : RuntimeMetric.RunFailed;
    case Outcome.Stale:
      return RuntimeMetric.RunStale;
    case Outcome.Abandoned:
      return RuntimeMetric.RunAbandoned;
    default:
      // A skip (or any other outcome) whose reason is a problem: the slot will never run.
      return RuntimeMetric.SlotNotRun;
  }
}

/** Metrics whose every data point is a problem: each has a per-job alarm at 1 in 5 minutes. */
export const PROBLEM_METRICS: readonly RuntimeMetric[] = [
  RuntimeMetric.RunFailed,
  RuntimeMetric.RunStale,
  RuntimeMetric.RunAbandoned,
  RuntimeMetric.SlotNotRun,
  RuntimeMetric.SweepFailed,
];
