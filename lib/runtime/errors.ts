/**
 * The errors of a run's life: an event for another job, a lease held by a holder that may be dead, a
 * deadline too close, and a run whose authority has ended.
 */
import { CronfenceError, ErrorCategory, ErrorCode } from '../core/error-model.js';
import { showValue } from '../core/show-value.js';

/** The event names a job this function does not run (or that no registry knows). Category `input`. */
export class UnknownJobError extends CronfenceError {
  override readonly name = 'UnknownJobError';
  readonly job: unknown;
  constructor(job: unknown, known: readonly string[], options?: ErrorOptions) {
    super(
      ErrorCode.UnknownJob,
      ErrorCategory.Input,
      `unknown job: field "job" = ${showValue(job)}; this function runs ${known.map((k) => `"${k}"`).join(', ')}`,
      options,
    );
    this.job = job;
  }
}

/**
 * Another attempt of the same slot holds the lease and may be dead, and its lease outlives this
 * invocation: thrown (after the `skipped / lease-held` record) so that Lambda retries the event later
 * instead of treating the skip as the end of the line. `holderRunId` and `leaseUntilMs` name the holder.
 * Category `transient`.
 */
export class LeaseHeldError extends CronfenceError {
  override readonly name = 'LeaseHeldError';
  readonly holderRunId: string;
  readonly leaseUntilMs: number;
  constructor(slot: string, holderRunId: string, leaseUntilMs: number, options?: ErrorOptions) {
    super(
      ErrorCode.LeaseHeld,
      ErrorCategory.Transient,
      `slot ${slot} is held by run ${holderRunId} until ${new Date(leaseUntilMs).toISOString()}, which has not renewed (it may be dead) and outlives this invocation: retry later`,
      options,
    );
    this.holderRunId = holderRunId;
    this.leaseUntilMs = leaseUntilMs;
  }
}

/** The Lambda deadline is too close to start (or continue) work. Category `transient`. */
export class DeadlineError extends CronfenceError {
  override readonly name = 'DeadlineError';
  readonly remainingMs: number;
  constructor(remainingMs: number, what: string, options?: ErrorOptions) {
    super(
      ErrorCode.Deadline,
      ErrorCategory.Transient,
      `deadline: ${remainingMs} ms left, too little to ${what}`,
      options,
    );
    this.remainingMs = remainingMs;
  }
}

/**
 * The run's outcome is being recorded (or its handler returned): its authority has ended, and no
 * write or effect of this run is accepted any more (docs/design.md "What ends a run's authority").
 * The abort reason of the run's signal once it finishes for any reason. Category `superseded`.
 */
export class RunFinishedError extends CronfenceError {
  override readonly name = 'RunFinishedError';
  constructor(what = 'write or effect', options?: ErrorOptions) {
    super(
      ErrorCode.RunFinished,
      ErrorCategory.Superseded,
      `run finished: its outcome is being recorded; no ${what} is accepted any more`,
      options,
    );
  }
}

/**
 * The platform asked the run's process to stop (ECS sends SIGTERM, then SIGKILL after the container's
 * `stopTimeout`): the abort reason of the run's signal; the run is recorded `failed / terminated`.
 * Category transient: another task of the occurrence (a catch-up, a retry) may complete it.
 */
export class TerminatedError extends CronfenceError {
  override readonly name = 'TerminatedError';
  /** The signal received, e.g. `SIGTERM`. */
  readonly signalName: string;
  /** Time the platform allows before it kills the process, ms (the container's stopTimeout). */
  readonly stopTimeoutMs: number;
  constructor(signalName: string, stopTimeoutMs: number, options?: ErrorOptions) {
    super(
      ErrorCode.Terminated,
      ErrorCategory.Transient,
      `terminated: ${signalName} received; the platform kills the task ${stopTimeoutMs} ms later (stopTimeout)`,
      options,
    );
    this.signalName = signalName;
    this.stopTimeoutMs = stopTimeoutMs;
  }
}
