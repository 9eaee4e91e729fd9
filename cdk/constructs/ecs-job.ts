import { join } from 'node:path';
import { Annotations, Duration, RemovalPolicy, Stack, Stage, Token, Validations } from 'aws-cdk-lib';
import {
  CpuArchitecture,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { type IRole, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IScheduleGroup, Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { stackFunctionName } from '../../lib/core/function-name.js';
import { checkJob, ecsShardsProblem } from '../../lib/core/job-check.js';
import { type JobDefinition, jobKeyOf } from '../../lib/core/job-definition.js';
import { overlapLabel, overlapOfJob } from '../../lib/core/overlap-check.js';
import type { TableWrite } from '../../lib/store/job-access.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { DEFAULT_LOG_RETENTION, DEFAULT_SCHEDULER_MAX_EVENT_AGE } from './defaults.js';
import { ECS_APP_DIR, ECS_JOBS_FILE, stageEcsImage } from './ecs-image.js';
import type { EcsPlacement } from './ecs-network.js';
import { ECS_CONTAINER_NAME, EcsSchedule, OCCURRENCE_ENV } from './ecs-schedule.js';
import { taskFailureQueue } from './ecs-task-failures.js';
import { CronfenceValidationError } from './errors.js';
import { JOB_FUNCTION_ENVIRONMENT } from './job-function.js';
import { grantApplicationTable, type LibraryTable } from './library-table.js';
import { schedulerStartDate } from './schedule-check.js';
import { validateJobForDeploy } from './scheduled-job.js';
import type { SchemaTable } from './schema-table.js';

/** The variables the task entry reads besides the tables' (contract of lib/entries/ecs-task.ts). */
export const EcsTaskEnv = {
  /** The job's name. */
  job: 'CRONFENCE_JOB',
  /** The module exporting the job registry (the bundled jobs module in the image). */
  jobsModule: 'CRONFENCE_JOBS_MODULE',
  /** The occurrence, JSON, set per task by the overrides. */
  occurrence: OCCURRENCE_ENV,
  /** The container's `stopTimeout`, s: how long the task entry has between SIGTERM and SIGKILL. */
  stopTimeoutSeconds: 'CRONFENCE_STOP_TIMEOUT_SECONDS',
} as const;

/** Container sizing and placement of one ECS job (construct props, not job definition). */
export interface EcsJobOptions {
  /** Task CPU units (256 = 0.25 vCPU; Fargate's CPU/memory pairs apply). @default 256 */
  readonly cpu?: number;
  /** Task memory, in MiB. @default 512 */
  readonly memoryLimitMiB?: number;
  /** Seconds between ECS's SIGTERM and SIGKILL (Fargate: 2–120). @default 120 */
  readonly stopTimeoutSeconds?: number;
  /** Run on Fargate Spot (reclaimed with a 2-minute warning: SIGTERM, then SIGKILL). @default false */
  readonly spot?: boolean;
  /** Log retention. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** The task entry to bundle. @default cronfence's own (`cronfence/ecs-task`) */
  readonly taskEntry?: string;
  /** Base image. @default DEFAULT_ECS_BASE_IMAGE (Node 24 slim) */
  readonly baseImage?: string;
}

/** Properties of {@link EcsScheduledJob}. */
export interface EcsScheduledJobProps extends EcsJobOptions {
  /** The job definition (`runtime: 'ecs'`). */
  readonly definition: JobDefinition;
  /** Handler file exporting `handler`, relative to `projectRoot`. */
  readonly entry: string;
  /** Project root (node_modules, tsconfig.json). */
  readonly projectRoot: string;
  /** The library table. */
  readonly libraryTable: LibraryTable;
  /** The stack's schedule group. */
  readonly scheduleGroup: IScheduleGroup;
  /** Where the tasks run. */
  readonly placement: EcsPlacement;
  /** Application tables the job writes, with its `ctx` writes on each. @default [] */
  readonly tables?: readonly { readonly table: SchemaTable; readonly writes: readonly TableWrite[] }[];
  /** The body records effects. @default false */
  readonly effects?: boolean;
  /** The job's own container variables; one cronfence sets is refused. @default {} */
  readonly environment?: Readonly<Record<string, string>>;
  /** Scheduler hand-off retries (0–185). @default 185 */
  readonly schedulerRetryAttempts?: number;
  /** Scheduler maximum event age. @default Duration.hours(24) */
  readonly schedulerMaxEventAge?: Duration;
  /** Scheduler StartDate (see `ScheduledJobProps.start`). @default - rate: next grid instant; else none */
  readonly start?: Date;
  /** The instant DST warnings are computed from. @default - synth time */
  readonly now?: Date;
}

/**
 * Variables ECS sets in a Fargate task's containers (Amazon ECS Developer Guide, "Task IAM role" and
 * "Task metadata endpoint"), besides `ECS_CONTAINER_METADATA_URI*`.
 */
const ECS_SET = new Set([
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_EXECUTION_ENV',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
]);

/** Fargate's limits on `stopTimeout`, in seconds (ECS API reference, ContainerDefinition `stopTimeout`). */
const STOP_TIMEOUT_RANGE = [2, 120] as const;

/**
 * One job as an ECS Fargate task started by EventBridge Scheduler: a task definition (container
 * `job`, image staged from the job's code at synth, see `stageEcsImage`; ARM64), its task role (the
 * job's own library-table items and application-table writes only, as a Lambda job's role) and
 * execution role (image pull, its log group), the schedule with the ECS RunTask target, its DLQ, a
 * failed-task queue, and a log group. ECS has no platform timeout: the task entry enforces the job's
 * `timeoutSeconds` and renews the lease for as long as the body runs.
 * @throws Error at synth for an invalid definition, a sharded job (fan-out is Lambda's), a
 *   `stopTimeoutSeconds` outside 2–120, or a variable in `environment` that cronfence sets.
 * @example
 * new EcsScheduledJob(stack, 'Export', { definition: exportJob.job, entry: 'functions/export.ts',
 *   projectRoot, libraryTable, scheduleGroup, placement: network.placement });
 */
export class EcsScheduledJob extends Construct {
  /** The job definition. */
  public readonly definition: JobDefinition;
  /** Longest gap between two occurrences, in seconds (`undefined` for `at()`). */
  public readonly periodSeconds: number | undefined;
  /** Rate jobs: the grid's anchor, epoch ms (for the sweeper). */
  public readonly startMs: number | undefined;
  /** The task definition (its family is `<stack>-<job>`). */
  public readonly taskDefinition: FargateTaskDefinition;
  /** The role the job's code runs as. */
  public readonly taskRole: Role;
  /** The role ECS pulls the image and writes the logs with. */
  public readonly executionRole: IRole;
  /** The container's log group. */
  public readonly logGroup: LogGroup;
  /** Occurrences Scheduler could not hand to ECS. */
  public readonly deadLetterQueue: Queue;
  /** Events of the job's failed tasks (the task-failure alarm counts them). */
  public readonly failedTasks: Queue;
  /** The schedule and the role Scheduler assumes. */
  public readonly schedule: Schedule;
  public readonly scheduleRole: Role;
  /** Where the tasks run (the sweeper's RunTask uses the same). */
  public readonly placement: EcsPlacement;
  /** Fargate Spot. */
  public readonly spot: boolean;
  /** Whether the job records effects (effect alarms). */
  public readonly effects: boolean;
  /** The job's overlap policy as one token (`skip`, `buffer-all(4)`, `replace(>300s)`), also in the schedule's description. */
  public readonly overlap: string;
  /** The library table. */
  public readonly libraryTable: LibraryTable;

  constructor(scope: Construct, id: string, props: EcsScheduledJobProps) {
    super(scope, id);
    const { definition } = props;
    const now = props.now ?? new Date();
    const check = validateJobForDeploy(definition, now);
    const fail = (problem: string): never => {
      throw new CronfenceValidationError(`job "${definition.name}" at ${this.node.path}: ${problem}`, this);
    };
    if (definition.shards > 1) fail(ecsShardsProblem(definition.shards));
    // A late copy beyond the done set is recognised by its slot's succeeded run record: records must
    // outlive the oldest occurrence Scheduler may still hand over (docs/design.md "When is a slot done").
    const oldestDeliveryS = (props.schedulerMaxEventAge ?? DEFAULT_SCHEDULER_MAX_EVENT_AGE).toSeconds();
    if (definition.runRetentionDays * 86_400 <= oldestDeliveryS)
      fail(
        `runRetentionDays = ${definition.runRetentionDays} must exceed Scheduler's maximum event age (${oldestDeliveryS} s)`,
      );
    const stopTimeoutSeconds = props.stopTimeoutSeconds ?? STOP_TIMEOUT_RANGE[1];
    if (
      !Number.isInteger(stopTimeoutSeconds) ||
      stopTimeoutSeconds < STOP_TIMEOUT_RANGE[0] ||
      stopTimeoutSeconds > STOP_TIMEOUT_RANGE[1]
    )
      fail(`stopTimeoutSeconds = ${stopTimeoutSeconds}: Fargate takes a whole number of seconds 2-120`);
    for (const warning of checkJob(definition, now.getTime()).warnings)
      Annotations.of(this).addWarningV2(
        `cronfence:${warning.code}`,
        `job "${definition.name}": ${warning.message}`,
      );
    this.definition = definition;
    this.periodSeconds = check.periodSeconds;
    this.startMs = check.expression.kind === 'rate' ? (definition.rateAnchorMs ?? 0) : undefined;
    this.placement = props.placement;
    this.spot = props.spot ?? false;
    this.effects = props.effects ?? false;
    this.overlap = overlapLabel(overlapOfJob(definition, check.expression, now.getTime()));
    this.libraryTable = props.libraryTable;
    const tables = props.tables ?? [];
    const stackName = Stack.of(this).stackName;
    const family: string =
      (Token.isUnresolved(stackName) ? undefined : stackFunctionName(stackName, definition.name)) ??
      fail(
        'no task definition family can be derived from the stack name; give the stack a name known at synth',
      );
    const environment: Record<string, string> = Object.assign(
      {
        ...JOB_FUNCTION_ENVIRONMENT,
        ...props.libraryTable.environment,
        [EcsTaskEnv.job]: definition.name,
        [EcsTaskEnv.jobsModule]: `${ECS_APP_DIR}/${ECS_JOBS_FILE}`,
        [EcsTaskEnv.stopTimeoutSeconds]: String(stopTimeoutSeconds),
      },
      ...tables.map((t) => ({ [t.table.schema.envVar]: t.table.tableName })),
    );
    for (const variable of Object.keys(props.environment ?? {})) {
      if (variable in environment || variable === EcsTaskEnv.occurrence)
        fail(`environment.${variable} is refused: cronfence sets it; choose another name`);
      if (ECS_SET.has(variable) || variable.startsWith('ECS_CONTAINER_METADATA_URI'))
        fail(`environment.${variable} is refused: ECS sets it in every task; choose another name`);
    }
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stack = Stack.of(this);
    this.taskRole = new Role(this, 'TaskRole', {
      // Confused-deputy guard (Amazon ECS Developer Guide, "Task IAM role"): only ECS tasks of this account.
      assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com', {
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:ecs:${stack.region}:${stack.account}:*` },
          StringEquals: { 'aws:SourceAccount': stack.account },
        },
      }),
      description: `Task role: cronfence job ${definition.name} (ECS)`,
    });
    this.taskDefinition = new FargateTaskDefinition(this, 'Task', {
      family: family,
      cpu: props.cpu ?? 256,
      memoryLimitMiB: props.memoryLimitMiB ?? 512,
      taskRole: this.taskRole,
      runtimePlatform: {
        cpuArchitecture: CpuArchitecture.ARM64,
        operatingSystemFamily: OperatingSystemFamily.LINUX,
      },
    });
    const staged = stageEcsImage({
      entry: props.entry,
      projectRoot: props.projectRoot,
      directory: join(Stage.of(this)?.outdir ?? props.projectRoot, '.cronfence-ecs', family),
      ...(props.taskEntry ? { taskEntry: props.taskEntry } : {}),
      ...(props.baseImage ? { baseImage: props.baseImage } : {}),
    });
    this.taskDefinition.addContainer(ECS_CONTAINER_NAME, {
      containerName: ECS_CONTAINER_NAME,
      image: staged.image,
      essential: true,
      environment: { ...props.environment, ...environment },
      stopTimeout: Duration.seconds(stopTimeoutSeconds),
      logging: LogDrivers.awsLogs({ streamPrefix: 'job', logGroup: this.logGroup }),
    });
    this.executionRole = this.taskDefinition.obtainExecutionRole();
    Validations.of(this.taskDefinition).acknowledge({
      id: 'AwsSolutions-ECS2',
      reason:
        'The container variables are table names, the job name and the jobs module path (no secrets), read by the ' +
        'task entry as the Lambda entries read theirs; a secret belongs in Secrets Manager, read by the job.',
    });
    Validations.of(this.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecr:GetAuthorizationToken supports no resource-level permission (Service Authorization Reference, Amazon ' +
        'ECR): the image pull needs it on "*"; the layer reads are scoped to the assets repository.',
    });
    props.libraryTable.grantJob(this.taskRole, jobKeyOf(definition), {
      shards: false,
      effects: this.effects,
      fencedWrites: tables.some((use) => use.writes.includes('fencedPut')),
    });
    for (const use of tables) grantApplicationTable(use.table.table, this.taskRole, use.writes);
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetters');
    this.failedTasks = taskFailureQueue(this, 'FailedTasks', props.placement.cluster, family).queue;
    const startDate = schedulerStartDate(definition, check.expression, props.start, now);
    const schedule = new EcsSchedule(this, 'Schedule', {
      taskDefinition: this.taskDefinition,
      placement: props.placement,
      spot: this.spot,
      scheduleName: definition.name,
      group: props.scheduleGroup,
      expression: definition.schedule,
      timeZone: definition.timeZone,
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence job ${definition.name} (ECS): ${definition.schedule} ${definition.timeZone}, overlap ${this.overlap}`,
      ...(startDate ? { start: startDate } : {}),
      ...(props.schedulerRetryAttempts === undefined ? {} : { retryAttempts: props.schedulerRetryAttempts }),
      ...(props.schedulerMaxEventAge ? { maxEventAge: props.schedulerMaxEventAge } : {}),
    });
    this.schedule = schedule.schedule;
    this.scheduleRole = schedule.role;
  }
}
