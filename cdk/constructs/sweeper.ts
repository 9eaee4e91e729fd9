import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ContextAttribute, type IScheduleGroup, type Schedule } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { defaultFunctionName, jobKeyOf, validateTimeZone } from '../../lib/core/job-definition.js';
import { parseScheduleExpression } from '../../lib/core/schedule/expression.js';
import { encodeSweeperDefinitions, SWEEPER_DEFINITIONS_CONSTANT } from '../../lib/runtime/sweeper-handler.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { DEFAULT_SWEEP_SCHEDULE, DEFAULT_SWEEPER_TIMEOUT_SECONDS, EnvVar } from './defaults.js';
import type { EcsScheduledJob } from './ecs-job.js';
import { ecsSweepTargets, grantEcsCatchUp } from './ecs-sweep.js';
import { CronfenceValidationError } from './errors.js';
import { FunctionSchedule } from './function-schedule.js';
import { JOB_FUNCTION_ENVIRONMENT, JobFunction } from './job-function.js';
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

/**
 * Lambda's limit on the total size of a function's environment variables, keys and values, in bytes
 * (AWS Lambda Developer Guide, "Lambda quotas": 4 KB).
 */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/**
 * Longest function ARN: `arn:aws-us-gov:lambda:<region, ≤ 14>:<account, 12>:function:<name, ≤ 64>`
 * (Lambda function names are at most 64 characters: Lambda API reference, `FunctionName`).
 */
export const MAX_FUNCTION_ARN_LENGTH =
  'arn:aws-us-gov:lambda:'.length + 14 + 1 + 12 + ':function:'.length + 64;

/** Longest value a deploy-time token in the environment can take (DynamoDB table names: ≤ 255). */
const MAX_TOKEN_VALUE_LENGTH = 255;

/**
 * Refuse at synth an environment that could pass {@link LAMBDA_ENVIRONMENT_LIMIT_BYTES} once
 * deployed: deploy-time values (tokens) count at their longest (`bounds[key]`, else 255 characters);
 * Lambda rejects the function at deploy time otherwise, after the stack has started to change.
 * @param scope - the construct, whose path the error names.
 * @param environment - the function's own variables (the construct adds three short ones; counted too).
 * @param bounds - for a variable holding tokens, its longest rendering.
 * @throws CronfenceValidationError naming the construct, the largest variable, the bound in bytes and
 *   the limit.
 */
export function checkEnvironmentSize(
  scope: IConstruct,
  environment: Readonly<Record<string, string>>,
  bounds: Readonly<Record<string, string>>,
): void {
  const all = { ...JOB_FUNCTION_ENVIRONMENT, ...environment };
  const size = (key: string, value: string): number =>
    Buffer.byteLength(key) +
    (bounds[key] !== undefined
      ? Buffer.byteLength(bounds[key])
      : Token.isUnresolved(value)
        ? MAX_TOKEN_VALUE_LENGTH
        : Buffer.byteLength(value));
  const sizes = Object.entries(all).map(([key, value]) => ({ key, bytes: size(key, value) }));
  const total = sizes.reduce((sum, x) => sum + x.bytes, 0);
  if (total <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return;
  const largest = sizes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  throw new CronfenceValidationError(
    `${scope.node.path}: the function's environment variables can reach ${total} bytes ` +
      `(${largest.key}: ${largest.bytes} bytes), over Lambda's limit of ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} bytes ` +
      'for all variables of a function; split the jobs across stacks (one sweeper each)',
    scope,
  );
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
  /** The ECS jobs it may inspect and re-trigger with `ecs:RunTask`. @default [] */
  readonly ecsJobs?: readonly EcsScheduledJob[];
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
 * `[{"name":"<job>","functionArn"?:"<arn>","startMs"?:<epoch ms, rate jobs with a pinned start>}]`
 * (`functionArn`, a function name or ARN, only for a function not named `cronfence-<job>`), and for an ECS
 * job `{"name","startMs"?,"ecs":{"cluster","taskDefinition","subnets","securityGroups","assignPublicIp","spot"}}`
 * (its catch-ups are `ecs:RunTask` of that task definition on that cluster: see `grantEcsCatchUp`);
 * the job definitions are compiled into the bundle (`__CRONFENCE_SWEEPER_DEFINITIONS__`). Its Input is
 * the Scheduler payload with `job` = {@link SWEEPER_NAME}.
 * @throws CronfenceValidationError at synth when the environment could pass Lambda's 4 KB limit (see {@link checkEnvironmentSize}).
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
      throw new CronfenceValidationError(`sweeper schedule: ${(error as Error).message}`, this, {
        cause: error,
      });
    }
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetters');
    // The sweeper invokes each job's function in its own account and region: `functionArn` carries the
    // plain name when it is known at synth (Lambda `Invoke` takes a name, an ARN or a partial ARN as
    // FunctionName), the ARN otherwise; a function named `cronfence-<job>` needs neither.
    const jobList = props.jobs.map((job) => ({
      name: job.definition.name,
      ...(job.functionName === defaultFunctionName(job.definition.name)
        ? {}
        : {
            functionArn: Token.isUnresolved(job.functionName) ? job.function.functionArn : job.functionName,
          }),
      ...(job.startMs === undefined ? {} : { startMs: job.startMs }),
    }));
    const ecsJobs = props.ecsJobs ?? [];
    const ecsList = ecsSweepTargets(ecsJobs);
    const environment = {
      ...props.libraryTable.environment,
      [EnvVar.sweeperJobs]: Stack.of(this).toJsonString([...jobList, ...ecsList.entries]),
    };
    checkEnvironmentSize(this, environment, {
      [EnvVar.sweeperJobs]: JSON.stringify([
        ...jobList.map((job) =>
          'functionArn' in job && Token.isUnresolved(job.functionArn)
            ? { ...job, functionArn: 'x'.repeat(MAX_FUNCTION_ARN_LENGTH) }
            : job,
        ),
        ...ecsList.bounds,
      ]),
    });
    const fn = new JobFunction(this, 'Handler', {
      entry: props.entry ?? DEFAULT_SWEEPER_ENTRY,
      projectRoot: props.projectRoot,
      timeoutSeconds: props.timeoutSeconds ?? DEFAULT_SWEEPER_TIMEOUT_SECONDS,
      deadLetterQueue: this.deadLetterQueue,
      description: `cronfence sweeper: re-triggers missed slots of ${props.jobs.length + ecsJobs.length} job(s)`,
      environment,
      // The definitions carry no deploy-time value: compiled into the bundle, not the environment.
      define: {
        [SWEEPER_DEFINITIONS_CONSTANT]: encodeSweeperDefinitions(
          [...props.jobs, ...ecsJobs].map((job) => job.definition),
        ),
      },
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.function = fn.function;
    this.role = fn.role;
    this.logGroup = fn.logGroup;
    if (props.jobs.length + ecsJobs.length > 0)
      props.libraryTable.grantSweeper(
        this.role,
        [...props.jobs, ...ecsJobs].map((job) => ({
          name: jobKeyOf(job.definition),
          shards: job.definition.shards > 1,
        })),
      );
    grantEcsCatchUp(this.role, ecsJobs);
    if (props.jobs.length > 0) {
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
