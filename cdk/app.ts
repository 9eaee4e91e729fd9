/**
 * CDK app entry (`npx cdk synth`, `npx cdk deploy`): builds the example stack from the job
 * registry in functions/, nothing else.
 *
 * Environment-agnostic by default: region and account are the `AWS::Region` / `AWS::AccountId`
 * pseudo parameters, so one template deploys anywhere and synth needs no credentials. The CDK CLI
 * always sets `CDK_DEFAULT_REGION` (us-east-1 when nothing is configured), so those variables are
 * NOT used; pin an environment on purpose with `CRONFENCE_ACCOUNT` and `CRONFENCE_REGION` (both).
 */
import { App } from 'aws-cdk-lib';
import { jobs } from '../functions/index.js';
import { exampleTables } from '../functions/tables.js';
import { pinnedEnvironment } from './environment.js';
import { CronfenceStack } from './stack.js';

const app = new App();
const env = pinnedEnvironment(process.env);
new CronfenceStack(app, 'Cronfence', {
  description:
    'cronfence: scheduled jobs with one business effect per occurrence (lease, fence, run records)',
  jobs,
  applicationTables: exampleTables,
  ...(env ? { env } : {}),
});
