/**
 * `cronfence/runtime`: the parts under `defineJob`, for those who compose their own runtime or tools:
 * the DynamoDB stores and their ports, the library table's schema and keys, the dependency wiring, the
 * middy middleware, shard dispatchers, the invocation event, slots and schedule expressions, restore
 * marks, effect records, and the error model's helpers with every error class not in the root export.
 * Named re-exports only; the job author's vocabulary is the root export (`cronfence`).
 */

export {
  EFFECT_UNSETTLED_AFTER_MS,
  type EffectError,
  type EffectItem,
  EffectSource,
  EffectStatus,
  effectVersion,
  FINAL_EFFECT_STATUSES,
  type LateOutcome,
} from '../core/effects.js';
export {
  CATEGORY_EXIT_CODE,
  CATEGORY_RETRIES,
  categoryOf,
  ExitCode,
  exitCodeOf,
  shouldRetry,
} from '../core/error-model.js';
export { type InvocationEvent, parseInvocationEvent } from '../core/event.js';
export type { BusinessItem, FencedItem } from '../core/fence-errors.js';
export {
  ConfigurationError,
  InvalidArgumentError,
  InvalidEventError,
} from '../core/input-errors.js';
export { type JobDefinition, jobKeyOf } from '../core/job-definition.js';
export type { LeaseItem } from '../core/lease.js';
export { PROBLEM_OUTCOMES } from '../core/outcomes.js';
export type { Clock, EffectStore, HolderSeen, LeaseStore, RunRecord, RunStore } from '../core/ports.js';
export { systemClock } from '../core/ports.js';
export { BOOKKEEPING_PREFIX, BusinessAttr, LegacyBusinessAttr } from '../core/results.js';
export { parseScheduleExpression, type ScheduleExpression } from '../core/schedule/expression.js';
export { slotFromLocalTime, slotFromScheduledTime } from '../core/schedule/slot.js';
export { canonicalJson, digestOf, MAX_EFFECT_KEY_BYTES, validateEffectKey } from '../effects/keys.js';
export { validateJob } from '../runtime/define-job.js';
export { createDeps, type RuntimeDeps } from '../runtime/deps.js';
export { LeaseHeldError, UnknownJobError } from '../runtime/errors.js';
export type { Observer, RuntimeEvent } from '../runtime/events.js';
export { type FanOutDeps, InProcessShardDispatcher, type ShardDelivery } from '../runtime/fan-out.js';
export type { EffectsBinding, RunEffects } from '../runtime/job-effects.js';
export {
  type CronfenceLambdaContext,
  type CronfenceMiddlewareOptions,
  cronfenceMiddleware,
} from '../runtime/middleware.js';
export { createDocumentClient } from '../store/client.js';
export { DynamoEffectStore } from '../store/effect-store.js';
export { EndpointUnreachableError } from '../store/errors.js';
export { declaredUses } from '../store/job-access.js';
export { DynamoLeaseStore } from '../store/lease-store.js';
export {
  EffectChangedError,
  EffectInFlightError,
  EffectNotInReviewError,
  JobNotPausedError,
  JobPausedError,
  LeaseBusyError,
  LeaseChangedError,
} from '../store/operator-errors.js';
export {
  clearRestoreMark,
  DEFAULT_FENCE_HEADROOM,
  markRestored,
  type RestoredJob,
} from '../store/restore.js';
export { DynamoResultStore, type InsertOnceResult } from '../store/result-store.js';
export { DynamoRunStore } from '../store/run-store.js';
export { createTableInput, Keys, libraryTable, PROBLEMS_INDEX } from '../store/schema.js';
