/**
 * The numbers behind cronfence's alarms: the "no successful run" window, the async event age that
 * means an event waited in Lambda's queue, and what each problem metric means.
 */
import type { RuntimeMetric } from '../../lib/core/metrics.js';
import { PROBLEM_REASONS } from '../../lib/core/outcomes.js';

/** One day, s. */
export const DAY = 86_400;
const WEEK = 7 * DAY;
/** The sweeper's default period, s: a "no successful run" window is never shorter, so it holds a sweep. */
const MIN_NO_SUCCESS_WINDOW_SECONDS = 900;

/**
 * Alarm window for "no successful run within two schedule periods". Two periods that fit in one day
 * are ONE alarm period of twice the job's period (at least 15 minutes, so a sweep's data point falls
 * inside; a multiple of 60 s); longer ones are day periods (CloudWatch's largest), at most seven
 * (its evaluation limit): `capped` is set when two periods do not fit in seven days.
 */
export function noSuccessWindow(periodSeconds: number): {
  periodSeconds: number;
  evaluationPeriods: number;
  capped: boolean;
} {
  if (2 * periodSeconds <= DAY) {
    return {
      periodSeconds: Math.max(MIN_NO_SUCCESS_WINDOW_SECONDS, Math.ceil((2 * periodSeconds) / 60) * 60),
      evaluationPeriods: 1,
      capped: false,
    };
  }
  const wanted = Math.ceil((2 * periodSeconds) / DAY);
  return { periodSeconds: DAY, evaluationPeriods: Math.min(wanted, WEEK / DAY), capped: wanted * DAY > WEEK };
}

/**
 * The oldest an async event of a job may be while all is well, ms: Lambda's two retries (1 and 2 min
 * backoff) after two failed attempts of up to the function's timeout, plus 10 minutes of queueing. An
 * older event waited in Lambda's queue (throttled, no concurrency): the slot's liveness bound is at risk.
 * @param timeoutSeconds - the function's timeout, seconds.
 */
export function asyncEventAgeThresholdMs(timeoutSeconds: number): number {
  return (2 * timeoutSeconds + 180 + 600) * 1000;
}

/** What a job's problem metrics mean, for their alarm descriptions. */
export const PROBLEM_TEXT: Partial<Record<RuntimeMetric, string>> = {
  RunFailed: 'a run failed',
  RunStale:
    'a run went stale (lost its lease, met a higher fence, or was displaced by a newer occurrence: overlap replace)',
  RunAbandoned: 'a run was abandoned by a dead holder',
  SlotNotRun: `a slot was given up or is held back (skipped ${PROBLEM_REASONS.join(', ')})`,
  SweepFailed: 'the sweeper could not sweep this job (recorded failed / sweep-failed; other jobs were swept)',
};
