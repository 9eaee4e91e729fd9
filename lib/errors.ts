/**
 * Every error cronfence throws is a {@link CronfenceError} with a string-literal `code`,
 * an optional `cause`, and (for DynamoDB condition failures) the item DynamoDB returned.
 * Shape follows Powertools idempotency's `errors.ts`.
 */

/** The codes a {@link CronfenceError} can carry. */
export const ErrorCode = {
  InvalidEvent: 'INVALID_EVENT',
  UnknownJob: 'UNKNOWN_JOB',
  InvalidJobDefinition: 'INVALID_JOB_DEFINITION',
  InvalidSchedule: 'INVALID_SCHEDULE',
  InvalidTimeZone: 'INVALID_TIME_ZONE',
  LeaseHeld: 'LEASE_HELD',
  LeaseLost: 'LEASE_LOST',
  StaleFence: 'STALE_FENCE',
  ResultConflict: 'RESULT_CONFLICT',
  IdempotencyConflict: 'IDEMPOTENCY_CONFLICT',
  EffectOutcomeUnknown: 'EFFECT_OUTCOME_UNKNOWN',
  Deadline: 'DEADLINE',
  Store: 'STORE',
  InvalidArgument: 'INVALID_ARGUMENT',
} as const;
/** Union of {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every cronfence error. */
export class CronfenceError extends Error {
  /** Machine-readable code; stable across releases. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Quote a value for an error message, bounded so a huge payload cannot flood a log line. */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** An invocation payload that is not a Scheduler or manual event; names the field and value. */
export class InvalidEventError extends CronfenceError {
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string) {
    super(ErrorCode.InvalidEvent, `invalid event: field "${field}" = ${showValue(value)}: ${problem}`);
    this.field = field;
    this.value = value;
  }
}

/** The event names a job this function does not run (or that no registry knows). */
export class UnknownJobError extends CronfenceError {
  readonly job: unknown;
  constructor(job: unknown, known: readonly string[]) {
    super(
      ErrorCode.UnknownJob,
      `unknown job: field "job" = ${showValue(job)}; this function runs ${known.map((k) => `"${k}"`).join(', ')}`,
    );
    this.job = job;
  }
}

/** A job definition (or CLI argument) failed validation; names the field and value. */
export class InvalidJobDefinitionError extends CronfenceError {
  readonly field: string;
  readonly value: unknown;
  constructor(field: string, value: unknown, problem: string) {
    super(
      ErrorCode.InvalidJobDefinition,
      `invalid job definition: "${field}" = ${showValue(value)}: ${problem}`,
    );
    this.field = field;
    this.value = value;
  }
}

/** An EventBridge Scheduler expression Scheduler itself would reject; names the part. */
export class InvalidScheduleError extends CronfenceError {
  readonly expression: string;
  readonly part: string;
  constructor(expression: string, part: string, problem: string) {
    super(ErrorCode.InvalidSchedule, `invalid schedule ${showValue(expression)}: ${part}: ${problem}`);
    this.expression = expression;
    this.part = part;
  }
}

/** Not an IANA time zone name known to this runtime's ICU data. */
export class InvalidTimeZoneError extends CronfenceError {
  readonly timeZone: unknown;
  constructor(timeZone: unknown) {
    super(ErrorCode.InvalidTimeZone, `invalid time zone: ${showValue(timeZone)} is not an IANA zone name`);
    this.timeZone = timeZone;
  }
}

/**
 * Another attempt of the same slot holds the lease and may be dead, and its lease outlives this
 * invocation: thrown (after the `skipped / lease-held` record) so that Lambda retries the event later
 * instead of treating the skip as the end of the line. `holderRunId` and `leaseUntilMs` name the holder.
 */
export class LeaseHeldError extends CronfenceError {
  readonly holderRunId: string;
  readonly leaseUntilMs: number;
  constructor(slot: string, holderRunId: string, leaseUntilMs: number) {
    super(
      ErrorCode.LeaseHeld,
      `slot ${slot} is held by run ${holderRunId} until ${new Date(leaseUntilMs).toISOString()}, which has not renewed (it may be dead) and outlives this invocation: retry later`,
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
  readonly item: Record<string, unknown> | undefined;
  constructor(message: string, item?: Record<string, unknown>) {
    super(ErrorCode.LeaseLost, message);
    this.item = item;
  }
}

/**
 * A write carried a fence lower than the one already stored on the item (DESIGN.md protocol 3):
 * the writer is a stale holder. `storedFence` is the item's `lastFence` (or `fence`).
 */
export class StaleFenceError extends CronfenceError {
  readonly fence: number;
  readonly storedFence: number | undefined;
  readonly item: Record<string, unknown> | undefined;
  constructor(key: string, fence: number, storedFence: number | undefined, item?: Record<string, unknown>) {
    super(
      ErrorCode.StaleFence,
      `stale fence for ${key}: wrote with fence ${fence}, stored fence is ${storedFence}`,
    );
    this.fence = fence;
    this.storedFence = storedFence;
    this.item = item;
  }
}

/** An insert-once result exists with a different shape than this run would write (programming error). */
export class ResultConflictError extends CronfenceError {
  readonly item: Record<string, unknown> | undefined;
  constructor(message: string, item?: Record<string, unknown>) {
    super(ErrorCode.ResultConflict, message);
    this.item = item;
  }
}

/** The same idempotency key was used with a different request. Nothing was sent. */
export class IdempotencyConflictError extends CronfenceError {
  readonly key: string;
  constructor(key: string, message?: string) {
    super(
      ErrorCode.IdempotencyConflict,
      message ?? `idempotency key "${key}" was already used with a different request; nothing sent`,
    );
    this.key = key;
  }
}

/**
 * A provider call's outcome is unknown (timeout, dropped connection, 5xx). Nothing is resent under a
 * new key: the effect stays `sending` and the next run reconciles it under the SAME key.
 */
export class EffectOutcomeUnknownError extends CronfenceError {
  readonly key: string;
  readonly why: string;
  constructor(key: string, why: string) {
    super(
      ErrorCode.EffectOutcomeUnknown,
      `outcome of effect "${key}" is unknown (${why}); it stays "sending" and the next run reconciles it under the same key`,
    );
    this.key = key;
    this.why = why;
  }
}

/** The Lambda deadline is too close to start (or continue) work. */
export class DeadlineError extends CronfenceError {
  readonly remainingMs: number;
  constructor(remainingMs: number, what: string) {
    super(ErrorCode.Deadline, `deadline: ${remainingMs} ms left, too little to ${what}`);
    this.remainingMs = remainingMs;
  }
}

/** A DynamoDB request failed for a reason other than a condition check (throttling, network, ...). */
export class StoreError extends CronfenceError {
  readonly operation: string;
  constructor(operation: string, cause: unknown) {
    super(
      ErrorCode.Store,
      `DynamoDB ${operation} failed: ${(cause as Error)?.name ?? 'Error'}: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
    this.operation = operation;
  }
}

/** A CLI or API argument is invalid; names the argument and value. */
export class InvalidArgumentError extends CronfenceError {
  readonly argument: string;
  readonly value: unknown;
  constructor(argument: string, value: unknown, problem: string) {
    super(ErrorCode.InvalidArgument, `invalid ${argument} ${showValue(value)}: ${problem}`);
    this.argument = argument;
    this.value = value;
  }
}

/**
 * An operator resolution found the effect missing or not `needs-review`: nothing was changed.
 * Carries the item as it is.
 */
export class EffectNotInReviewError extends CronfenceError {
  readonly key: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(key: string, item: Record<string, unknown> | undefined, job?: string) {
    super(
      ErrorCode.InvalidArgument,
      item
        ? `effect "${key}" is ${String(item.status)}, not needs-review: nothing changed${item.reviewedBy ? ` (resolved by ${String(item.reviewedBy)})` : ''}`
        : `no effect with key "${key}"${job ? ` for job ${job}` : ''}: nothing changed`,
    );
    this.key = key;
    this.item = item;
  }
}
