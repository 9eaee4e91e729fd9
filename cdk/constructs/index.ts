/** The cronfence CDK constructs: named re-exports only. */
export { CronfenceAlarms, type CronfenceAlarmsProps, noSuccessWindow } from './alarms.js';
export {
  assertUniqueJobNames,
  CronfenceJobs,
  type CronfenceJobsProps,
  type JobEntry,
} from './cronfence-jobs.js';
export { createDeadLetterQueue } from './dead-letter-queue.js';
export {
  DEFAULT_ASYNC_MAX_EVENT_AGE,
  DEFAULT_ASYNC_RETRY_ATTEMPTS,
  DEFAULT_LOG_RETENTION,
  DEFAULT_MEMORY_MB,
  DEFAULT_SCHEDULER_MAX_EVENT_AGE,
  DEFAULT_SCHEDULER_RETRY_ATTEMPTS,
  DEFAULT_SWEEP_SCHEDULE,
  DEFAULT_SWEEPER_TIMEOUT_SECONDS,
  DLQ_RETENTION,
  EnvVar,
  ESBUILD_TARGET,
  JOB_EFFECT_ACTIONS,
  JOB_LEASE_ACTIONS,
  JOB_LEASE_CHECK_ACTION,
  JOB_RUN_ACTIONS,
  LAMBDA_ARCHITECTURE,
  LAMBDA_RUNTIME,
  METRIC_NAMESPACE,
  METRIC_SERVICE,
  metricDimensions,
  READ_RUNS_ACTIONS,
  RuntimeMetric,
  SWEEPER_READ_ACTIONS,
  SWEEPER_WRITE_ACTIONS,
} from './defaults.js';
export {
  DEFAULT_ECS_BASE_IMAGE,
  DEFAULT_ECS_TASK_ENTRY,
  type EcsImageOptions,
  stageEcsImage,
} from './ecs-image.js';
export { type EcsJobOptions, EcsScheduledJob, type EcsScheduledJobProps, EcsTaskEnv } from './ecs-job.js';
export { EcsNetwork, type EcsNetworkProps, type EcsPlacement } from './ecs-network.js';
export {
  ECS_CONTAINER_NAME,
  EcsSchedule,
  type EcsScheduleProps,
  ecsOccurrenceOverrides,
  OCCURRENCE_ENV,
  SCHEDULED_OCCURRENCE,
} from './ecs-schedule.js';
export { CronfenceValidationError } from './errors.js';
export { FunctionSchedule, type FunctionScheduleProps } from './function-schedule.js';
export { JobFunction, type JobFunctionProps } from './job-function.js';
export { type JobRuntime, jobRuntimeOf } from './job-runtime.js';
export {
  grantApplicationTable,
  type JobLibraryUse,
  jobLeadingKeys,
  LibraryTable,
  type LibraryTableProps,
} from './library-table.js';
export {
  checkSchedule,
  type ScheduleCheck,
  START_DATE_MAX_PAST_MS,
  schedulerStartDate,
} from './schedule-check.js';
export { ScheduledJob, type ScheduledJobProps, validateJobForDeploy } from './scheduled-job.js';
export { SchemaTable, type SchemaTableProps } from './schema-table.js';
export { DEFAULT_SWEEPER_ENTRY, SWEEPER_NAME, Sweeper, type SweeperProps } from './sweeper.js';
