/**
 * The jobs the CLI knows: the project's jobs module (`jobs` in cronfence.config.json or package.json's
 * `cronfence` key), this repository's example registry (functions/index.ts) when none is configured,
 * or the module `--jobs ./path/to/jobs.ts` names. A jobs module exports `jobs` (a `defineRegistry`
 * list), `handlers` (a record or array of `defineJob` handlers) or a default export of either shape;
 * it may be JavaScript or TypeScript (a `.ts` module is loaded through the project's `tsx`). A module
 * that fails to load (a broken job definition) is bad input: exit 2 with its message, never a stack
 * trace. Loaders are called only when a command needs the jobs.
 */
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError } from '../lib/errors.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { usage } from './input.js';

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

/** A loader of the default jobs (an `import()` of the jobs module), and the module's name for messages. */
export type HandlerLoader = (() => Promise<HandlerList>) & {
  /** The module it loads, as messages name it. @default {@link DEFAULT_REGISTRY} */
  readonly source?: string;
  /** The module's exports once loaded (what `check` scans for effect providers). @default unknown */
  readonly exports?: () => Record<string, unknown> | undefined;
};

/** The default jobs: a list, or a loader called when a command needs them. */
export type HandlerSource = HandlerList | HandlerLoader;

/** The module the default jobs come from, as messages name it. */
export function sourceOf(defaults: HandlerSource): string {
  return (typeof defaults === 'function' && defaults.source) || DEFAULT_REGISTRY;
}

/** Where the default registry lives (for messages). */
export const DEFAULT_REGISTRY = 'functions/index.ts';

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

/** File names node cannot import without a TypeScript loader. */
const TYPESCRIPT_MODULE = /\.[cm]?tsx?$/;

/** True when this module runs from its TypeScript source (under tsx or vitest): `.ts` imports work. */
const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

let tsxRegistered: Promise<boolean> | undefined;

/**
 * Register tsx's ESM loader for the rest of the process (once), so a TypeScript jobs module and what it
 * imports (`./nightly.js` for `./nightly.ts`, as tsc resolves it) load as tsc compiles them. Resolved
 * from this package, which an installed cronfence finds in the project's node_modules.
 * @returns false when tsx is not installed.
 */
function registerTsx(): Promise<boolean> {
  tsxRegistered ??= import('tsx/esm/api').then(
    (api) => {
      api.register();
      return true;
    },
    () => false,
  );
  return tsxRegistered;
}

/**
 * Import a jobs module: JavaScript as it is; TypeScript (`.ts`, `.mts`, `.cts`, `.tsx`) through tsx
 * when the CLI runs as compiled JavaScript (the installed package).
 * @throws InvalidArgumentError naming `option` and the file when it is TypeScript and tsx is not
 *   installed; otherwise what its import throws (each caller explains it).
 */
export async function importJobsFile(file: string, option = '--jobs'): Promise<Record<string, unknown>> {
  const url = pathToFileURL(resolve(file)).href;
  if (TYPESCRIPT_MODULE.test(file) && !RUNNING_FROM_SOURCE && !(await registerTsx())) {
    throw usage(
      option,
      file,
      'is TypeScript, which node does not import by itself: install tsx in the project (`npm install --save-dev tsx`) so cronfence loads it through tsx, or point at the compiled module (e.g. ./dist/src/jobs.js after `npx tsc`)',
    );
  }
  return (await import(url)) as Record<string, unknown>;
}

/**
 * The loader of a project's configured jobs module (operate/config.ts `jobs`, an absolute path), named in
 * messages by its path relative to `cwd`.
 */
export function projectJobs(file: string, cwd: string = process.cwd()): HandlerLoader {
  const source = relative(cwd, file) || file;
  let loaded: Record<string, unknown> | undefined;
  const load = async () => {
    loaded = await importJobsFile(file, 'jobs');
    return handlerListOf(loaded, source, 'jobs');
  };
  return Object.assign(load, { source, exports: () => loaded });
}

/**
 * The handler list a jobs module exports: `jobs` (a defineRegistry list), `handlers` (a record or
 * array of defineJob handlers) or a default export of either.
 * @throws UsageError naming `--jobs` and the file when it exports none.
 */
export function handlerListOf(
  mod: Record<string, unknown>,
  jobsFlag: string,
  option = '--jobs',
): HandlerList {
  const list = (mod.jobs ?? mod.handlers ?? mod.default) as HandlerList | undefined;
  if (!list || typeof list !== 'object') {
    throw usage(
      option,
      jobsFlag,
      'must export `jobs` (a defineRegistry list), `handlers` (a record or array of defineJob handlers) or a default export of either',
    );
  }
  return list;
}

/**
 * Load the registry: `--jobs` module if given, else the default list.
 * @throws InvalidArgumentError naming `--jobs` when the module cannot be loaded or exports no handlers.
 */
export async function loadRegistry(
  jobsFlag: string | undefined,
  defaults: HandlerSource,
): Promise<JobRegistry> {
  if (!jobsFlag) {
    const source = sourceOf(defaults);
    if (typeof defaults !== 'function') return registryOf(defaults, source);
    return registryOf(await loadOrExplain(source, defaults), source);
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
    if (err instanceof InvalidArgumentError) throw err; // already names the module and the fix
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
