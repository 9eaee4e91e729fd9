import { fileURLToPath } from 'node:url';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CronfenceJobs, type CronfenceJobsProps } from './constructs/cronfence-jobs.js';

export { assertUniqueJobNames, type JobEntry } from './constructs/cronfence-jobs.js';

/** Properties of {@link CronfenceStack}: {@link CronfenceJobsProps} and the stack's own. */
export interface CronfenceStackProps extends StackProps, CronfenceJobsProps {}

/**
 * The cronfence stack: {@link CronfenceJobs} (the library table, application tables, one
 * `ScheduledJob` per job in one schedule group, the sweeper, and alarms with a dashboard) and the
 * stack's outputs.
 * @throws CronfenceValidationError at synth for duplicate job names, an invalid job definition (see
 *   `validateJobForDeploy`) or a job using a table the stack does not create.
 * @example
 * new CronfenceStack(app, 'Cronfence', { jobs, applicationTables: tables }); // functions/index.ts
 */
export class CronfenceStack extends Stack {
  /**
   * What the stack deploys: the library table, application tables, schedule group, jobs, sweeper and
   * alarms ({@link CronfenceJobs}, with id `Default`).
   */
  public readonly cronfence: CronfenceJobs;

  constructor(scope: Construct, id: string, props: CronfenceStackProps) {
    super(scope, id, props);
    // Id 'Default': CDK leaves it out of logical ids, so the resources keep the ids they had when
    // the stack built them itself (a retained table is never replaced by this refactor).
    this.cronfence = new CronfenceJobs(this, 'Default', {
      ...props,
      projectRoot: props.projectRoot ?? fileURLToPath(new URL('..', import.meta.url)),
    });
    // LibraryTableName and JobFunctionNames come from CronfenceJobs (its id `Default` keeps the keys plain).
    const { alarms } = this.cronfence;
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: alarms.dashboard.dashboardName });
  }
}
