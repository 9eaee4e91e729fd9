/**
 * `cronfence/sweeper`: the sweeper Lambda entry the CDK `Sweeper` construct bundles by default, so a
 * project writes no sweeper of its own. It imports no job code: the construct compiles the jobs'
 * definitions into this bundle (esbuild `define` of `__CRONFENCE_SWEEPER_DEFINITIONS__`, validated
 * here with the same job schema `defineJob` runs), and `CRONFENCE_JOBS` names the function to invoke
 * for a missed slot of each.
 */
import type { Context } from 'aws-lambda';
import { ConfigurationError } from '../core/input-errors.js';
import type { JobDefinition } from '../core/job-definition.js';
import { validateJob } from '../runtime/define-job.js';
import type { SweepReport } from '../runtime/sweeper.js';
import { SWEEPER_DEFINITIONS_CONSTANT, sweeperHandler } from '../runtime/sweeper-handler.js';

/** Replaced by the bundler (see {@link SWEEPER_DEFINITIONS_CONSTANT}); undeclared when not bundled so. */
declare const __CRONFENCE_SWEEPER_DEFINITIONS__: string | undefined;

/**
 * Decode and validate the job definitions compiled into the bundle (base64 of a JSON array).
 * @throws ConfigurationError naming `__CRONFENCE_SWEEPER_DEFINITIONS__` (or its entry `[i]`) when the
 *   bundle has none, it is not base64 JSON of an array, or an entry is not an object;
 *   InvalidJobDefinitionError / InvalidScheduleError for an invalid definition.
 */
export function compiledDefinitions(encoded: string | undefined): ReturnType<typeof validateJob>[] {
  const where = SWEEPER_DEFINITIONS_CONSTANT;
  if (encoded === undefined)
    throw new ConfigurationError(
      where,
      encoded,
      'is not defined: bundle this entry with the CDK Sweeper construct (it compiles the job definitions in)',
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch (cause) {
    throw new ConfigurationError(where, encoded, 'must be base64 of a JSON array', { cause });
  }
  if (!Array.isArray(parsed)) throw new ConfigurationError(where, encoded, 'must be base64 of a JSON array');
  return parsed.map((definition: unknown, i) => {
    if (typeof definition !== 'object' || definition === null || Array.isArray(definition))
      throw new ConfigurationError(`${where}[${i}]`, definition, 'must be a job definition object');
    return validateJob(definition as JobDefinition);
  });
}

let built: ((event: unknown, context: Context) => Promise<SweepReport>) | undefined;

/** The sweeper Lambda handler: one sweep over the jobs in `CRONFENCE_JOBS`. */
export const handler = (event: unknown, context: Context): Promise<SweepReport> => {
  built ??= sweeperHandler(
    compiledDefinitions(
      typeof __CRONFENCE_SWEEPER_DEFINITIONS__ === 'undefined'
        ? undefined
        : __CRONFENCE_SWEEPER_DEFINITIONS__,
    ).map((d) => ({ job: d.definition, expression: d.expression })),
  );
  return built(event, context);
};
