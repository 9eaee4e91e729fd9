/**
 * cronfence public surface: named re-exports only.
 */
export * from './errors.js';
export { Outcome, Reason, Trigger, PROBLEM_OUTCOMES } from './core/outcomes.js';
export type { JobDefinition } from './core/job-definition.js';
export { parseInvocationEvent, schedulerInputTemplate, SCHEDULER_INPUT_TEMPLATE, type InvocationEvent } from './core/event.js';
export { parseScheduleExpression, type ScheduleExpression } from './core/schedule/expression.js';
export { slotFromScheduledTime, slotFromLocalTime, type Slot } from './core/schedule/slot.js';
export type { Clock, LeaseStore, RunStore, RunRecord, HolderSeen } from './core/ports.js';
export { systemClock } from './core/ports.js';
export { Keys, libraryTable, PROBLEMS_INDEX, createTableInput, type TableSchema } from './store/schema.js';
export { createDocumentClient } from './store/client.js';
export { DynamoLeaseStore } from './store/lease-store.js';
export { DynamoRunStore } from './store/run-store.js';
export { DynamoResultStore, type InsertOnceResult } from './store/result-store.js';
export { createDeps, type RuntimeDeps } from './runtime/deps.js';
export { defineJob, validateJob, type JobHandler, type JobOptions } from './runtime/define-job.js';
export type { JobContext } from './runtime/job-context.js';
export type { RunSummary } from './runtime/run-session.js';
