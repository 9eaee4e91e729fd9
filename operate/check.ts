/**
 * What each job definition will do before it deploys (`checkJobs`, `cronfence check`): expression and
 * zone, the next occurrences (local, UTC, business date), the zone's DST transitions of the next 12
 * months with what each does to the job, and every warning and error of the one job schema and
 * `checkJob` (lib/core/job-check.ts), the same checks `cdk synth` runs. Reads nothing from AWS.
 */
import { checkJob, type Finding, type JobCheck } from '../lib/core/job-check.js';
import { CronfenceError, ErrorCode, InvalidArgumentError } from '../lib/errors.js';
import { usage } from './input.js';
import {
  type HandlerSource,
  handlerListOf,
  importJobsFile,
  type JobRegistry,
  registryOf,
  requireJob,
  sourceOf,
} from './registry.js';

/** What `cronfence check --json` prints. */
export interface CheckReport {
  /** The instant checked from, ISO-8601 UTC. */
  readonly now: string;
  /** The module the jobs came from: the `--jobs` module, the project's configured one, or `functions/index.ts`. */
  readonly source: string;
  readonly jobs: readonly JobCheck[];
  /** Refusals raised while loading the module (a `defineJob` that threw at import). */
  readonly errors: readonly Finding[];
}

const DEFINITION_CODES: readonly string[] = [ErrorCode.InvalidJobDefinition, ErrorCode.InvalidSchedule];

/** A module whose import failed because `defineJob` refused a definition in it (not a usage error). */
function refusal(err: unknown): Finding | undefined {
  return err instanceof CronfenceError && DEFINITION_CODES.includes(err.code)
    ? { code: 'definition', message: err.message }
    : undefined;
}

/**
 * Load the jobs to check: a module whose import fails because `defineJob` refused a definition in it
 * is a finding (the check's result), not bad input.
 * @param jobsFlag the `--jobs` module, else `defaults`.
 * @throws InvalidArgumentError naming `--jobs` when the module cannot be imported for another reason.
 */
export async function loadForCheck(
  jobsFlag: string | undefined,
  defaults: HandlerSource,
): Promise<{ registry: JobRegistry } | { refused: Finding; source: string }> {
  if (!jobsFlag) {
    const source = sourceOf(defaults);
    if (typeof defaults !== 'function') return { registry: registryOf(defaults, source) };
    try {
      return { registry: registryOf(await defaults(), source) };
    } catch (err) {
      const refused = refusal(err);
      if (refused) return { refused, source };
      if (err instanceof InvalidArgumentError) throw err;
      throw usage('--jobs', source, `cannot be imported: ${(err as Error).message}`);
    }
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importJobsFile(jobsFlag);
  } catch (err) {
    const refused = refusal(err);
    if (refused) return { refused, source: jobsFlag };
    if (err instanceof InvalidArgumentError) throw err;
    throw usage('--jobs', jobsFlag, `cannot be imported: ${(err as Error).message}`);
  }
  const list = handlerListOf(mod, jobsFlag);
  return { registry: registryOf(list, jobsFlag) };
}

/**
 * Check jobs as of `nowMs`.
 * @param only one job's name, or every job of the registry.
 * @throws InvalidArgumentError (exit 2) for a job the registry does not know.
 */
export function checkRegistry(registry: JobRegistry, nowMs: number, only?: string): CheckReport {
  const handlers = only === undefined ? [...registry.jobs.values()] : [requireJob(registry, only)];
  return {
    now: new Date(nowMs).toISOString(),
    source: registry.source,
    jobs: handlers.map((h) => checkJob(h.job, nowMs)),
    errors: [],
  };
}

/**
 * Check the jobs of `jobsFlag` (else `defaults`) as of `nowMs`; a module refused at import gives a
 * report with that refusal in `errors` and no jobs.
 * @param only one job's name, or every job.
 * @throws InvalidArgumentError for a module that cannot be imported or a job it does not have.
 */
export async function checkJobs(
  jobsFlag: string | undefined,
  defaults: HandlerSource,
  nowMs: number,
  only?: string,
): Promise<CheckReport> {
  const loaded = await loadForCheck(jobsFlag, defaults);
  return 'refused' in loaded
    ? { now: new Date(nowMs).toISOString(), source: loaded.source, jobs: [], errors: [loaded.refused] }
    : checkRegistry(loaded.registry, nowMs, only);
}
