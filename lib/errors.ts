/**
 * Every error cronfence throws, re-exported from the layer that throws it: the error model
 * (lib/core/error-model.ts), input and configuration errors (lib/core/input-errors.ts), refused
 * business writes (lib/core/fence-errors.ts), store and operator errors (lib/store/errors.ts,
 * lib/store/operator-errors.ts), effect errors (lib/effects/errors.ts) and a run's errors
 * (lib/runtime/errors.ts). Code inside lib/ imports the layer's file; this barrel is for callers.
 */
export {
  CATEGORY_EXIT_CODE,
  CATEGORY_RETRIES,
  CronfenceError,
  categoryOf,
  ErrorCategory,
  ErrorCode,
  ExitCode,
  exitCodeOf,
  isCronfenceError,
  shouldRetry,
} from './core/error-model.js';
export {
  type BusinessItem,
  type FencedItem,
  ResultConflictError,
  StaleFenceError,
} from './core/fence-errors.js';
export {
  ConfigurationError,
  InvalidArgumentError,
  InvalidEventError,
  InvalidJobDefinitionError,
  InvalidScheduleError,
} from './core/input-errors.js';
export { EffectOutcomeUnknownError, IdempotencyConflictError } from './effects/errors.js';
export {
  DeadlineError,
  LeaseHeldError,
  RunFinishedError,
  TerminatedError,
  UnknownJobError,
} from './runtime/errors.js';
export { EndpointUnreachableError, LeaseLostError, StoreError } from './store/errors.js';
export {
  EffectChangedError,
  EffectInFlightError,
  EffectNotInReviewError,
  JobNotPausedError,
  JobPausedError,
  LeaseBusyError,
  LeaseChangedError,
} from './store/operator-errors.js';
