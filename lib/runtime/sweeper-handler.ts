/**
 * The sweeper as a Lambda handler: reads the jobs it may re-trigger from `CRONFENCE_JOBS`
 * (`[{ "name", "functionArn"?, "startMs"? }]`, set by the CDK Sweeper construct; without `functionArn`
 * the job's function is `cronfence-<job>` in the sweeper's own account and region; with `ecs`, the job is
 * an ECS job and `ecs` says where to run its task), pairs them with the job definitions compiled into its
 * bundle, invokes missing slots with Lambda `Invoke` (Event) or ECS `RunTask` (lib/runtime/ecs-catch-up.ts),
 * and publishes the sweep's problem metrics (EMF) per job.
 */
import { ECSClient } from '@aws-sdk/client-ecs';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { ConfigurationError } from '../core/input-errors.js';
import { defaultFunctionName, JobNameSchema } from '../core/job-definition.js';
import type { JobHandler } from './define-job.js';
import { createDeps } from './deps.js';
import { EcsTargetSchema, ecsCatchUpInvoker } from './ecs-catch-up.js';
import { publishSweepMetrics } from './observability.js';
import { type SweepReport, type SweepTarget, sweep } from './sweeper.js';

/** Environment variable listing the sweeper's jobs. */
export const SWEEPER_JOBS_ENV = 'CRONFENCE_JOBS';

/**
 * Global identifier the CDK `Sweeper` construct defines in cronfence's own sweeper bundle (esbuild
 * `define`): the jobs' definitions as base64 of a JSON array. Definitions carry no deploy-time
 * values, so they are compiled into the bundle instead of counting against Lambda's 4 KB limit on a
 * function's environment variables (AWS Lambda Developer Guide, "Lambda quotas"); only the
 * deploy-time part (name, function ARN, rate anchor) stays in {@link SWEEPER_JOBS_ENV}.
 */
export const SWEEPER_DEFINITIONS_CONSTANT = '__CRONFENCE_SWEEPER_DEFINITIONS__';

/**
 * Encode job definitions for {@link SWEEPER_DEFINITIONS_CONSTANT}: a JavaScript string literal of the
 * base64 of their JSON (base64 has no character a shell or esbuild's command line would alter).
 */
export function encodeSweeperDefinitions(definitions: readonly unknown[]): string {
  return JSON.stringify(Buffer.from(JSON.stringify(definitions), 'utf8').toString('base64'));
}

/** The environment's list of jobs: names from the job schema, the function to invoke, the rate grid anchor. */
const SweeperJobsSchema = v.array(
  v.object({
    name: JobNameSchema,
    functionArn: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'))),
    startMs: v.optional(v.pipe(v.number('must be epoch ms'), v.integer('must be epoch ms'))),
    // An ECS job (`runtime: 'ecs'`): where to RunTask its catch-ups instead of invoking a function.
    ecs: v.optional(EcsTargetSchema),
  }),
  'must be a JSON array of {"name","functionArn"?,"startMs"?,"ecs"?}',
);

type JobRef = v.InferOutput<typeof SweeperJobsSchema>[number];

/**
 * Parse `CRONFENCE_JOBS` (a deployment setting, not a job definition).
 * @throws ConfigurationError naming the variable (and the entry's field) when it is missing,
 *   not JSON, or not an array of {name, functionArn?, startMs?, ecs?}.
 */
export function parseSweeperJobs(raw: string | undefined): JobRef[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch (cause) {
    throw new ConfigurationError(
      SWEEPER_JOBS_ENV,
      raw,
      'must be a JSON array of {"name","functionArn"?,"startMs"?,"ecs"?}',
      { cause },
    );
  }
  const result = v.safeParse(SweeperJobsSchema, parsed, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue.path ?? []).map((p) => `[${JSON.stringify(p.key)}]`).join('');
    throw new ConfigurationError(`${SWEEPER_JOBS_ENV}${path}`, issue.input, issue.message);
  }
  return result.output;
}

/**
 * Build the sweeper's Lambda handler for the given job handlers (the app's registry).
 * @throws ConfigurationError at the first invocation when `CRONFENCE_JOBS` names a job the bundle does not know.
 */
export function sweeperHandler(
  handlers: readonly Pick<JobHandler, 'job' | 'expression'>[],
): (event: unknown, context: Context) => Promise<SweepReport> {
  let lambda: LambdaClient | undefined;
  let ecs: ECSClient | undefined;
  const base = async (): Promise<SweepReport> => {
    const refs = parseSweeperJobs(process.env[SWEEPER_JOBS_ENV]);
    lambda ??= new LambdaClient({});
    const client = lambda;
    if (refs.some((ref) => ref.ecs !== undefined)) ecs ??= new ECSClient({});
    const ecsClient = ecs as ECSClient;
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
        invoke: ref.ecs
          ? ecsCatchUpInvoker(ecsClient, ref.name, ref.ecs)
          : async (payload) => {
              await client.send(
                new InvokeCommand({
                  FunctionName: ref.functionArn ?? defaultFunctionName(ref.name),
                  InvocationType: 'Event',
                  Payload: new TextEncoder().encode(JSON.stringify(payload)),
                }),
              );
            },
      };
    });
    const deps = createDeps();
    const report = await sweep({ leases: deps.leases, runs: deps.runs, clock: deps.clock }, targets);
    // Every problem record the sweep wrote (and every job it could not sweep) moves the metric the
    // job's alarm counts; a job it could not sweep does not fail the others, nor the handler.
    publishSweepMetrics(report);
    return report;
  };
  return middy(base) as unknown as (event: unknown, context: Context) => Promise<SweepReport>;
}
