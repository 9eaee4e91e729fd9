import { Annotations, ArnFormat, type Duration, Stack, Token } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ContextAttribute, type IScheduleGroup, type Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { isCronfenceError } from '../../lib/core/error-model.js';
import { stackFunctionName } from '../../lib/core/function-name.js';
import { checkJob } from '../../lib/core/job-check.js';
import { type JobDefinition, jobKeyOf } from '../../lib/core/job-definition.js';
import { overlapLabel, overlapOfJob } from '../../lib/core/overlap-check.js';
import type { TableWrite } from '../../lib/store/job-access.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { DEFAULT_ASYNC_MAX_EVENT_AGE, DEFAULT_SCHEDULER_MAX_EVENT_AGE } from './defaults.js';
import { CronfenceValidationError } from './errors.js';
import { FunctionSchedule } from './function-schedule.js';
import { JOB_FUNCTION_ENVIRONMENT, JobFunction } from './job-function.js';
import { grantApplicationTable, type LibraryTable } from './library-table.js';
import { checkSchedule, type ScheduleCheck, schedulerStartDate } from './schedule-check.js';
import type { SchemaTable } from './schema-table.js';

/** Properties of {@link ScheduledJob}. */
export interface ScheduledJobProps {
  /** The job definition the handler file exports (`handler.job`): name, schedule, zone, lease, timeout. */
  readonly definition: JobDefinition;
  /** Handler file exporting `handler`, relative to `projectRoot` (e.g. `functions/daily-report.ts`). */
  readonly entry: string;
  /**
   * Physical function name. The default is derived from the stack's name, so two stacks (stages, teams)
   * deploy side by side in one account and region; the CLI derives the same name from the `stack`
   * setting, and reads an override from the stack's `JobFunctionNames` output.
   * @default `<stack name>-<job>` ({@link stackFunctionName}; shortened with a tag past 64 characters)
   */
  readonly functionName?: string;
  /**
   * The job's own environment variables (a provider's URL, a feature flag), beside cronfence's. A
   * variable cronfence sets (the library table's, each application table's `envVar`, the runtime's) or
   * Lambda reserves (`AWS_REGION`, `AWS_LAMBDA_*`, ...) is refused at synth. @default {}
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** Repository root (package-lock.json, node_modules, tsconfig.json). */
  readonly projectRoot: string;
  /** The library table: the job gets its own lease, run and effect items only. */
  readonly libraryTable: LibraryTable;
  /** The stack's schedule group. */
  readonly scheduleGroup: IScheduleGroup;
  /**
   * Application tables the job writes, with the `ctx` writes it makes on each (the grant is exactly
   * those actions); each table's `envVar` is set to its name. @default []
   */
  readonly tables?: readonly { readonly table: SchemaTable; readonly writes: readonly TableWrite[] }[];
  /** The body calls `ctx.effect` (grants its `EFFECT#<job>#*` records). @default false */
  readonly effects?: boolean;
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
   * Scheduler's StartDate, verbatim: a whole minute no earlier than 5 minutes before synth (Scheduler
   * refuses an older one), on the job's rate grid for a rate job. Rarely needed: a rate job's StartDate
   * is derived from its `rateAnchor` (defineJob), so slot ids survive redeploys.
   * @default - rate: the first instant of the job's rate grid at or after synth; cron/at: none
   */
  readonly start?: Date;
  /** The instant DST warnings are computed from (the next three years). @default - synth time */
  readonly now?: Date;
}

/**
 * Environment variables Lambda reserves and refuses to set (AWS Lambda Developer Guide, "Defined
 * runtime environment variables").
 */
const LAMBDA_RESERVED = new Set([
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
]);

function isLambdaReserved(variable: string): boolean {
  return LAMBDA_RESERVED.has(variable) || variable.startsWith('AWS_LAMBDA_');
}

/**
 * Validate a job definition with the one job schema `defineJob` runs (lib/core/job-definition-schema.ts),
 * so synth and definition give the same verdict and message; then check its schedule.
 * @returns the schedule check (period, DST warnings).
 * @throws the definition's own error class (InvalidJobDefinitionError, InvalidScheduleError), its
 *   message prefixed `cronfence: job "x": ` so it names the job, the field and the value; any
 *   other error wrapped in a CronfenceValidationError (the original as `cause`).
 * @example
 * validateJobForDeploy(dailyReport.job, new Date()).periodSeconds; // 86400
 */
export function validateJobForDeploy(definition: JobDefinition, now: Date): ScheduleCheck {
  try {
    return checkSchedule(definition, now.getTime());
  } catch (error) {
    const job = `job "${String(definition.name)}"`;
    if (isCronfenceError(error)) {
      error.message = `cronfence: ${job}: ${error.message}`;
      throw error;
    }
    throw new CronfenceValidationError(`${job}: ${(error as Error).message}`, undefined, { cause: error });
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
  /** The job's overlap policy as one token (`skip`, `buffer-all(4)`, `replace(>300s)`), also in the function's description. */
  public readonly overlap: string;
  /** Longest gap between two occurrences, in seconds (`undefined` for a one-time `at()`). */
  public readonly periodSeconds: number | undefined;
  /** The job's Lambda function. */
  public readonly function: NodejsFunction;
  /** Its physical name (`props.functionName`, default `<stack name>-<job>`: {@link stackFunctionName}). */
  public readonly functionName: string;
  /** The function's execution role. */
  public readonly role: Role;
  /** The function's log group. */
  public readonly logGroup: LogGroup;
  /** Dead letters from Scheduler (hand-off failed) and from Lambda (retries exhausted). */
  public readonly deadLetterQueue: Queue;
  /** Rate jobs: the rate grid's anchor, epoch ms (`definition.rateAnchorMs`), passed to the sweeper. */
  public readonly startMs: number | undefined;
  /** The EventBridge Scheduler schedule. */
  public readonly schedule: Schedule;
  /** The role Scheduler assumes; it may invoke only this job's function. */
  public readonly scheduleRole: Role;
  /** Whether the job records effects (`props.effects`): only then it gets effect alarms. */
  public readonly effects: boolean;
  /** The library table the job's leases and run records live in (named by its alarms). */
  public readonly libraryTable: LibraryTable;

  constructor(scope: Construct, id: string, props: ScheduledJobProps) {
    super(scope, id);
    const { definition } = props;
    const now = props.now ?? new Date();
    const check = validateJobForDeploy(definition, now);
    // A late copy beyond the done set is recognised by its slot's succeeded run record (docs/design.md
    // "When is a slot done"): records must outlive the oldest delivery this deployment allows.
    const oldestDeliveryS =
      (props.schedulerMaxEventAge ?? DEFAULT_SCHEDULER_MAX_EVENT_AGE).toSeconds() +
      (props.asyncMaxEventAge ?? DEFAULT_ASYNC_MAX_EVENT_AGE).toSeconds();
    if (definition.runRetentionDays * 86_400 <= oldestDeliveryS) {
      throw new CronfenceValidationError(
        `job "${definition.name}": runRetentionDays = ${definition.runRetentionDays} must exceed the oldest delivery the schedule and function allow (${oldestDeliveryS} s = Scheduler + Lambda maximum event ages): run records prove a late copy's slot already succeeded`,
        this,
      );
    }
    // The same warnings `cronfence check` prints (DST, rate drift, far next occurrence, short lease).
    for (const warning of checkJob(definition, now.getTime()).warnings) {
      Annotations.of(this).addWarningV2(
        `cronfence:${warning.code}`,
        `job "${definition.name}": ${warning.message}`,
      );
    }
    const startDate = schedulerStartDate(definition, check.expression, props.start, now);
    this.definition = definition;
    this.overlap = overlapLabel(overlapOfJob(definition, check.expression, now.getTime()));
    this.periodSeconds = check.periodSeconds;
    this.effects = props.effects ?? false;
    this.libraryTable = props.libraryTable;
    this.startMs = check.expression.kind === 'rate' ? (definition.rateAnchorMs ?? 0) : undefined;
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetters');
    const tables = props.tables ?? [];
    const stackName = Stack.of(this).stackName;
    if (props.functionName === undefined && Token.isUnresolved(stackName))
      throw new CronfenceValidationError(
        `job "${definition.name}" at ${this.node.path}: the stack's name is not known at synth, so no function name can be derived from it; set functionName in the job's entry`,
        this,
      );
    const functionName = props.functionName ?? stackFunctionName(stackName, definition.name);
    // Lambda function names are at most 64 characters (Lambda API reference, `FunctionName`); aws-cdk-lib's
    // message would not name the job.
    if (functionName === undefined || functionName.length > 64)
      throw new CronfenceValidationError(
        functionName === undefined
          ? `job "${definition.name}": no function name of at most 64 characters can be derived from the stack name "${stackName}" and a ${definition.name.length}-character job name; set functionName in the job's entry`
          : `job "${definition.name}": functionName "${functionName}" has ${functionName.length} characters, over Lambda's 64`,
        this,
      );
    this.functionName = functionName;
    const environment = Object.assign(
      { ...props.libraryTable.environment },
      ...tables.map((t) => ({ [t.table.schema.envVar]: t.table.tableName })),
    ) as Record<string, string>;
    for (const variable of Object.keys(props.environment ?? {})) {
      const owner =
        variable in environment || variable in JOB_FUNCTION_ENVIRONMENT
          ? 'cronfence sets it'
          : isLambdaReserved(variable)
            ? 'Lambda reserves it'
            : undefined;
      if (owner)
        throw new CronfenceValidationError(
          `job "${definition.name}": environment.${variable} is refused: ${owner}; choose another name`,
          this,
        );
    }
    const fn = new JobFunction(this, 'Handler', {
      // A name the CLI can derive from the stack's name (or read from its JobFunctionNames output).
      functionName,
      entry: props.entry,
      projectRoot: props.projectRoot,
      timeoutSeconds: definition.timeoutSeconds,
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence job ${definition.name}: ${definition.schedule} ${definition.timeZone}, overlap ${this.overlap}`,
      environment: { ...props.environment, ...environment },
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
    props.libraryTable.grantJob(this.role, jobKeyOf(definition), {
      shards: definition.shards > 1,
      effects: props.effects ?? false,
      fencedWrites: tables.some((use) => use.writes.includes('fencedPut')),
    });
    for (const use of tables) grantApplicationTable(use.table.table, this.role, use.writes);
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
      ...(startDate ? { start: startDate } : {}),
      ...(props.schedulerRetryAttempts === undefined ? {} : { retryAttempts: props.schedulerRetryAttempts }),
      ...(props.schedulerMaxEventAge ? { maxEventAge: props.schedulerMaxEventAge } : {}),
    });
    this.schedule = schedule.schedule;
    this.scheduleRole = schedule.role;
  }
}
