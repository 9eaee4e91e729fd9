/**
 * Defaults shared by the cronfence constructs, and the names the runtime must match
 * (environment variables, CloudWatch metric names and dimensions). One place, so a name that
 * crosses the CDK/runtime boundary is written once on this side.
 */
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** Lambda runtime of every cronfence function: the Node major the tests run on. */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
/** esbuild target matching {@link LAMBDA_RUNTIME}. */
export const ESBUILD_TARGET = 'node24';
/** Graviton: cheaper per GB-second, and the bundle is plain JS. */
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;
/** Memory of a job or sweeper function, in MB. */
export const DEFAULT_MEMORY_MB = 256;
/** CloudWatch Logs retention of every cronfence function. Run records live in DynamoDB. */
export const DEFAULT_LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * Lambda async-invoke retries after a failed invocation (0–2). A retry reuses the request id but
 * makes a new owner token (docs/design.md step 0), so retries are safe.
 */
export const DEFAULT_ASYNC_RETRY_ATTEMPTS = 2;
/** How long Lambda keeps an async event before sending it to the on-failure destination. */
export const DEFAULT_ASYNC_MAX_EVENT_AGE = Duration.hours(6);
/** EventBridge Scheduler hand-off retries (0–185). */
export const DEFAULT_SCHEDULER_RETRY_ATTEMPTS = 185;
/** How long Scheduler keeps retrying a hand-off (60 s – 24 h) before the DLQ. */
export const DEFAULT_SCHEDULER_MAX_EVENT_AGE = Duration.hours(24);
/** Retention of dead-letter messages (the SQS maximum). */
export const DLQ_RETENTION = Duration.days(14);

/** The sweeper's own schedule. */
export const DEFAULT_SWEEP_SCHEDULE = 'rate(15 minutes)';
/** The sweeper's function timeout, in seconds. */
export const DEFAULT_SWEEPER_TIMEOUT_SECONDS = 120;

/**
 * Environment variables the cronfence constructs set and the runtime reads. The library table's
 * own variable (`CRONFENCE_TABLE`) and each application table's come from their `TableSchema.envVar`.
 */
export const EnvVar = {
  /**
   * Sweeper only: JSON array `[{ "name": "<job>", "functionArn": "<arn>", "startMs"?: <epoch ms> }]` of
   * the jobs it may re-trigger (`startMs` only for jobs with a pinned Scheduler start, i.e. rate jobs).
   */
  sweeperJobs: 'CRONFENCE_JOBS',
  /** Powertools metrics namespace; set to {@link METRIC_NAMESPACE}. */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools service name; set to {@link METRIC_SERVICE} (Powertools always emits it as a dimension). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** Source-mapped stack traces in the function's logs. */
  nodeOptions: 'NODE_OPTIONS',
} as const;

import { METRIC_SERVICE } from '../../lib/core/metrics.js';

export { METRIC_NAMESPACE, METRIC_SERVICE, RuntimeMetric } from '../../lib/core/metrics.js';

/** The exact dimension set of every per-job metric. */
export function metricDimensions(job: string): Record<string, string> {
  return { service: METRIC_SERVICE, job };
}

/**
 * DynamoDB actions a job function needs on its own library-table items (lease, run records,
 * effects): conditional puts and updates, plus GetItem for the effect/result reads the runtime does.
 */
// ConditionCheckItem: ctx.effect checks lease ownership inside a TransactWriteItems (lib/store/protocol/effect-operations.ts).
export const JOB_LIBRARY_ACTIONS = [
  'dynamodb:ConditionCheckItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;
/** DynamoDB actions the sweeper needs on every job's items: read runs and leases, record decisions. */
export const SWEEPER_LIBRARY_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;
/** DynamoDB actions a job needs on an application table: fenced writes and insert-once results. */
export const JOB_APPLICATION_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;
/** DynamoDB actions of a read-only operator (CLI, console role): run records and the problems index. */
export const READ_RUNS_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
