/**
 * `cronfence/operate`: the operator API under the `cronfence` CLI, for runbooks and tests. Open an
 * {@link Operator} on the library table, take a job's {@link JobHandle}, call its operations; each
 * returns a plain view (what `cronfence <command> --json` prints). Named re-exports only.
 */
export type {
  BackfillOptions,
  BackfillPlanView,
  BackfillRange,
  BackfillResult,
  PlannedSlotView,
} from './backfill.js';
export type { LeaseVersionView } from './backfill-guard.js';
export type { InvokeTarget } from './backfill-invoke.js';
export type { BackfillRow, PlannedRun } from './backfill-summary.js';
export type { CheckReport } from './check.js';
export { loadProjectConfig, type ProjectConfig } from './config.js';
export type { Connection, ConnectionOptions } from './connection.js';
export type { JobDescription, PauseStateView } from './describe.js';
export {
  EFFECT_LISTINGS,
  type EffectListing,
  type EffectsOptions,
  type EffectView,
  RESOLUTIONS,
  type ResolvedEffectView,
  type ResolveOptions,
  UNSETTLED_AFTER_MS,
} from './effects.js';
export type { JobHistory } from './history.js';
export { OPERATOR_ENV } from './input.js';
export { JobHandle } from './job-handle.js';
export { JOBS_LOOKBACK_MS, type JobRow } from './jobs.js';
export type { LeaseView } from './lease.js';
export { Operator, type OperatorOptions, openOperator } from './operator.js';
export type { LiveHolderView, PauseOptions, PauseView, ResumeOptions, ResumeView } from './pause.js';
export type { PausedSlot } from './paused-slots.js';
export type { HandlerList, HandlerLoader, HandlerSource } from './registry.js';
export type { JobRunsOptions, ProblemRunsOptions, RunView } from './runs.js';
export type { TriggerOptions, TriggerPreview, TriggerResult } from './trigger.js';
