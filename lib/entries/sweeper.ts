/**
 * `cronfence/sweeper`: the sweeper Lambda entry the CDK `Sweeper` construct bundles by default, so a
 * project writes no sweeper of its own. It imports no job code: each `CRONFENCE_JOBS` entry carries
 * the job's definition (`definition`, written by the construct at synth), validated here with the
 * same job schema `defineJob` runs, and the function to invoke for a missed slot.
 */
import type { Context } from 'aws-lambda';
import type { JobDefinition } from '../core/job-definition.js';
import { ConfigurationError } from '../errors.js';
import { validateJob } from '../runtime/define-job.js';
import type { SweepReport } from '../runtime/sweeper.js';
import { SWEEPER_JOBS_ENV, sweeperHandler } from '../runtime/sweeper-handler.js';

/**
 * The job definitions in `CRONFENCE_JOBS` (`[{ "name", "functionArn", "definition", ... }]`).
 * @throws ConfigurationError naming `CRONFENCE_JOBS[i].definition` when an entry has none or it is not
 *   an object; InvalidJobDefinitionError / InvalidScheduleError for an invalid definition.
 */
export function definitionsFromEnvironment(raw: string | undefined): ReturnType<typeof validateJob>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch (cause) {
    throw new ConfigurationError(SWEEPER_JOBS_ENV, raw, 'must be a JSON array', { cause });
  }
  if (!Array.isArray(parsed)) throw new ConfigurationError(SWEEPER_JOBS_ENV, raw, 'must be a JSON array');
  return parsed.map((entry: unknown, i) => {
    const definition = (entry as { definition?: unknown } | null)?.definition;
    if (typeof definition !== 'object' || definition === null) {
      throw new ConfigurationError(
        `${SWEEPER_JOBS_ENV}[${i}].definition`,
        definition,
        'must be the job definition object (the Sweeper construct writes it)',
      );
    }
    return validateJob(definition as JobDefinition);
  });
}

let built: ((event: unknown, context: Context) => Promise<SweepReport>) | undefined;

/** The sweeper Lambda handler: one sweep over the jobs in `CRONFENCE_JOBS`. */
export const handler = (event: unknown, context: Context): Promise<SweepReport> => {
  built ??= sweeperHandler(
    definitionsFromEnvironment(process.env[SWEEPER_JOBS_ENV]).map((d) => ({
      job: d.definition,
      expression: d.expression,
    })),
  );
  return built(event, context);
};
