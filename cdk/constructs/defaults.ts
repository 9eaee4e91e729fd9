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
   * Sweeper only: JSON array `[{ "name": "<job>", "functionArn"?: "<arn>", "startMs"?: <epoch ms> }]` of
   * the jobs it may re-trigger (`functionArn`, a function name or ARN, only when the function is not
   * `cronfence-<job>`;
   * `startMs` only for jobs with a pinned Scheduler start, i.e. rate jobs; an ECS job carries `ecs`, where its
   * catch-up task runs: cluster, task definition, subnets, security groups, public IP, Spot). Definitions are compiled
   * into the sweeper's bundle, not put here (Lambda's 4 KB environment limit).
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
 * DynamoDB actions on a job's lease items (`JOB#<job>`, and `JOB#<job>#<shard>` for sharded jobs):
 * claim, renew and release are conditional UpdateItems (lib/store/lease-store.ts). A job with
 * effects also checks lease ownership inside its effect transactions (ConditionCheckItem, evaluated
 * with `dynamodb:EnclosingOperation` = TransactWriteItems; lib/store/effect-store.ts).
 */
export const JOB_LEASE_ACTIONS = ['dynamodb:UpdateItem'] as const;
/** ConditionCheckItem: the lease check inside an effect's TransactWriteItems (jobs with effects only). */
export const JOB_LEASE_CHECK_ACTION = 'dynamodb:ConditionCheckItem';
/**
 * DynamoDB actions on a job's run records (`JOB#<job>` / `RUN#…`): its own and abandoned records are
 * PutItems; a late copy beyond the done set queries its slot's records once (Query, off the normal path).
 */
export const JOB_RUN_ACTIONS = ['dynamodb:PutItem', 'dynamodb:Query'] as const;
/**
 * DynamoDB actions on a job's effect records (`EFFECT#<job>#*`): the `sending` insert (PutItem) and
 * take-over (UpdateItem) inside a TransactWriteItems, and the outcome UpdateItem. No GetItem: a run
 * never reads an effect record (refused writes return it with `ALL_OLD`); only the CLI does.
 */
export const JOB_EFFECT_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;
/**
 * DynamoDB actions the sweeper needs on its jobs' `JOB#<job>` items (and shard leases `JOB#<job>#*`): read
 * the leases (`doneSlots`, open claims), query run records.
 */
export const SWEEPER_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
/**
 * The sweeper's only write: PutItem of run records (lib/runtime/sweeper.ts) — the `abandoned` mark of
 * an expired open claim (any job) and the `catch-up-limit` skip record. It never updates an item.
 */
export const SWEEPER_WRITE_ACTIONS = ['dynamodb:PutItem'] as const;
/** DynamoDB actions of a read-only operator (CLI, console role): run records and the problems index. */
export const READ_RUNS_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
