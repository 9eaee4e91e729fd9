import { fileURLToPath } from 'node:url';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { CronfenceAlarms } from './constructs/alarms.js';
import { CronfenceJobs, type CronfenceJobsProps } from './constructs/cronfence-jobs.js';
import type { LibraryTable } from './constructs/library-table.js';
import type { ScheduledJob } from './constructs/scheduled-job.js';
import type { SchemaTable } from './constructs/schema-table.js';
import type { Sweeper } from './constructs/sweeper.js';

export { assertUniqueJobNames, type JobEntry } from './constructs/cronfence-jobs.js';

/** Properties of {@link CronfenceStack}: {@link CronfenceJobsProps} and the stack's own. */
export interface CronfenceStackProps extends StackProps, CronfenceJobsProps {}

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
    // Id 'Default': CDK leaves it out of logical ids, so the resources keep the ids they had when
    // the stack built them itself (a retained table is never replaced by this refactor).
    const wired = new CronfenceJobs(this, 'Default', {
      ...props,
      projectRoot: props.projectRoot ?? fileURLToPath(new URL('..', import.meta.url)),
    });
    this.libraryTable = wired.libraryTable;
    this.applicationTables = wired.applicationTables;
    this.scheduleGroup = wired.scheduleGroup;
    this.jobs = wired.jobs;
    this.sweeper = wired.sweeper;
    this.alarms = wired.alarms;
    new CfnOutput(this, 'LibraryTableName', { value: this.libraryTable.table.tableName });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: this.alarms.dashboard.dashboardName });
  }
}
