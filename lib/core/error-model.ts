/**
 * The error model every cronfence error follows: a base class with a string-literal `code`, a
 * `category` that decides what a caller does with it (the CLI's exit code, whether a Lambda handler
 * rethrows so Lambda retries the event), and a brand that survives two copies of the library in one
 * process (the `Symbol.for` registry is process-wide, as aws-cdk's error brands are).
 */

/** The codes a {@link CronfenceError} can carry; stable across releases. */
export const ErrorCode = {
  InvalidEvent: 'INVALID_EVENT',
  UnknownJob: 'UNKNOWN_JOB',
  InvalidJobDefinition: 'INVALID_JOB_DEFINITION',
  InvalidSchedule: 'INVALID_SCHEDULE',
  InvalidConstruct: 'INVALID_CONSTRUCT',
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

/**
 * What kind of failure an error is, which decides what its caller does:
 * - `input`: the request itself is wrong (a bad argument, event, job definition, schedule, or an
 *   operator action on something that does not apply). Repeating it fails the same way.
 * - `configuration`: the deployment or environment is wrong (a table name, an environment variable, a
 *   construct's props). Fixed by a redeploy, not by a retry.
 * - `conflict`: the state differs from what the caller expected (another operator or run changed it, a
 *   pause is already in force, an idempotency key was reused with another request). Look again.
 * - `superseded`: this run's authority ended (lease lost, a newer fence wrote, the run finished). Its
 *   record says `stale`; a newer holder owns the slot, so nothing is retried.
 * - `transient`: a dependency failed or time ran out (DynamoDB, a live holder's lease, an unknown
 *   provider outcome). The same request may succeed later.
 */
export const ErrorCategory = {
  Input: 'input',
  Configuration: 'configuration',
  Conflict: 'conflict',
  Superseded: 'superseded',
  Transient: 'transient',
} as const;
/** Union of {@link ErrorCategory} values. */
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

/** The exit codes the category of an error maps to (the `cronfence` CLI's). */
export const ExitCode = {
  Ok: 0,
  /** The operation ran but failed: a conflict, a superseded run, a transient failure, any other error. */
  Failure: 1,
  /** Bad input or configuration: nothing was read, written or invoked. */
  Usage: 2,
} as const;
/** Union of {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Exit code of each category (see {@link exitCodeOf}). */
export const CATEGORY_EXIT_CODE: Readonly<Record<ErrorCategory, ExitCode>> = {
  input: ExitCode.Usage,
  configuration: ExitCode.Usage,
  conflict: ExitCode.Failure,
  superseded: ExitCode.Failure,
  transient: ExitCode.Failure,
};

/** Whether a Lambda handler rethrows an error of each category so that Lambda retries the event. */
export const CATEGORY_RETRIES: Readonly<Record<ErrorCategory, boolean>> = {
  input: false,
  configuration: false,
  conflict: false,
  superseded: false,
  transient: true,
};

/** The process-wide brand of a cronfence error: the same symbol in every copy of the library. */
const BRAND = Symbol.for('cronfence.CronfenceError');

/**
 * Base class of every cronfence error.
 * @example
 * try { await run(); } catch (err) { if (isCronfenceError(err) && err.category === 'input') ... }
 */
export class CronfenceError extends Error {
  /** Class name as a literal: minifiers rename classes, so `constructor.name` would not survive a bundle. */
  override readonly name: string = 'CronfenceError';
  /** Machine-readable code; stable across releases. */
  readonly code: ErrorCode;
  /** What kind of failure this is (see {@link ErrorCategory}). */
  readonly category: ErrorCategory;
  constructor(code: ErrorCode, category: ErrorCategory, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.category = category;
  }

  /** True for an error of any copy of the library (unlike `instanceof`, which sees only this copy). */
  static isCronfenceError(err: unknown): err is CronfenceError {
    return typeof err === 'object' && err !== null && (err as { [BRAND]?: unknown })[BRAND] === true;
  }
}

// The brand lives on the prototype (non-enumerable, read through the chain): every cronfence error
// carries it without a property defined per error (a run makes one at every finish).
Object.defineProperty(CronfenceError.prototype, BRAND, { value: true, enumerable: false });

/**
 * True for an error thrown by any copy of cronfence loaded in this process (two bundles, two
 * installed versions): checks the `Symbol.for` brand, not the class identity.
 */
export function isCronfenceError(err: unknown): err is CronfenceError {
  return CronfenceError.isCronfenceError(err);
}

/** The category of an error; `undefined` for an error that is not cronfence's (a job body's own). */
export function categoryOf(err: unknown): ErrorCategory | undefined {
  return isCronfenceError(err) ? err.category : undefined;
}

/**
 * The CLI exit code of an error, from its category ({@link CATEGORY_EXIT_CODE}): 2 for input and
 * configuration, 1 for everything else, including errors that are not cronfence's.
 */
export function exitCodeOf(err: unknown): ExitCode {
  const category = categoryOf(err);
  return category === undefined ? ExitCode.Failure : CATEGORY_EXIT_CODE[category];
}

/**
 * Whether a Lambda handler should rethrow `err` so that Lambda (and Scheduler) retry the event: true
 * for transient errors and for errors that are not cronfence's (a job body's own failure keeps
 * Lambda's retry policy); false for input, configuration, conflict and superseded errors, which a
 * retry would only meet again (the run's record says what happened).
 */
export function shouldRetry(err: unknown): boolean {
  const category = categoryOf(err);
  return category === undefined ? true : CATEGORY_RETRIES[category];
}
