/**
 * The jobs the CLI knows: the example registry (functions/index.ts `handlers`, passed in by
 * bin/cronfence.ts) or the user's own module via `--jobs ./path/to/jobs.ts`, which exports
 * `handlers` (a record or array of `defineJob` handlers) or a default export of the same shape.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { usage } from './output.js';

/** Handlers by job name, and where they came from (for messages). */
export interface JobRegistry {
  readonly jobs: ReadonlyMap<string, JobHandler>;
  readonly source: string;
}

/** The shapes a registry module may export. */
export type HandlerList = Readonly<Record<string, JobHandler>> | readonly JobHandler[];

/** Add `--jobs <module>` to a command. */
export function withJobsOption(cmd: Command): Command {
  return cmd.option(
    '--jobs <module>',
    'module exporting `handlers` (your defineJob handlers) (default: the example jobs in functions/index.ts)',
  );
}

function isHandler(h: unknown): h is JobHandler {
  return typeof h === 'function' && typeof (h as JobHandler).job?.name === 'string';
}

/** Build a registry from a record or array of handlers. @throws InvalidArgumentError for a non-handler entry */
export function registryOf(list: HandlerList, source: string): JobRegistry {
  const jobs = new Map<string, JobHandler>();
  for (const h of Array.isArray(list) ? list : Object.values(list)) {
    if (!isHandler(h)) throw usage('--jobs', source, 'exports something that is not a defineJob handler');
    jobs.set(h.job.name, h);
  }
  return { jobs, source };
}

/**
 * Load the registry: `--jobs` module if given, else the default list.
 * @throws InvalidArgumentError naming `--jobs` when the module cannot be loaded or exports no handlers.
 */
export async function loadRegistry(
  jobsFlag: string | undefined,
  defaults: HandlerList,
): Promise<JobRegistry> {
  if (!jobsFlag) return registryOf(defaults, 'functions/index.ts');
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(jobsFlag)).href)) as Record<string, unknown>;
  } catch (err) {
    throw usage('--jobs', jobsFlag, `cannot be imported: ${(err as Error).message}`);
  }
  const list = (mod.handlers ?? mod.default) as HandlerList | undefined;
  if (!list || typeof list !== 'object') {
    throw usage('--jobs', jobsFlag, 'must export `handlers` (a record or array of defineJob handlers)');
  }
  return registryOf(list, jobsFlag);
}

/** The handler of a job. @throws InvalidArgumentError naming `<job>` and the known jobs (exit 2). */
export function requireJob(registry: JobRegistry, name: string): JobHandler {
  const h = registry.jobs.get(name);
  if (!h) {
    const known = [...registry.jobs.keys()].map((k) => `"${k}"`).join(', ') || '(none)';
    throw usage(
      '<job>',
      name,
      `is not a job in ${registry.source} (known: ${known}); point --jobs at the module exporting your handlers`,
    );
  }
  return h;
}
