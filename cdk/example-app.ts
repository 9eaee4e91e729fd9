/**
 * The example app's stack, from the job registry (functions/index.ts) and CDK context: what
 * cdk/app.ts synthesizes, importable by the synth tests.
 *
 * Context: `paymentsUrl` is the payment provider's base URL the settlement job pays through (its
 * `PAYMENTS_URL`), `paymentsCapabilities` its `PAYMENTS_CAPABILITIES` (default
 * `idempotency-keys,lookup`): `npx cdk deploy -c paymentsUrl=https://payments.example.com`. Without
 * `paymentsUrl` the settlement job settles rows only and pays nothing, and synth warns so.
 */
import { Annotations, type App, type Environment } from 'aws-cdk-lib';
import { jobs, tables } from '../functions/index.js';
import { CronfenceValidationError } from './constructs/errors.js';
import { CronfenceStack, type JobEntry } from './stack.js';

/** The settlement job (it pays through the provider at `PAYMENTS_URL`). */
const SETTLEMENT_JOB = 'merchant-settlement';

/**
 * The registry's jobs with the settlement job's provider settings from `app`'s context.
 * @returns the entries, and whether `paymentsUrl` was given.
 */
export function exampleJobs(app: App): { jobs: JobEntry[]; paymentsUrl: string | undefined } {
  const url = app.node.tryGetContext('paymentsUrl') as unknown;
  const capabilities = app.node.tryGetContext('paymentsCapabilities') as unknown;
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url)))
    throw new CronfenceValidationError(
      `context paymentsUrl = ${JSON.stringify(url)}: must be an http(s) URL, e.g. -c paymentsUrl=https://payments.example.com`,
    );
  const paymentsUrl = url as string | undefined;
  return {
    paymentsUrl,
    jobs: jobs.map((job) =>
      job.definition.name === SETTLEMENT_JOB && paymentsUrl !== undefined
        ? {
            ...job,
            environment: {
              PAYMENTS_URL: paymentsUrl,
              PAYMENTS_CAPABILITIES:
                typeof capabilities === 'string' ? capabilities : 'idempotency-keys,lookup',
            },
          }
        : job,
    ),
  };
}

/**
 * Build the example stack (`Cronfence`) in `app`.
 * @throws CronfenceValidationError naming the context value for a `paymentsUrl` that is not a URL; the construct's errors.
 */
export function exampleStack(app: App, options: { env?: Environment; now?: Date } = {}): CronfenceStack {
  const { jobs: entries, paymentsUrl } = exampleJobs(app);
  const stack = new CronfenceStack(app, 'Cronfence', {
    description:
      'cronfence: scheduled jobs with one business effect per occurrence (lease, fence, run records)',
    jobs: entries,
    applicationTables: tables,
    ...(options.env ? { env: options.env } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  if (paymentsUrl === undefined) {
    const job = stack.cronfence.jobs.find((j) => j.definition.name === SETTLEMENT_JOB);
    if (job)
      Annotations.of(job).addWarningV2(
        'cronfence:no-payments-url',
        `job "${SETTLEMENT_JOB}" deploys without PAYMENTS_URL: it settles rows only and pays nobody; pass -c paymentsUrl=<the provider's base URL>`,
      );
  }
  return stack;
}
