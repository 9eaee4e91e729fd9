/**
 * CDK app entry (`npx cdk synth`, `npx cdk deploy`): builds the example stack from the job
 * registry in functions/index.ts, nothing else. A job definition or stack validation error is printed as
 * one line naming the job (no stack trace) and exits 2.
 *
 * Environment-agnostic by default: region and account are the `AWS::Region` / `AWS::AccountId`
 * pseudo parameters, so one template deploys anywhere and synth needs no credentials. The CDK CLI
 * always sets `CDK_DEFAULT_REGION` (us-east-1 when nothing is configured), so those variables are
 * NOT used; pin an environment on purpose with `CRONFENCE_ACCOUNT` and `CRONFENCE_REGION` (both).
 * Context `paymentsUrl` (and `paymentsCapabilities`) configure the settlement job's payment provider
 * (cdk/example-app.ts).
 */
import { App } from 'aws-cdk-lib';
import { pinnedEnvironment } from './environment.js';

try {
  const { exampleStack } = await import('./example-app.js');
  const app = new App();
  const env = pinnedEnvironment(process.env);
  exampleStack(app, env ? { env } : {});
  app.synth();
} catch (err) {
  const message = (err as Error).message ?? String(err);
  console.error(message.startsWith('cronfence:') ? message : `cronfence: ${message}`);
  process.exit(2);
}
