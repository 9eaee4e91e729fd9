/**
 * cronfence public surface: named re-exports only.
 */

export { type InvocationEvent, parseInvocationEvent } from './core/event.js';
export type { JobDefinition } from './core/job-definition.js';
export { Outcome, PROBLEM_OUTCOMES, Reason, Trigger } from './core/outcomes.js';
export type { Clock, HolderSeen, LeaseStore, RunRecord, RunStore } from './core/ports.js';
export { systemClock } from './core/ports.js';
export { BOOKKEEPING_PREFIX, BusinessAttr, LegacyBusinessAttr } from './core/results.js';
export { parseScheduleExpression, type ScheduleExpression } from './core/schedule/expression.js';
export { type Slot, slotFromLocalTime, slotFromScheduledTime } from './core/schedule/slot.js';
export * from './effects/index.js';
export * from './errors.js';
export {
  defineJob,
  type JobHandler,
  type JobMiddleware,
  type JobOptions,
  validateJob,
} from './runtime/define-job.js';
export { createDeps, type RuntimeDeps } from './runtime/deps.js';
export {
  type FanOutDeps,
  InProcessShardDispatcher,
  ownsKey,
  type ShardDelivery,
  type ShardDispatcher,
  shardOf,
} from './runtime/fan-out.js';
export { type LambdaShardDispatcherOptions, lambdaShardDispatcher } from './runtime/fan-out-lambda.js';
export type { JobContext } from './runtime/job-context.js';
export {
  type CronfenceLambdaContext,
  type CronfenceMiddlewareOptions,
  cronfenceMiddleware,
} from './runtime/middleware.js';
export type { RunSummary } from './runtime/run-session.js';
export { createDocumentClient } from './store/client.js';
export { declaredUses, type JobAccess, type TableUse, TableWrite } from './store/job-access.js';
export { DynamoLeaseStore } from './store/lease-store.js';
export { DynamoResultStore, type InsertOnceResult } from './store/result-store.js';
export { DynamoRunStore } from './store/run-store.js';
export {
  createTableInput,
  Keys,
  libraryTable,
  PROBLEMS_INDEX,
  type TableSchema,
  tableName,
} from './store/schema.js';
