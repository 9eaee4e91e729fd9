/**
 * Find a job's handler in a jobs module, for runtimes that start from a module name rather than a bundled
 * handler (the ECS task entry). A jobs module exports what the CLI and the CDK app read: `jobs` (a
 * `defineRegistry` list), `handlers` (a record or array of `defineJob` handlers) or a default export of
 * either (functions/index.ts exports both).
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigurationError } from '../errors.js';
import type { JobHandler } from './define-job.js';

/** The shapes a jobs module may export. */
export type JobsExport =
  | Readonly<Record<string, JobHandler>>
  | readonly JobHandler[]
  | readonly { readonly handler: JobHandler }[];

function isHandler(h: unknown): h is JobHandler {
  return typeof h === 'function' && typeof (h as JobHandler).job?.name === 'string';
}

/** The handlers of a jobs module's export (entries that are not handlers are left out). */
export function handlersOf(list: JobsExport): JobHandler[] {
  const items: unknown[] = Array.isArray(list) ? list : Object.values(list);
  return items.flatMap((item) => {
    const h = isHandler(item) ? item : (item as { handler?: unknown } | undefined)?.handler;
    return isHandler(h) ? [h] : [];
  });
}

/**
 * Import a jobs module: a path (absolute, or relative to `cwd`: `./dist/src/jobs.js`) or a package
 * specifier (`my-app/jobs`). A `.ts` path needs a TypeScript loader in the process (`node --import tsx`).
 * @param variable - the environment variable the specifier came from, named in errors.
 * @throws ConfigurationError naming `variable` and the specifier when it cannot be imported or exports
 *   no `jobs`, `handlers` or default list.
 */
export async function importJobs(
  specifier: string,
  variable: string,
  cwd = process.cwd(),
): Promise<JobHandler[]> {
  const path = specifier.startsWith('.') || isAbsolute(specifier);
  const url = path ? pathToFileURL(resolve(cwd, specifier)).href : specifier;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (cause) {
    throw new ConfigurationError(variable, specifier, `cannot be imported: ${(cause as Error).message}`, {
      cause,
    });
  }
  const list = (mod.jobs ?? mod.handlers ?? mod.default) as JobsExport | undefined;
  if (!list || typeof list !== 'object') {
    throw new ConfigurationError(
      variable,
      specifier,
      'must export `jobs` (a defineRegistry list), `handlers` (defineJob handlers) or a default export of either',
    );
  }
  return handlersOf(list);
}

/**
 * The handler of the job named `name` (its name or its `id`).
 * @throws ConfigurationError naming `variable`, the name and the jobs the module knows.
 */
export function findJob(
  handlers: readonly JobHandler[],
  name: string,
  variable: string,
  source: string,
): JobHandler {
  const h = handlers.find((x) => x.job.name === name || x.job.id === name);
  if (h) return h;
  const known = handlers.map((x) => `"${x.job.name}"`).join(', ') || '(none)';
  throw new ConfigurationError(variable, name, `is not a job of ${source} (known: ${known})`);
}
