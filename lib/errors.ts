/**
 * Every error cronfence throws is a {@link CronfenceError} with a string-literal `code`,
 * an optional `cause`, and (for DynamoDB condition failures) the item DynamoDB returned.
 * Shape follows Powertools idempotency's `errors.ts`.
 */
import { showValue } from './core/show-value.js';

/** The codes a {@link CronfenceError} can carry. */
export const ErrorCode = {
  InvalidEvent: 'INVALID_EVENT',
  UnknownJob: 'UNKNOWN_JOB',
  InvalidJobDefinition: 'INVALID_JOB_DEFINITION',
  InvalidSchedule: 'INVALID_SCHEDULE',
  LeaseHeld: 'LEASE_HELD',
  LeaseLost: 'LEASE_LOST',
  StaleFence: 'STALE_FENCE',
  ResultConflict: 'RESULT_CONFLICT',
  IdempotencyConflict: 'IDEMPOTENCY_CONFLICT',
  EffectOutcomeUnknown: 'EFFECT_OUTCOME_UNKNOWN',
  Deadline: 'DEADLINE',
  RunFinished: 'RUN_FINISHED',
  Terminated: 'TERMINATED',
  Store: 'STORE',
  InvalidArgument: 'INVALID_ARGUMENT',
  Configuration: 'CONFIGURATION',
  EndpointUnreachable: 'ENDPOINT_UNREACHABLE',
  JobPaused: 'JOB_PAUSED',
  JobNotPaused: 'JOB_NOT_PAUSED',
  EffectChanged: 'EFFECT_CHANGED',
  EffectInFlight: 'EFFECT_IN_FLIGHT',
  LeaseBusy: 'LEASE_BUSY',
  LeaseChanged: 'LEASE_CHANGED',
} as const;
/** Union of {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every cronfence error. */
export class CronfenceError extends Error {
  /** Class name as a literal: minifiers rename classes, so `constructor.name` would not survive a bundle. */
  override readonly name: string = 'CronfenceError';
  /** Machine-readable code; stable across releases. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** An invocation payload that is not a Scheduler or manual event; names the field and value. */
export class InvalidEventError extends CronfenceError {
  override readonly name = 'InvalidEventError';
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidEvent,
      `invalid event: field "${field}" = ${showValue(value)}: ${problem}`,
      options,
    );
    this.field = field;
    this.value = value;
  }
}

/** The event names a job this function does not run (or that no registry knows). */
export class UnknownJobError extends CronfenceError {
  override readonly name = 'UnknownJobError';
  readonly job: unknown;
  constructor(job: unknown, known: readonly string[], options?: ErrorOptions) {
    super(
      ErrorCode.UnknownJob,
      `unknown job: field "job" = ${showValue(job)}; this function runs ${known.map((k) => `"${k}"`).join(', ')}`,
      options,
    );
    this.job = job;
  }
}

/** A job definition (or CLI argument) failed validation; names the field and value. */
export class InvalidJobDefinitionError extends CronfenceError {
  override readonly name = 'InvalidJobDefinitionError';
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidJobDefinition,
      `invalid job definition: "${field}" = ${showValue(value)}: ${problem}`,
      options,
    );
    this.field = field;
    this.value = value;
  }
}

/** An EventBridge Scheduler expression Scheduler itself would reject; names the part. */
export class InvalidScheduleError extends CronfenceError {
  override readonly name = 'InvalidScheduleError';
  readonly expression: string;
  readonly part: string;
  constructor(expression: string, part: string, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidSchedule,
      `invalid schedule ${showValue(expression)}: ${part}: ${problem}`,
      options,
    );
    this.expression = expression;
    this.part = part;
  }
}

/**
 * Another attempt of the same slot holds the lease and may be dead, and its lease outlives this
 * invocation: thrown (after the `skipped / lease-held` record) so that Lambda retries the event later
 * instead of treating the skip as the end of the line. `holderRunId` and `leaseUntilMs` name the holder.
 */
export class LeaseHeldError extends CronfenceError {
  override readonly name = 'LeaseHeldError';
  readonly holderRunId: string;
  readonly leaseUntilMs: number;
  constructor(slot: string, holderRunId: string, leaseUntilMs: number, options?: ErrorOptions) {
    super(
      ErrorCode.LeaseHeld,
      `slot ${slot} is held by run ${holderRunId} until ${new Date(leaseUntilMs).toISOString()}, which has not renewed (it may be dead) and outlives this invocation: retry later`,
      options,
    );
    this.holderRunId = holderRunId;
    this.leaseUntilMs = leaseUntilMs;
  }
}

/**
 * This run no longer holds its lease: a renewal or release found another owner or fence.
 * Carries the lease item DynamoDB returned (ALL_OLD on condition failure).
 */
export class LeaseLostError extends CronfenceError {
  override readonly name = 'LeaseLostError';
  readonly item: Record<string, unknown> | undefined;
  constructor(message: string, item?: Record<string, unknown>, options?: ErrorOptions) {
    super(ErrorCode.LeaseLost, message, options);
    this.item = item;
  }
}

/**
 * A write carried a fence lower than the one already stored on the item (docs/design.md step 3):
 * the writer is a stale holder. `storedFence` is the item's `lastFence` (or `fence`).
 */
export class StaleFenceError extends CronfenceError {
  override readonly name = 'StaleFenceError';
  readonly fence: number;
  readonly storedFence: number | undefined;
  readonly item: Record<string, unknown> | undefined;
  constructor(
    key: string,
    fence: number,
    storedFence: number | undefined,
    item?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(
      ErrorCode.StaleFence,
      `stale fence for ${key}: wrote with fence ${fence}, stored fence is ${storedFence}`,
      options,
    );
    this.fence = fence;
    this.storedFence = storedFence;
    this.item = item;
  }
}

/** An insert-once result exists with a different shape than this run would write (programming error). */
export class ResultConflictError extends CronfenceError {
  override readonly name = 'ResultConflictError';
  readonly item: Record<string, unknown> | undefined;
  constructor(message: string, item?: Record<string, unknown>, options?: ErrorOptions) {
    super(ErrorCode.ResultConflict, message, options);
    this.item = item;
  }
}

/** The same idempotency key was used with a different request. Nothing was sent. */
export class IdempotencyConflictError extends CronfenceError {
  override readonly name = 'IdempotencyConflictError';
  readonly key: string;
  constructor(key: string, message?: string, options?: ErrorOptions) {
    super(
      ErrorCode.IdempotencyConflict,
      message ?? `idempotency key "${key}" was already used with a different request; nothing sent`,
      options,
    );
    this.key = key;
  }
}

/**
 * A provider call's outcome is unknown (timeout, dropped connection, 5xx). Nothing is resent under a
 * new key: the effect stays `sending` and the next run reconciles it under the SAME key.
 */
export class EffectOutcomeUnknownError extends CronfenceError {
  override readonly name = 'EffectOutcomeUnknownError';
  readonly key: string;
  readonly why: string;
  constructor(key: string, why: string, options?: ErrorOptions) {
    super(
      ErrorCode.EffectOutcomeUnknown,
      `outcome of effect "${key}" is unknown (${why}); it stays "sending" and the next run reconciles it under the same key`,
      options,
    );
    this.key = key;
    this.why = why;
  }
}

/** The Lambda deadline is too close to start (or continue) work. */
export class DeadlineError extends CronfenceError {
  override readonly name = 'DeadlineError';
  readonly remainingMs: number;
  constructor(remainingMs: number, what: string, options?: ErrorOptions) {
    super(ErrorCode.Deadline, `deadline: ${remainingMs} ms left, too little to ${what}`, options);
    this.remainingMs = remainingMs;
  }
}

/**
 * The run's outcome is being recorded (or its handler returned): its authority has ended, and no
 * write or effect of this run is accepted any more (docs/design.md "What ends a run's authority").
 * The abort reason of the run's signal once it finishes for any reason.
 */
export class RunFinishedError extends CronfenceError {
  override readonly name = 'RunFinishedError';
  constructor(what = 'write or effect', options?: ErrorOptions) {
    super(
      ErrorCode.RunFinished,
      `run finished: its outcome is being recorded; no ${what} is accepted any more`,
      options,
    );
  }
}

/**
 * The platform asked the run's process to stop (ECS sends SIGTERM, then SIGKILL after the container's
 * `stopTimeout`): the abort reason of the run's signal; the run is recorded `failed / terminated`.
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
      `terminated: ${signalName} received; the platform kills the task ${stopTimeoutMs} ms later (stopTimeout)`,
      options,
    );
    this.signalName = signalName;
    this.stopTimeoutMs = stopTimeoutMs;
  }
}

/** A DynamoDB request failed for a reason other than a condition check (throttling, network, ...). */
export class StoreError extends CronfenceError {
  override readonly name = 'StoreError';
  readonly operation: string;
  constructor(operation: string, cause: unknown, options?: ErrorOptions) {
    super(
      ErrorCode.Store,
      `DynamoDB ${operation} failed: ${(cause as Error)?.name ?? 'Error'}: ${(cause as Error)?.message ?? String(cause)}`,
      { ...options, cause },
    );
    this.operation = operation;
  }
}

/** A CLI or API argument is invalid; names the argument and value. */
export class InvalidArgumentError extends CronfenceError {
  override readonly name = 'InvalidArgumentError';
  readonly argument: string;
  readonly value: unknown;
  constructor(argument: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(ErrorCode.InvalidArgument, `invalid ${argument} ${showValue(value)}: ${problem}`, options);
    this.argument = argument;
    this.value = value;
  }
}

/**
 * An operator resolution found the effect missing or not `needs-review`: nothing was changed.
 * Carries the item as it is.
 */
export class EffectNotInReviewError extends CronfenceError {
  override readonly name = 'EffectNotInReviewError';
  readonly key: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(key: string, item: Record<string, unknown> | undefined, job?: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidArgument,
      item
        ? `effect "${key}" is ${String(item.status)}, already terminal (only needs-review, sending or pending effects are resolved): nothing changed${item.reviewedBy ? ` (resolved by ${String(item.reviewedBy)})` : ''}`
        : `no effect with key "${key}"${job ? ` for job ${job}` : ''}: nothing changed`,
      options,
    );
    this.key = key;
    this.item = item;
  }
}

/** An ISO-8601 UTC instant of an epoch-ms value read from an item, or the value itself. */
function isoOf(ms: unknown): string {
  const n = Number(ms);
  return ms !== undefined && Number.isFinite(n) ? new Date(n).toISOString() : String(ms);
}

/**
 * An operator's write on an effect found the record changed since the operator was shown it (another
 * operator, or a run, wrote it meanwhile): nothing was changed. Carries the record as it is now.
 */
export class EffectChangedError extends CronfenceError {
  override readonly name = 'EffectChangedError';
  readonly key: string;
  /** The version token the operator was shown. */
  readonly expected: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(
    key: string,
    expected: string,
    item: Record<string, unknown> | undefined,
    options?: ErrorOptions,
  ) {
    const now = item
      ? `it is now ${String(item.status)} (version ${[item.status, item.fence, item.attempts, item.updatedAtMs].map((v) => String(v ?? '-')).join(':')}: fence ${String(item.fence)}, run ${String(item.runId)}, attempts ${String(item.attempts)}, updated ${isoOf(item.updatedAtMs)})`
      : 'it no longer exists';
    super(
      ErrorCode.EffectChanged,
      `effect "${key}" changed since version ${expected} was shown: ${now}: nothing changed; look at it again (cronfence effects) and resolve what it is now`,
      options,
    );
    this.key = key;
    this.expected = expected;
    this.item = item;
  }
}

/**
 * An operator's write on an effect in `sending` was refused because the run that moved it still holds
 * a live lease: its provider call may be in flight. Names the holder and when its lease ends.
 */
export class EffectInFlightError extends CronfenceError {
  override readonly name = 'EffectInFlightError';
  readonly key: string;
  readonly holderRunId: string;
  readonly leaseUntilMs: number;
  readonly lease: Record<string, unknown> | undefined;
  constructor(
    key: string,
    shown: { readonly runId: string; readonly fence: number; readonly leaseKey?: string },
    lease: Record<string, unknown> | undefined,
    options?: ErrorOptions,
  ) {
    const until = Number(lease?.leaseUntilMs);
    super(
      ErrorCode.EffectInFlight,
      `effect "${key}" is sending under the live lease of run ${shown.runId} (owner ${String(lease?.owner ?? shown.runId)}, fence ${shown.fence}, lease ${String(shown.leaseKey)}), which ends at ${isoOf(lease?.leaseUntilMs)}: its provider call may be in flight: nothing changed; wait until that run records its outcome or its lease ends, then look again`,
      options,
    );
    this.key = key;
    this.holderRunId = shown.runId;
    this.leaseUntilMs = until;
    this.lease = lease;
  }
}

/**
 * An operator's trigger or backfill met the job's lease held by a live run (or a lease other than the
 * one the operator was shown): nothing was invoked. Names the holder, its slot and when its lease ends.
 */
export class LeaseBusyError extends CronfenceError {
  override readonly name = 'LeaseBusyError';
  readonly lease: Record<string, unknown> | undefined;
  constructor(message: string, lease: Record<string, unknown> | undefined, options?: ErrorOptions) {
    super(ErrorCode.LeaseBusy, message, options);
    this.lease = lease;
  }
}

/**
 * An operator's pause, resume, trigger or backfill found the job's lease changed since the version the
 * operator was shown (a run claimed it, another operator paused or resumed it): nothing was changed or
 * invoked. Carries the lease item as it is.
 */
export class LeaseChangedError extends CronfenceError {
  override readonly name = 'LeaseChangedError';
  readonly job: string;
  readonly expected: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(
    job: string,
    expected: string,
    item: Record<string, unknown> | undefined,
    options?: ErrorOptions,
  ) {
    const now = item
      ? `it is now version ${String(item.fence ?? '-')}:${String(item.pausedAtMs ?? '-')} (fence ${String(item.fence ?? '-')}, ${item.holderState === 'running' ? `held by run ${String(item.owner)} for slot ${String(item.slot)} until ${isoOf(item.leaseUntilMs)}` : 'no holder'}, ${item.pausedAtMs !== undefined ? `paused by ${String(item.pausedBy)} at ${isoOf(item.pausedAtMs)}` : 'not paused'})`
      : 'it does not exist';
    super(
      ErrorCode.LeaseChanged,
      `job ${job}: its lease changed since version ${expected} was shown: ${now}: nothing changed; look again and retry with the version shown now`,
      options,
    );
    this.job = job;
    this.expected = expected;
    this.item = item;
  }
}

/**
 * The function's environment is missing or misconfigures a setting (a table name, the sweeper's job
 * list): a deployment problem, not a job definition. Names the variable and the value.
 */
export class ConfigurationError extends CronfenceError {
  override readonly name = 'ConfigurationError';
  readonly variable: string;
  readonly value: unknown;
  constructor(variable: string, value: unknown, problem: string, options?: ErrorOptions) {
    super(
      ErrorCode.Configuration,
      `invalid configuration: ${variable} = ${showValue(value)}: ${problem}`,
      options,
    );
    this.variable = variable;
    this.value = value;
  }
}

/**
 * A configured endpoint (DynamoDB Local's `DYNAMODB_ENDPOINT`, `--endpoint`) cannot be reached: names
 * where the endpoint came from and its value, with the network error as `cause`.
 * @example new EndpointUnreachableError('DYNAMODB_ENDPOINT', 'http://127.0.0.1:9', 'start it', { cause })
 */
export class EndpointUnreachableError extends CronfenceError {
  override readonly name = 'EndpointUnreachableError';
  /** Where the endpoint came from: `DYNAMODB_ENDPOINT`, `--endpoint`, or the file that named it. */
  readonly variable: string;
  readonly endpoint: string;
  /** @param options `cause`: the network error, whose message is quoted. */
  constructor(variable: string, endpoint: string, advice: string, options?: ErrorOptions) {
    const cause = options?.cause as Error | undefined;
    super(
      ErrorCode.EndpointUnreachable,
      `${variable} ${showValue(endpoint)} cannot be reached${cause ? ` (${cause.message ?? String(cause)})` : ''}: ${advice}`,
      options,
    );
    this.variable = variable;
    this.endpoint = endpoint;
  }
}

/**
 * `cronfence pause` found a pause already in force on the job's lease: nothing was changed. Carries
 * the lease item as it is (resume first, or wait for its `--until`).
 */
export class JobPausedError extends CronfenceError {
  override readonly name = 'JobPausedError';
  readonly job: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(
    job: string,
    pause: { by: string; atMs: number; note: string; untilMs?: number } | undefined,
    item: Record<string, unknown> | undefined,
    options?: ErrorOptions,
  ) {
    super(
      ErrorCode.JobPaused,
      pause
        ? `job ${job} is already paused by ${pause.by} since ${new Date(pause.atMs).toISOString()}${pause.untilMs !== undefined ? ` until ${new Date(pause.untilMs).toISOString()}` : ''} ("${pause.note}"): nothing changed; resume it first`
        : `job ${job}: the pause was refused (the lease item changed meanwhile): nothing changed`,
      options,
    );
    this.job = job;
    this.item = item;
  }
}

/** `cronfence resume` found no pause (or another one than it read) on the job's lease: nothing changed. */
export class JobNotPausedError extends CronfenceError {
  override readonly name = 'JobNotPausedError';
  readonly job: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(job: string, item: Record<string, unknown> | undefined, options?: ErrorOptions) {
    super(
      ErrorCode.JobNotPaused,
      item?.pausedAtMs === undefined
        ? `job ${job} is not paused: nothing changed`
        : `job ${job} was paused again meanwhile (by ${String(item.pausedBy)}): nothing changed; run resume again to clear that pause`,
      options,
    );
    this.job = job;
    this.item = item;
  }
}
