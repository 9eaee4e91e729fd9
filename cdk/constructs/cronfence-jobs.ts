import { Annotations, CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct, type IConstruct } from 'constructs';
import { stackFunctionName } from '../../lib/core/function-name.js';
import { type JobDefinition, jobKeyOf } from '../../lib/core/job-definition.js';
import { declaredUses, type JobAccess } from '../../lib/store/job-access.js';
import type { TableSchema } from '../../lib/store/schema.js';
import { CronfenceAlarms } from './alarms.js';
import { type EcsJobOptions, EcsScheduledJob } from './ecs-job.js';
import { EcsNetwork, type EcsNetworkProps } from './ecs-network.js';
import { CronfenceValidationError } from './errors.js';
import { jobRuntimeOf } from './job-runtime.js';
import { LibraryTable } from './library-table.js';
import { ScheduledJob } from './scheduled-job.js';
import { SchemaTable } from './schema-table.js';
import { SWEEPER_NAME, Sweeper } from './sweeper.js';

/** One job: its definition and the handler file that exports it. */
export interface JobEntry {
  /** The job definition (`handler.job`). */
  readonly definition: JobDefinition;
  /** Handler file exporting `handler`, relative to the project root (e.g. `src/nightly.ts`). */
  readonly entry: string;
  /**
   * What the job's body uses, for a definition that does not declare it: the application tables it
   * writes (and with which `ctx` calls) and whether it records effects. Declare it in `defineJob({ uses })`
   * instead, beside the code (the entry then reads it from `definition`); synth refuses both at once.
   * The job's role gets exactly that. @default - the definition's `uses`, else {} (no tables, no effects)
   */
  readonly uses?: JobAccess;
  /** Scheduler StartDate; pin it for rate jobs so the sweeper can count their slots. @default - none */
  readonly start?: Date;
  /**
   * The job's Lambda function name, for a name of your own (the stack's `JobFunctionNames` output
   * tells the CLI). @default `<stack name>-<job>`, so stacks in one account and region never collide
   */
  readonly functionName?: string;
  /**
   * The job's own environment variables (e.g. a provider's URL), beside the table names cronfence sets;
   * one cronfence sets or Lambda reserves is refused at synth. @default {}
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** An ECS job's (`runtime: 'ecs'`) container sizing and Spot choice; refused for a Lambda job. @default {} */
  readonly ecs?: EcsJobOptions;
}

/** Output key of the library table's name (read by the CLI's `stack` setting). */
export const LIBRARY_TABLE_OUTPUT = 'LibraryTableName';
/** Output key of the jobs' function names, JSON `{ "<job>": "<function name>" }`. */
export const JOB_FUNCTIONS_OUTPUT = 'JobFunctionNames';
/** CloudFormation's limit on an output value, in characters. */
const MAX_OUTPUT_VALUE_LENGTH = 4096;

/** Properties of {@link CronfenceJobs}. */
export interface CronfenceJobsProps {
  /** The jobs to deploy, one {@link ScheduledJob} each. */
  readonly jobs: readonly JobEntry[];
  /**
   * Application (business) tables to create besides those the jobs declare in `uses` (which are
   * created anyway, once each by `defaultName`). @default []
   */
  readonly applicationTables?: readonly TableSchema[];
  /**
   * The project root: holds package-lock.json, node_modules and tsconfig.json; job entries are
   * relative to it. @default process.cwd() (where `cdk synth` runs)
   */
  readonly projectRoot?: string;
  /**
   * The sweeper's handler file, relative to `projectRoot`, or `false` for no sweeper (synth warns:
   * missed runs are then never caught up).
   * @default - cronfence's own sweeper entry (`cronfence/sweeper`), which reads the jobs from its environment
   */
  readonly sweeperEntry?: string | false;
  /** The sweeper's schedule (UTC). @default 'rate(15 minutes)' */
  readonly sweepSchedule?: string;
  /**
   * Keep tables (RETAIN + deletion protection) when the stack is deleted. Set false only for
   * throw-away test stacks.
   * @default true
   */
  readonly retainData?: boolean;
  /** Reference instant for DST warnings. @default - synth time */
  readonly now?: Date;
  /**
   * Where the ECS jobs' tasks run (created only when a job has `runtime: 'ecs'`).
   * @default - a new cluster in a new VPC ({@link EcsNetwork})
   */
  readonly ecsNetwork?: EcsNetworkProps;
}

/**
 * What a job entry uses: its definition's `uses` (`defineJob`), else the entry's.
 * @throws CronfenceValidationError naming the job when both declare it (one place only, beside the
 *   job's code).
 */
function jobUses(job: JobEntry, scope: IConstruct): JobAccess {
  const fromDefinition = declaredUses(job.definition);
  if (fromDefinition !== undefined && job.uses !== undefined && job.uses !== fromDefinition)
    throw new CronfenceValidationError(
      `job "${job.definition.name}" (${job.entry}) declares uses both in defineJob and in its entry: keep the one in defineJob, beside the code`,
      scope,
    );
  return fromDefinition ?? job.uses ?? {};
}

/**
 * Throw when two jobs share a name or a job takes the sweeper's name: names are schedule names
 * and key prefixes (`JOB#<name>`), so a duplicate would share leases and run records.
 * @param scope the construct the jobs belong to, named in the error. @default none (an app-level check)
 * @throws CronfenceValidationError naming both entries.
 */
export function assertUniqueJobNames(jobs: readonly JobEntry[], scope?: IConstruct): void {
  const seen = new Map<string, string>([[SWEEPER_NAME, 'the sweeper']]);
  for (const job of jobs) {
    const name = job.definition.name;
    const previous = seen.get(name);
    if (previous !== undefined) {
      throw new CronfenceValidationError(
        `duplicate job name "${name}": defined by ${job.entry} and ${previous}; ` +
          'job names must be unique (they are schedule names and JOB#<name> key prefixes)',
        scope,
      );
    }
    seen.set(name, job.entry);
  }
  // The table key (`id`, else the name) must be unique too: two jobs under one key share a lease.
  const keys = new Map<string, string>();
  for (const job of jobs) {
    const key = jobKeyOf(job.definition);
    const previous = keys.get(key);
    if (previous !== undefined) {
      throw new CronfenceValidationError(
        `duplicate job id "${key}": used by ${job.entry} and ${previous}; a job's id (default its ` +
          'name) keys its lease, run records and effects (JOB#<id>), so two jobs cannot share one',
        scope,
      );
    }
    keys.set(key, job.entry);
  }
}

/**
 * A list of jobs wired as cronfence deploys them: the library table, the application tables, one
 * {@link ScheduledJob} per job, each in its own schedule group, the {@link Sweeper} (cronfence's own entry by
 * default) and {@link CronfenceAlarms} with a dashboard. Put it in any stack.
 * Outputs `LibraryTableName` and `JobFunctionNames` for the CLI's `stack` setting.
 * @throws CronfenceValidationError at synth for duplicate job names, an invalid job definition (see
 *   `validateJobForDeploy`), `uses` declared twice for one job, or a variable in a job's `environment`
 *   that cronfence sets or Lambda reserves.
 * @example
 * import { handler as nightly } from './src/nightly.js';
 * new CronfenceJobs(stack, 'Jobs', { jobs: [{ definition: nightly.job, entry: 'src/nightly.ts' }] });
 */
export class CronfenceJobs extends Construct {
  /** The library table (leases, run records, effects). */
  public readonly libraryTable: LibraryTable;
  /** Application tables by schema `defaultName`. */
  public readonly applicationTables: ReadonlyMap<string, SchemaTable>;
  /** The sweeper's schedule group. */
  public readonly scheduleGroup: ScheduleGroup;
  /** Each job's own schedule group (one schedule each: Scheduler's metrics are per group), by job name. */
  public readonly jobScheduleGroups: ReadonlyMap<string, ScheduleGroup>;
  /** The Lambda jobs, in the order given. */
  public readonly jobs: readonly ScheduledJob[];
  /** The ECS jobs (`runtime: 'ecs'`), in the order given. */
  public readonly ecsJobs: readonly EcsScheduledJob[];
  /** The ECS jobs' cluster and network (`undefined` without ECS jobs). */
  public readonly ecsNetwork: EcsNetwork | undefined;
  /** The sweeper (`undefined` when `sweeperEntry: false`). */
  public readonly sweeper: Sweeper | undefined;
  /** Alarms, SNS topic and dashboard. */
  public readonly alarms: CronfenceAlarms;

  constructor(scope: Construct, id: string, props: CronfenceJobsProps) {
    super(scope, id);
    assertUniqueJobNames(props.jobs, this);
    const projectRoot = props.projectRoot ?? process.cwd();
    const retain = props.retainData ?? true;
    const tableOptions = retain ? {} : { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false };
    this.libraryTable = new LibraryTable(this, 'Library', tableOptions);
    const usesOf = new Map(props.jobs.map((job) => [job, jobUses(job, this)] as const));
    const declared = [...usesOf.values()].flatMap((uses) => (uses.tables ?? []).map((u) => u.table));
    const schemas = new Map<string, TableSchema>();
    for (const schema of [...(props.applicationTables ?? []), ...declared])
      if (!schemas.has(schema.defaultName)) schemas.set(schema.defaultName, schema);
    const tables = new Map<string, SchemaTable>();
    for (const schema of schemas.values()) {
      tables.set(
        schema.defaultName,
        new SchemaTable(this, `Table-${schema.defaultName}`, { schema, ...tableOptions }),
      );
    }
    this.applicationTables = tables;
    this.scheduleGroup = new ScheduleGroup(this, 'Schedules');
    const tablesOf = (job: JobEntry) =>
      (usesOf.get(job)?.tables ?? []).map((use) => ({
        table: tables.get(use.table.defaultName) as SchemaTable,
        writes: use.writes,
      }));
    // One schedule group per job: Scheduler's metrics exist per group only, so a group of one schedule
    // gives that job its own TargetErrorCount / InvocationDroppedCount alarms, and its execution role
    // trusts Scheduler only for that group (aws:SourceArn).
    const groups = new Map<string, ScheduleGroup>();
    this.jobScheduleGroups = groups;
    const groupOf = (job: JobEntry): ScheduleGroup =>
      groups
        .set(job.definition.name, new ScheduleGroup(this, `Schedules-${job.definition.name}`))
        .get(job.definition.name) as ScheduleGroup;
    const ecsEntries = props.jobs.filter((job) => jobRuntimeOf(job.definition) === 'ecs');
    for (const job of props.jobs)
      if (job.ecs !== undefined && !ecsEntries.includes(job))
        throw new CronfenceValidationError(
          `job "${job.definition.name}" (${job.entry}): ecs options are for a job with runtime: 'ecs'`,
          this,
        );
    this.ecsNetwork = ecsEntries.length > 0 ? new EcsNetwork(this, 'Ecs', props.ecsNetwork ?? {}) : undefined;
    const placement = this.ecsNetwork?.placement;
    this.ecsJobs = ecsEntries.map(
      (job) =>
        new EcsScheduledJob(this, job.definition.name, {
          ...job.ecs,
          definition: job.definition,
          entry: job.entry,
          projectRoot,
          libraryTable: this.libraryTable,
          scheduleGroup: groupOf(job),
          placement: placement as NonNullable<typeof placement>,
          tables: tablesOf(job),
          effects: usesOf.get(job)?.effects ?? false,
          ...(job.start ? { start: job.start } : {}),
          ...(job.environment !== undefined && { environment: job.environment }),
          ...(props.now ? { now: props.now } : {}),
        }),
    );
    this.jobs = props.jobs
      .filter((job) => !ecsEntries.includes(job))
      .map(
        (job) =>
          new ScheduledJob(this, job.definition.name, {
            definition: job.definition,
            entry: job.entry,
            projectRoot,
            libraryTable: this.libraryTable,
            scheduleGroup: groupOf(job),
            tables: tablesOf(job),
            effects: usesOf.get(job)?.effects ?? false,
            ...(job.start ? { start: job.start } : {}),
            ...(job.functionName !== undefined && { functionName: job.functionName }),
            ...(job.environment !== undefined && { environment: job.environment }),
            ...(props.now ? { now: props.now } : {}),
          }),
      );
    if (props.sweeperEntry === false) {
      Annotations.of(this).addWarningV2(
        'cronfence:no-sweeper',
        'no sweeper: missed runs (DST gaps, dropped deliveries) will not be caught up',
      );
      this.sweeper = undefined;
    } else {
      this.sweeper = new Sweeper(this, 'Sweeper', {
        projectRoot,
        ...(props.sweeperEntry === undefined ? {} : { entry: props.sweeperEntry }),
        libraryTable: this.libraryTable,
        jobs: this.jobs,
        ecsJobs: this.ecsJobs,
        scheduleGroup: this.scheduleGroup,
        ...(props.sweepSchedule ? { schedule: props.sweepSchedule } : {}),
      });
    }
    this.alarms = new CronfenceAlarms(this, 'Alarms', {
      jobs: this.jobs,
      ecsJobs: this.ecsJobs,
      ...(this.sweeper ? { sweeper: this.sweeper } : {}),
    });
    // What `cronfence` needs to find this deployment from the stack's name alone (`"stack"` setting).
    new CfnOutput(this, LIBRARY_TABLE_OUTPUT, {
      value: this.libraryTable.table.tableName,
      description:
        'cronfence library table (leases, run records, effects); the CLI reads it with its "stack" setting',
    });
    new CfnOutput(this, JOB_FUNCTIONS_OUTPUT, {
      value: jobFunctionsOutput(this, this.jobs),
      description:
        'cronfence job functions, JSON {"<job>": "<function name>"}; `cronfence backfill` invokes them',
    });
  }
}

/**
 * The jobs' function names as JSON; past CloudFormation's 4096-character output limit, only the names
 * that differ from the derived default (the CLI derives the others from the stack's name).
 */
function jobFunctionsOutput(scope: Construct, jobs: readonly ScheduledJob[]): string {
  const all = Object.fromEntries(jobs.map((j) => [j.definition.name, j.functionName]));
  const text = Stack.of(scope).toJsonString(all);
  if (text.length <= MAX_OUTPUT_VALUE_LENGTH) return text;
  return JSON.stringify(
    Object.fromEntries(
      jobs
        .filter((j) => j.functionName !== stackFunctionName(Stack.of(j).stackName, j.definition.name))
        .map((j) => [j.definition.name, j.functionName]),
    ),
  );
}
