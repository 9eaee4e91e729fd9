import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { JobDefinition } from '../lib/core/job-definition.js';
import type { JobAccess } from '../lib/store/job-access.js';
import type { TableSchema } from '../lib/store/schema.js';
import { CronfenceAlarms } from './constructs/alarms.js';
import { LibraryTable } from './constructs/library-table.js';
import { ScheduledJob } from './constructs/scheduled-job.js';
import { SchemaTable } from './constructs/schema-table.js';
import { DEFAULT_SWEEPER_ENTRY, SWEEPER_NAME, Sweeper } from './constructs/sweeper.js';

/** One job of the app: its definition and the handler file that exports it. */
export interface JobEntry {
  /** The job definition (`handler.job`). */
  readonly definition: JobDefinition;
  /** Handler file exporting `handler`, relative to the repository root. */
  readonly entry: string;
  /**
   * What the job's body uses: the application tables it writes (and with which `ctx` calls) and
   * whether it records effects. The job's role gets exactly that. @default {} (no tables, no effects)
   */
  readonly uses?: JobAccess;
  /** Scheduler StartDate; pin it for rate jobs so the sweeper can count their slots. @default - none */
  readonly start?: Date;
}

/** Properties of {@link CronfenceStack}. */
export interface CronfenceStackProps extends StackProps {
  /** The jobs to deploy, one ScheduledJob each. */
  readonly jobs: readonly JobEntry[];
  /** Application (business) tables, created from their schemas. @default [] */
  readonly applicationTables?: readonly TableSchema[];
  /**
   * The sweeper's handler file, relative to the repository root. When left at the default and the
   * file does not exist, the stack has no sweeper and synth warns.
   * @default 'functions/sweeper.ts'
   */
  readonly sweeperEntry?: string;
  /** The sweeper's schedule (UTC). @default 'rate(15 minutes)' */
  readonly sweepSchedule?: string;
  /** Repository root (package-lock.json, node_modules). @default - the directory above cdk/ */
  readonly projectRoot?: string;
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
}

/**
 * The cronfence stack: the library table, application tables, one {@link ScheduledJob} per job
 * in one schedule group, the sweeper, and alarms with a dashboard.
 * @throws Error at synth for duplicate job names, an invalid job definition (see
 *   `validateJobForDeploy`) or a job using a table the stack does not create.
 * @example
 * new CronfenceStack(app, 'Cronfence', { jobs, applicationTables: tables }); // functions/index.ts
 */
export class CronfenceStack extends Stack {
  /** The library table (leases, run records, effects). */
  public readonly libraryTable: LibraryTable;
  /** Application tables by schema `defaultName`. */
  public readonly applicationTables: ReadonlyMap<string, SchemaTable>;
  /** The schedule group holding every schedule of this stack. */
  public readonly scheduleGroup: ScheduleGroup;
  /** The jobs, in the order given. */
  public readonly jobs: readonly ScheduledJob[];
  /** The sweeper (`undefined` only while the app has no sweeper handler, with a synth warning). */
  public readonly sweeper: Sweeper | undefined;
  /** Alarms, SNS topic and dashboard. */
  public readonly alarms: CronfenceAlarms;

  constructor(scope: Construct, id: string, props: CronfenceStackProps) {
    super(scope, id, props);
    assertUniqueJobNames(props.jobs);
    const projectRoot = props.projectRoot ?? fileURLToPath(new URL('..', import.meta.url));
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
    const sweeperEntry = props.sweeperEntry ?? DEFAULT_SWEEPER_ENTRY;
    if (props.sweeperEntry === undefined && !existsSync(join(projectRoot, sweeperEntry))) {
      Annotations.of(this).addWarningV2(
        'cronfence:no-sweeper',
        `no sweeper handler at ${sweeperEntry}: missed runs (DST gaps, dropped deliveries) will not be caught up`,
      );
      this.sweeper = undefined;
    } else {
      this.sweeper = new Sweeper(this, 'Sweeper', {
        projectRoot,
        entry: sweeperEntry,
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
    new CfnOutput(this, 'LibraryTableName', { value: this.libraryTable.table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: this.alarms.dashboard.dashboardName });
  }
}
