import { Annotations, ArnFormat, type Duration, Stack } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ContextAttribute, type IScheduleGroup, type Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type JobDefinition,
  MAX_LAMBDA_TIMEOUT_SECONDS,
  validateJobName,
} from '../../lib/core/job-definition.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { DEFAULT_ASYNC_MAX_EVENT_AGE, DEFAULT_SCHEDULER_MAX_EVENT_AGE } from './defaults.js';
import { FunctionSchedule } from './function-schedule.js';
import { JobFunction } from './job-function.js';
import { grantApplicationTable, type LibraryTable } from './library-table.js';
import { checkSchedule, type ScheduleCheck } from './schedule-check.js';
import type { SchemaTable } from './schema-table.js';

/** Properties of {@link ScheduledJob}. */
export interface ScheduledJobProps {
  /** The job definition the handler file exports (`handler.job`): name, schedule, zone, lease, timeout. */
  readonly definition: JobDefinition;
  /** Handler file exporting `handler`, relative to `projectRoot` (e.g. `functions/daily-report.ts`). */
  readonly entry: string;
  /**
   * Physical function name: `cronfence backfill <job>` invokes `cronfence-<job>` unless told otherwise.
   * Override it to deploy two stacks (stages) into one account and region.
   * @default `cronfence-<job>`
   */
  readonly functionName?: string;
  /** Repository root (package-lock.json, node_modules, tsconfig.json). */
  readonly projectRoot: string;
  /** The library table: the job gets its own lease, run and effect items only. */
  readonly libraryTable: LibraryTable;
  /** The stack's schedule group. */
  readonly scheduleGroup: IScheduleGroup;
  /** Application tables the job writes; each table's `envVar` is set to its name. @default [] */
  readonly tables?: readonly SchemaTable[];
  /** Function memory, in MB. @default 256 */
  readonly memorySize?: number;
  /** Log retention. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Lambda async retries (0–2). @default 2 */
  readonly asyncRetryAttempts?: number;
  /** Lambda async maximum event age. @default Duration.hours(6) */
  readonly asyncMaxEventAge?: Duration;
  /** Scheduler hand-off retries (0–185). @default 185 */
  readonly schedulerRetryAttempts?: number;
  /** Scheduler maximum event age. @default Duration.hours(24) */
  readonly schedulerMaxEventAge?: Duration;
  /**
   * When the schedule starts (Scheduler's StartDate). Rate schedules count their slots from it, so
   * pin it for rate jobs; it is passed to the sweeper as `startMs`.
   * @default - none (Scheduler starts counting at creation)
   */
  readonly start?: Date;
  /** The instant DST warnings are computed from (the next three years). @default - synth time */
  readonly now?: Date;
}

/**
 * Validate the parts of a job definition the deployment depends on: name, timeout (1–900 s),
 * lease (> 0, ≤ timeout), expression, zone and catch-up options.
 * @returns the schedule check (period, DST warnings).
 * @throws Error whose message names the job, the field and the value (`cronfence: job "x": ...`).
 * @example
 * validateJobForDeploy(dailyReport.job, new Date()).periodSeconds; // 86400
 */
export function validateJobForDeploy(definition: JobDefinition, now: Date): ScheduleCheck {
  const name = String(definition.name);
  const fail = (problem: string, cause?: unknown): never => {
    throw new Error(`cronfence: job "${name}": ${problem}`, { cause });
  };
  try {
    validateJobName(definition.name);
  } catch (error) {
    fail((error as Error).message, error);
  }
  const timeout = definition.timeoutSeconds;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_LAMBDA_TIMEOUT_SECONDS) {
    fail(
      `timeoutSeconds = ${timeout}: must be an integer 1-${MAX_LAMBDA_TIMEOUT_SECONDS} (the Lambda maximum)`,
    );
  }
  const lease = definition.lease?.durationSeconds;
  if (typeof lease !== 'number' || !(lease > 0)) fail(`lease.durationSeconds = ${lease}: must be > 0`);
  if (lease > timeout) {
    fail(
      `lease.durationSeconds = ${lease} exceeds timeoutSeconds = ${timeout}: ` +
        'a lease must not outlive the Lambda that holds it',
    );
  }
  try {
    return checkSchedule(definition, now.getTime());
  } catch (error) {
    return fail((error as Error).message, error);
  }
}

/**
 * One scheduled job: its Lambda (bundled from the handler file), an EventBridge Scheduler
 * schedule with the job's expression and zone, a DLQ shared by Scheduler and Lambda's async
 * retries, and least-privilege access to its own library-table items and the application tables
 * it writes. Synth fails (throws) on an invalid name, expression, zone, timeout, or a lease
 * longer than the timeout; DST gaps/overlaps of the schedule become warnings.
 * @example
 * new ScheduledJob(stack, 'DailyReport', {
 *   definition: dailyReport.job, entry: 'functions/daily-report.ts', projectRoot,
 *   libraryTable, scheduleGroup, tables: [reports],
 * });
 */
export class ScheduledJob extends Construct {
  /** The job definition the construct was built from. */
  public readonly definition: JobDefinition;
  /** Longest gap between two occurrences, in seconds (`undefined` for a one-time `at()`). */
  public readonly periodSeconds: number | undefined;
  /** The job's Lambda function. */
  public readonly function: NodejsFunction;
  /** The function's execution role. */
  public readonly role: Role;
  /** The function's log group. */
  public readonly logGroup: LogGroup;
  /** Dead letters from Scheduler (hand-off failed) and from Lambda (retries exhausted). */
  public readonly deadLetterQueue: Queue;
  /** Scheduler StartDate, epoch ms, when pinned (rate jobs' slots count from it). */
  public readonly startMs: number | undefined;
  /** The EventBridge Scheduler schedule. */
  public readonly schedule: Schedule;
  /** The role Scheduler assumes; it may invoke only this job's function. */
  public readonly scheduleRole: Role;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    const { definition } = props;
    const check = validateJobForDeploy(definition, props.now ?? new Date());
    // A late copy beyond the done set is recognised by its slot's succeeded run record (docs/design.md
    // "When is a slot done"): records must outlive the oldest delivery this deployment allows.
    const oldestDeliveryS =
      (props.schedulerMaxEventAge ?? DEFAULT_SCHEDULER_MAX_EVENT_AGE).toSeconds() +
      (props.asyncMaxEventAge ?? DEFAULT_ASYNC_MAX_EVENT_AGE).toSeconds();
    if (definition.runRetentionDays * 86_400 <= oldestDeliveryS) {
      throw new Error(
        `cronfence: job "${definition.name}": runRetentionDays = ${definition.runRetentionDays} must exceed the oldest delivery the schedule and function allow (${oldestDeliveryS} s = Scheduler + Lambda maximum event ages): run records prove a late copy's slot already succeeded`,
      );
    }
    if (check.dstWarnings.length > 0) {
      const policy =
        check.dstGap === 'skip'
          ? 'skipped (dstGap: skip)'
          : 'run by the sweeper after the gap (dstGap: shift)';
      const dates = check.dstWarnings.map(
        (w) =>
          `${w.date} ${w.localTimes.join(', ')} ${w.kind === 'nonexistent' ? 'does not exist (Scheduler skips it)' : 'occurs twice (Scheduler runs it once)'}`,
      );
      Annotations.of(this).addWarningV2(
        'cronfence:dst',
        `job "${definition.name}": ${definition.schedule} in ${definition.timeZone} meets DST transitions; ` +
          `occurrences in a gap are ${policy}: ${dates.join('; ')}`,
      );
    }
    for (const warning of check.warnings) {
      Annotations.of(this).addWarningV2('cronfence:schedule', `job "${definition.name}": ${warning}`);
    }
    if (check.expression.kind === 'rate' && props.start === undefined) {
      Annotations.of(this).addWarningV2(
        'cronfence:rate-start',
        `job "${definition.name}": ${definition.schedule} has no pinned start; Scheduler counts from creation, ` +
          'so the sweeper cannot know its slots. Set the ScheduledJob `start` prop.',
      );
    }
    this.definition = definition;
    this.periodSeconds = check.periodSeconds;
    this.startMs = props.start?.getTime();
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetters');
    const tables = props.tables ?? [];
    const functionName = props.functionName ?? `cronfence-${definition.name}`;
    const fn = new JobFunction(this, 'Handler', {
      // A predictable name lets `cronfence backfill <job>` find the function without --function.
      functionName,
      entry: props.entry,
      projectRoot: props.projectRoot,
      timeoutSeconds: definition.timeoutSeconds,
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence job ${definition.name}: ${definition.schedule} ${definition.timeZone}`,
      environment: Object.assign(
        { ...props.libraryTable.environment },
        ...tables.map((t) => ({ [t.schema.envVar]: t.tableName })),
      ),
      ...(props.memorySize ? { memorySize: props.memorySize } : {}),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      ...(props.asyncRetryAttempts === undefined ? {} : { retryAttempts: props.asyncRetryAttempts }),
      ...(props.asyncMaxEventAge ? { maxEventAge: props.asyncMaxEventAge } : {}),
    });
    this.function = fn.function;
    this.role = fn.role;
    if (definition.shards > 1) {
      // Fan-out (lib/runtime/fan-out-lambda.ts): the scheduled invocation invokes its own function once
      // per shard. The ARN is built from the fixed name: referencing the function would be a cycle.
      fn.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: [
            Stack.of(this).formatArn({
              service: 'lambda',
              resource: 'function',
              resourceName: functionName,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      );
    }
    this.logGroup = fn.logGroup;
    props.libraryTable.grantJob(this.role, definition.name);
    for (const table of tables) grantApplicationTable(table.table, this.role);
    const schedule = new FunctionSchedule(this, 'Schedule', {
      target: this.function,
      scheduleName: definition.name,
      group: props.scheduleGroup,
      expression: definition.schedule,
      timeZone: definition.timeZone,
      input: {
        job: definition.name,
        scheduledTime: ContextAttribute.scheduledTime,
        scheduleArn: ContextAttribute.scheduleArn,
        executionId: ContextAttribute.executionId,
        attemptNumber: ContextAttribute.attemptNumber,
      },
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence job ${definition.name}`,
      ...(props.start ? { start: props.start } : {}),
      ...(props.schedulerRetryAttempts === undefined ? {} : { retryAttempts: props.schedulerRetryAttempts }),
      ...(props.schedulerMaxEventAge ? { maxEventAge: props.schedulerMaxEventAge } : {}),
    });
    this.schedule = schedule.schedule;
    this.scheduleRole = schedule.role;
  }
}
