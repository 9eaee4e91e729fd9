/**
 * CDK app entry (`npx cdk synth`, `npx cdk deploy`): builds the example stack from the job
 * registry in functions/index.ts, nothing else. Environment-agnostic unless the CLI supplies an account
 * and region, so synth needs no credentials and makes no lookups. A job definition or stack validation
 * error is printed as one line naming the job (no stack trace) and exits 2.
 */
import { App } from 'aws-cdk-lib';
import { CronfenceStack } from './stack.js';

try {
  const { jobs, tables } = await import('../functions/index.js');
  const app = new App();
  new CronfenceStack(app, 'Cronfence', {
    description:
      'cronfence: scheduled jobs with one business effect per occurrence (lease, fence, run records)',
    jobs,
    applicationTables: tables,
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  app.synth();
} catch (err) {
  const message = (err as Error).message ?? String(err);
  console.error(message.startsWith('cronfence:') ? message : `cronfence: ${message}`);
  process.exit(2);
}
