/**
 * What each job definition will do before it deploys (`checkJobs`, `cronfence check`): expression and
 * zone, the next occurrences (local, UTC, business date), the zone's DST transitions of the next 12
 * months with what each does to the job, and every warning and error of the one job schema and
 * `checkJob` (lib/core/job-check.ts), the same checks `cdk synth` runs. Reads nothing from AWS.
 */
import { checkJob, type Finding, type JobCheck } from '../lib/core/job-check.js';
import type { ProviderTraits } from '../lib/core/overlap-check.js';
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
 * The effect providers a jobs module exports (objects with a `name`, a boolean `idempotencyKeys` and a
 * `send` function): what the overlap warnings know of the effects its jobs send.
 */
export function providersOf(mod: Record<string, unknown>): ProviderTraits[] {
  return Object.values(mod).flatMap((v) => {
    const p = v as { name?: unknown; idempotencyKeys?: unknown; send?: unknown; lookup?: unknown } | null;
    if (typeof p !== 'object' || p === null) return [];
    if (typeof p.name !== 'string' || typeof p.idempotencyKeys !== 'boolean' || typeof p.send !== 'function')
      return [];
    return [{ name: p.name, idempotencyKeys: p.idempotencyKeys, lookup: typeof p.lookup === 'function' }];
  });
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
): Promise<{ registry: JobRegistry; providers?: ProviderTraits[] } | { refused: Finding; source: string }> {
  if (!jobsFlag) {
    const source = sourceOf(defaults);
    if (typeof defaults !== 'function') return { registry: registryOf(defaults, source) };
    try {
      const registry = registryOf(await defaults(), source);
      const mod = defaults.exports?.();
      return mod ? { registry, providers: providersOf(mod) } : { registry };
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
  return { registry: registryOf(list, jobsFlag), providers: providersOf(mod) };
}

/**
 * Check jobs as of `nowMs`.
 * @param only one job's name, or every job of the registry.
 * @param providers the effect providers the jobs' module exports (for the overlap warnings). @default none
 * @throws InvalidArgumentError (exit 2) for a job the registry does not know.
 */
export function checkRegistry(
  registry: JobRegistry,
  nowMs: number,
  only?: string,
  providers?: readonly ProviderTraits[],
): CheckReport {
  const handlers = only === undefined ? [...registry.jobs.values()] : [requireJob(registry, only)];
  return {
    now: new Date(nowMs).toISOString(),
    source: registry.source,
    jobs: handlers.map((h) => checkJob(h.job, nowMs, 5, providers ? { providers } : {})),
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
    : checkRegistry(loaded.registry, nowMs, only, loaded.providers);
}
