import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ContextAttribute, type IScheduleGroup, type Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { validateTimeZone } from '../../lib/core/job-definition.js';
import { parseScheduleExpression } from '../../lib/core/schedule/expression.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { DEFAULT_SWEEP_SCHEDULE, DEFAULT_SWEEPER_TIMEOUT_SECONDS, EnvVar } from './defaults.js';
import { FunctionSchedule } from './function-schedule.js';
import { JobFunction } from './job-function.js';
import type { LibraryTable } from './library-table.js';
import type { ScheduledJob } from './scheduled-job.js';

/** Name of the sweeper's schedule, and the `job` field of its Input. */
export const SWEEPER_NAME = 'cronfence-sweeper';

/**
 * cronfence's own sweeper entry (`cronfence/sweeper`, lib/entries/sweeper.ts): the TypeScript source
 * when running from this repository, the compiled module when installed from the package.
 */
export const DEFAULT_SWEEPER_ENTRY = packagedSweeperEntry();

function packagedSweeperEntry(): string {
  const source = fileURLToPath(new URL('../../lib/entries/sweeper.ts', import.meta.url));
  return existsSync(source)
    ? source
    : fileURLToPath(new URL('../../lib/entries/sweeper.js', import.meta.url));
}

/** Properties of {@link Sweeper}. */
export interface SweeperProps {
  /**
   * Handler file of the sweeper, absolute or relative to `projectRoot`.
   * @default DEFAULT_SWEEPER_ENTRY (cronfence's own, which needs no job code)
   */
  readonly entry?: string;
  /** Project root (package-lock.json, node_modules, tsconfig.json). */
  readonly projectRoot: string;
  /** The library table. */
  readonly libraryTable: LibraryTable;
  /** The jobs the sweeper may inspect and re-trigger (and nothing else). */
  readonly jobs: readonly ScheduledJob[];
  /** The stack's schedule group. */
  readonly scheduleGroup: IScheduleGroup;
  /** The sweeper's own schedule (UTC). @default 'rate(15 minutes)' */
  readonly schedule?: string;
  /** Function timeout, in seconds. @default 120 */
  readonly timeoutSeconds?: number;
  /** Log retention. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * The stack's sweeper (missed-run detection, docs/design.md "Time"): a Lambda on its own schedule
 * that compares each job's expected slots with what succeeded and re-triggers missing ones
 * through the normal path. It may read and record runs of the given jobs and invoke their
 * functions — nothing else.
 *
 * Environment: `CRONFENCE_TABLE` (library table) and `CRONFENCE_JOBS`, a JSON array
 * `[{"name":"<job>","functionArn":"<arn>","definition":<JobDefinition>,"startMs"?:<epoch ms, rate jobs with a pinned start>}]`. Its Input is the Scheduler payload with
 * `job` = {@link SWEEPER_NAME}.
 * @example
 * new Sweeper(stack, 'Sweeper', { projectRoot, libraryTable, jobs: [dailyReport], scheduleGroup });
 */
export class Sweeper extends Construct {
  /** The sweeper function. */
  public readonly function: NodejsFunction;
  /** Its execution role. */
  public readonly role: Role;
  /** Its log group. */
  public readonly logGroup: LogGroup;
  /** Dead letters of the sweeper's own schedule and async invocations. */
  public readonly deadLetterQueue: Queue;
  /** The sweeper's schedule. */
  public readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: SweeperProps) {
    super(scope, id);
    const expression = props.schedule ?? DEFAULT_SWEEP_SCHEDULE;
    try {
      parseScheduleExpression(expression);
    } catch (error) {
      throw new Error(`cronfence: sweeper schedule: ${(error as Error).message}`, { cause: error });
    }
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetters');
    const jobList = props.jobs.map((job) => ({
      name: job.definition.name,
      functionArn: job.function.functionArn,
      definition: job.definition,
      ...(job.startMs === undefined ? {} : { startMs: job.startMs }),
    }));
    const fn = new JobFunction(this, 'Handler', {
      entry: props.entry ?? DEFAULT_SWEEPER_ENTRY,
      projectRoot: props.projectRoot,
      timeoutSeconds: props.timeoutSeconds ?? DEFAULT_SWEEPER_TIMEOUT_SECONDS,
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence sweeper: re-triggers missed slots of ${props.jobs.length} job(s)`,
      environment: {
        ...props.libraryTable.environment,
        [EnvVar.sweeperJobs]: Stack.of(this).toJsonString(jobList),
      },
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.function = fn.function;
    this.role = fn.role;
    this.logGroup = fn.logGroup;
    if (props.jobs.length > 0) {
      props.libraryTable.grantSweeper(
        this.role,
        props.jobs.map((job) => ({
          name: job.definition.name,
          shards: job.definition.shards > 1,
        })),
      );
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['lambda:InvokeFunction'],
          resources: props.jobs.map((job) => job.function.functionArn),
        }),
      );
    }
    const schedule = new FunctionSchedule(this, 'Schedule', {
      target: this.function,
      scheduleName: SWEEPER_NAME,
      group: props.scheduleGroup,
      expression,
      timeZone: validateTimeZone('UTC'),
      input: {
        job: SWEEPER_NAME,
        scheduledTime: ContextAttribute.scheduledTime,
        scheduleArn: ContextAttribute.scheduleArn,
        executionId: ContextAttribute.executionId,
        attemptNumber: ContextAttribute.attemptNumber,
      },
      deadLetterQueue: this.deadLetterQueue,
      description: 'cronfence sweeper: missed-run detection and catch-up',
    });
    this.schedule = schedule.schedule;
  }
}
