import { Annotations, RemovalPolicy } from 'aws-cdk-lib';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { type JobDefinition, jobKeyOf } from '../../lib/core/job-definition.js';
import type { JobAccess } from '../../lib/store/job-access.js';
import type { TableSchema } from '../../lib/store/schema.js';
import { CronfenceAlarms } from './alarms.js';
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
   * What the job's body uses: the application tables it writes (and with which `ctx` calls) and
   * whether it records effects. The job's role gets exactly that. @default {} (no tables, no effects)
   */
  readonly uses?: JobAccess;
  /** Scheduler StartDate; pin it for rate jobs so the sweeper can count their slots. @default - none */
  readonly start?: Date;
}

/** Properties of {@link CronfenceJobs}. */
export interface CronfenceJobsProps {
  /** The jobs to deploy, one {@link ScheduledJob} each. */
  readonly jobs: readonly JobEntry[];
  /** Application (business) tables, created from their schemas. @default [] */
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
}

/**
 * Throw when two jobs share a name or a job takes the sweeper's name: names are schedule names
 * and key prefixes (`JOB#<name>`), so a duplicate would share leases and run records.
 * @throws Error naming both entries.
 */
export function assertUniqueJobNames(jobs: readonly JobEntry[]): void {
  const seen = new Map<string, string>([[SWEEPER_NAME, 'the sweeper']]);
  for (const job of jobs) {
    const name = job.definition.name;
    const previous = seen.get(name);
    if (previous !== undefined) {
      throw new Error(
        `cronfence: duplicate job name "${name}": defined by ${job.entry} and ${previous}; ` +
          'job names must be unique (they are schedule names and JOB#<name> key prefixes)',
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
      throw new Error(
        `cronfence: duplicate job id "${key}": used by ${job.entry} and ${previous}; a job's id (default its ` +
          'name) keys its lease, run records and effects (JOB#<id>), so two jobs cannot share one',
      );
    }
    keys.set(key, job.entry);
  }
}

/**
 * A list of jobs wired as cronfence deploys them: the library table, the application tables, one
 * {@link ScheduledJob} per job in one schedule group, the {@link Sweeper} (cronfence's own entry by
 * default) and {@link CronfenceAlarms} with a dashboard. Put it in any stack.
 * @throws Error at synth for duplicate job names, an invalid job definition (see
 *   `validateJobForDeploy`) or a job using a table not in `applicationTables`.
 * @example
 * import { handler as nightly } from './src/nightly.js';
 * new CronfenceJobs(stack, 'Jobs', { jobs: [{ definition: nightly.job, entry: 'src/nightly.ts' }] });
 */
export class CronfenceJobs extends Construct {
  /** The library table (leases, run records, effects). */
  public readonly libraryTable: LibraryTable;
  /** Application tables by schema `defaultName`. */
  public readonly applicationTables: ReadonlyMap<string, SchemaTable>;
  /** The schedule group holding every schedule of these jobs. */
  public readonly scheduleGroup: ScheduleGroup;
  /** The jobs, in the order given. */
  public readonly jobs: readonly ScheduledJob[];
  /** The sweeper (`undefined` when `sweeperEntry: false`). */
  public readonly sweeper: Sweeper | undefined;
  /** Alarms, SNS topic and dashboard. */
  public readonly alarms: CronfenceAlarms;

  constructor(scope: Construct, id: string, props: CronfenceJobsProps) {
    super(scope, id);
    assertUniqueJobNames(props.jobs);
    const projectRoot = props.projectRoot ?? process.cwd();
    const retain = props.retainData ?? true;
    const tableOptions = retain ? {} : { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false };
    this.libraryTable = new LibraryTable(this, 'Library', tableOptions);
    const tables = new Map<string, SchemaTable>();
    for (const schema of props.applicationTables ?? []) {
      tables.set(
        schema.defaultName,
        new SchemaTable(this, `Table-${schema.defaultName}`, { schema, ...tableOptions }),
      );
    }
    this.applicationTables = tables;
    this.scheduleGroup = new ScheduleGroup(this, 'Schedules');
    this.jobs = props.jobs.map(
      (job) =>
        new ScheduledJob(this, job.definition.name, {
          definition: job.definition,
          entry: job.entry,
          projectRoot,
          libraryTable: this.libraryTable,
          scheduleGroup: this.scheduleGroup,
          tables: (job.uses?.tables ?? []).map((use) => {
            const table = tables.get(use.table.defaultName);
            if (!table) {
              throw new Error(
                `cronfence: job "${job.definition.name}" uses table "${use.table.defaultName}", not in the stack`,
              );
            }
            return { table, writes: use.writes };
          }),
          effects: job.uses?.effects ?? false,
          ...(job.start ? { start: job.start } : {}),
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
        scheduleGroup: this.scheduleGroup,
        ...(props.sweepSchedule ? { schedule: props.sweepSchedule } : {}),
      });
    }
    this.alarms = new CronfenceAlarms(this, 'Alarms', {
      jobs: this.jobs,
      ...(this.sweeper ? { sweeper: this.sweeper } : {}),
    });
  }
}
