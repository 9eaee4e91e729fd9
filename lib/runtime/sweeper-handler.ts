/**
 * The sweeper as a Lambda handler: reads the jobs it may re-trigger from `CRONFENCE_JOBS`
 * (`[{ "name", "functionArn", "startMs"? }]`, set by the CDK Sweeper construct), pairs them with the
 * job definitions compiled into its bundle, and invokes missing slots with Lambda `Invoke` (Event).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ConfigurationError } from '../errors.js';
import type { JobHandler } from './define-job.js';
import { createDeps } from './deps.js';
import { type SweepReport, type SweepTarget, sweep } from './sweeper.js';

/** Environment variable listing the sweeper's jobs. */
export const SWEEPER_JOBS_ENV = 'CRONFENCE_JOBS';

interface JobRef {
  readonly name: string;
  readonly functionArn: string;
  readonly startMs?: number;
}

/**
 * Parse `CRONFENCE_JOBS`.
 * @throws ConfigurationError naming the variable when it is missing or not a JSON array of {name, functionArn}.
 */
export function parseSweeperJobs(raw: string | undefined): JobRef[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch {
    throw new ConfigurationError(SWEEPER_JOBS_ENV, raw, 'must be a JSON array of {"name","functionArn"}');
  }
  if (
    !Array.isArray(parsed) ||
    !parsed.every((j) => typeof j?.name === 'string' && typeof j?.functionArn === 'string')
  ) {
    throw new ConfigurationError(SWEEPER_JOBS_ENV, raw, 'must be a JSON array of {"name","functionArn"}');
  }
  return parsed as JobRef[];
}

/**
 * Build the sweeper's Lambda handler for the given job handlers (the app's registry).
 * @throws ConfigurationError at the first invocation when `CRONFENCE_JOBS` names a job the bundle does not know.
 */
export function sweeperHandler(
  handlers: readonly JobHandler[],
): (event: unknown, context: Context) => Promise<SweepReport> {
  let lambda: LambdaClient | undefined;
  const base = async (): Promise<SweepReport> => {
    const refs = parseSweeperJobs(process.env[SWEEPER_JOBS_ENV]);
    lambda ??= new LambdaClient({});
    const client = lambda;
    const targets: SweepTarget[] = refs.map((ref) => {
      const h = handlers.find((x) => x.job.name === ref.name);
      if (!h)
        throw new ConfigurationError(
          SWEEPER_JOBS_ENV,
          ref.name,
          `names a job this sweeper bundle does not contain (${handlers.map((x) => x.job.name).join(', ')})`,
        );
      return {
        definition: h.job,
        expression: h.expression,
        ...(ref.startMs !== undefined && { startMs: ref.startMs }),
        invoke: async (payload) => {
          await client.send(
            new InvokeCommand({
              FunctionName: ref.functionArn,
              InvocationType: 'Event',
              Payload: new TextEncoder().encode(JSON.stringify(payload)),
            }),
          );
        },
      };
    });
    const deps = createDeps();
    return sweep({ leases: deps.leases, runs: deps.runs, clock: deps.clock }, targets);
  };
  return middy(base) as unknown as (event: unknown, context: Context) => Promise<SweepReport>;
}
