/**
 * CDK app entry (`npx cdk synth`, `npx cdk deploy`): builds the example stack from the job
 * registry in functions/, nothing else. Environment-agnostic unless the CLI supplies an account
 * and region, so synth needs no credentials and makes no lookups.
 */
import { App } from 'aws-cdk-lib';
import { jobs } from '../functions/index.js';
import { exampleTables } from '../functions/tables.js';
import { CronfenceStack } from './stack.js';

const app = new App();
new CronfenceStack(app, 'Cronfence', {
  description:
    'cronfence: scheduled jobs with one business effect per occurrence (lease, fence, run records)',
  jobs,
  applicationTables: exampleTables,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
