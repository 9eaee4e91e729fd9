/**
 * cronfence: the job author's vocabulary, named re-exports only. Define a job (`defineJob`), list the
 * app's jobs (`defineRegistry`), declare what a job touches (`uses`, `TableSchema`, `tableName`), call
 * a provider (`effectRunner`, `EffectProvider`, `httpJsonProvider`), split work over shards (`shardOf`, `ownsKey`), and
 * handle the errors a job body meets. Stores, schema and wiring for those who compose their own runtime
 * are in `cronfence/runtime`; Powertools logs and metrics in `cronfence/observability`.
 */

export type { EffectProvider, EffectResult, LookupResult, SendResult } from './core/effects.js';
export { CronfenceError, ErrorCategory, ErrorCode, isCronfenceError } from './core/error-model.js';
export { ResultConflictError, StaleFenceError } from './core/fence-errors.js';
export { InvalidJobDefinitionError, InvalidScheduleError } from './core/input-errors.js';
export { Outcome, Reason, Trigger } from './core/outcomes.js';
export {
  type OverlapOption,
  type OverlapOptions,
  OverlapPolicy,
  type OverlapPolicyName,
} from './core/overlap.js';
export type { Slot } from './core/schedule/slot.js';
export { EffectOutcomeUnknownError, IdempotencyConflictError } from './effects/errors.js';
export {
  type HttpJsonProviderOptions,
  httpJsonProvider,
  parseCapabilities,
} from './effects/http-provider.js';
export {
  defineJob,
  type JobHandler,
  type JobMiddleware,
  type JobOptions,
} from './runtime/define-job.js';
export { effectRunner } from './runtime/effect-runner.js';
export { DeadlineError, RunFinishedError } from './runtime/errors.js';
export { ownsKey, type ShardDispatcher, shardOf } from './runtime/fan-out.js';
export { type LambdaShardDispatcherOptions, lambdaShardDispatcher } from './runtime/fan-out-lambda.js';
export type { JobContext } from './runtime/job-context.js';
export type { JobEffects } from './runtime/job-effects.js';
export { defineRegistry, type JobEntryInput, type RegisteredJob } from './runtime/registry.js';
export type { RunSummary } from './runtime/run-session.js';
export { LeaseLostError, StoreError } from './store/errors.js';
export type { JobAccess, TableUse, TableWrite } from './store/job-access.js';
export { type TableSchema, tableName } from './store/schema.js';
