/**
 * The jobs the CLI knows: the app's registry (functions/index.ts, loaded by bin/cronfence.ts only when a
 * command needs it) or the user's own module via `--jobs ./path/to/jobs.ts`, which exports `jobs` (a
 * `defineRegistry` list), `handlers` (a record or array of `defineJob` handlers) or a default export
 * of either shape. A module that fails to load (a broken job definition) is bad input: exit 2 with
 * its message, never a stack trace.
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
export type HandlerList =
  | Readonly<Record<string, JobHandler>>
  | readonly JobHandler[]
  | readonly { readonly handler: JobHandler }[];

/** The default jobs: a list, or a loader (an `import()` of the registry module) called when needed. */
export type HandlerSource = HandlerList | (() => Promise<HandlerList>);

/** Where the default registry lives (for messages). */
export const DEFAULT_REGISTRY = 'functions/index.ts';

/** Add `--jobs <module>` to a command. */
export function withJobsOption(cmd: Command): Command {
  return cmd.option(
    '--jobs <module>',
    'module exporting `jobs` (a defineRegistry list) or `handlers` (defineJob handlers) (default: functions/index.ts)',
  );
}

function isHandler(h: unknown): h is JobHandler {
  return typeof h === 'function' && typeof (h as JobHandler).job?.name === 'string';
}

/** Build a registry from a record or array of handlers. @throws InvalidArgumentError for a non-handler entry */
export function registryOf(list: HandlerList, source: string): JobRegistry {
  const jobs = new Map<string, JobHandler>();
  const items: unknown[] = Array.isArray(list) ? list : Object.values(list);
  for (const item of items) {
    const h = isHandler(item) ? item : (item as { handler?: unknown } | undefined)?.handler;
    if (!isHandler(h)) throw usage('--jobs', source, 'exports something that is not a defineJob handler');
    jobs.set(h.job.name, h);
  }
  return { jobs, source };
}

/**
 * Load the registry: `--jobs` module if given, else the default list.
 * @throws InvalidArgumentError naming `--jobs` when the module cannot be loaded or exports no handlers.
 */
/** Import the module `--jobs <file>` names. @throws what its import throws (each caller explains it). */
export async function importJobsFile(jobsFlag: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(resolve(jobsFlag)).href)) as Record<string, unknown>;
}

/**
 * The handler list a jobs module exports: `jobs` (a defineRegistry list), `handlers` (a record or
 * array of defineJob handlers) or a default export of either.
 * @throws UsageError naming `--jobs` and the file when it exports none.
 */
export function handlerListOf(mod: Record<string, unknown>, jobsFlag: string): HandlerList {
  const list = (mod.jobs ?? mod.handlers ?? mod.default) as HandlerList | undefined;
  if (!list || typeof list !== 'object') {
    throw usage(
      '--jobs',
      jobsFlag,
      'must export `jobs` (a defineRegistry list), `handlers` (a record or array of defineJob handlers) or a default export of either',
    );
  }
  return list;
}

export async function loadRegistry(
  jobsFlag: string | undefined,
  defaults: HandlerSource,
): Promise<JobRegistry> {
  if (!jobsFlag) {
    if (typeof defaults !== 'function') return registryOf(defaults, DEFAULT_REGISTRY);
    return registryOf(await loadOrExplain(DEFAULT_REGISTRY, defaults), DEFAULT_REGISTRY);
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importJobsFile(jobsFlag);
  } catch (err) {
    throw usage('--jobs', jobsFlag, `cannot be imported: ${(err as Error).message}`);
  }
  const list = handlerListOf(mod, jobsFlag);
  return registryOf(list, jobsFlag);
}

/**
 * Call a loader of the app's modules (its registry, its `npm start` app), turning a failure to load
 * (a job definition that throws at import) into bad input naming the module and the job.
 * @throws InvalidArgumentError `invalid <what> "<module>": cannot be loaded: <message>` (exit 2).
 */
export async function loadOrExplain<T>(module: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw usage(
      'jobs',
      module,
      `cannot be loaded: ${(err as Error).message}; fix that job file (\`npx cdk synth\` reports the same)`,
    );
  }
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
