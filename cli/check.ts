/**
 * `cronfence check [job] [--jobs <module>] [--json] [--now <instant>]`: what each job definition will
 * do before it deploys — expression and zone, the next occurrences (local, UTC, business date), the
 * zone's DST transitions of the next 12 months with what each does to the job, and every warning and
 * error of the one job schema and `checkJob` (lib/core/job-check.ts), the same checks `cdk synth` runs.
 * Exit 0: no errors (warnings allowed); 1: a definition is refused; 2: bad usage (module, job, flag).
 * Reads nothing from AWS.
 */
import type { Command } from 'commander';
import { checkJob, type Finding, type JobCheck } from '../lib/core/job-check.js';
import { CronfenceError, ErrorCode, InvalidArgumentError } from '../lib/errors.js';
import { instantArg } from './args.js';
import { action, ExitCode, out, table, toJson, usage } from './output.js';
import {
  type HandlerSource,
  handlerListOf,
  importJobsFile,
  type JobRegistry,
  registryOf,
  requireJob,
  sourceOf,
  withJobsOption,
} from './registry.js';

interface CheckFlags {
  readonly jobs?: string;
  readonly json?: boolean;
  readonly now?: number;
}

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

async function load(
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

function section(title: string, lines: readonly string[], empty: string): string[] {
  return [`  ${title}:`, ...(lines.length > 0 ? lines.map((l) => `    ${l}`) : [`    ${empty}`])];
}

/** The human report of one job. */
export function renderJobCheck(c: JobCheck): string {
  const rule =
    c.businessDate === 'previous-day'
      ? 'business date: the local date before each slot (previous-day)'
      : 'business date: the local date of each slot';
  const lines = [`${c.job}  ${c.schedule}  ${c.timeZone}`, `  ${rule}`];
  if (c.errors.length === 0) {
    const next = table(c.next, [
      { header: 'local', cell: (o) => `${o.local}${o.shifted ? ' (shifted)' : ''}` },
      { header: 'UTC', cell: (o) => o.utc },
      { header: 'business date', cell: (o) => o.businessDate },
      { header: 'slot', cell: (o) => o.slot },
    ]).split('\n');
    lines.push(
      ...section(
        `next ${c.next.length} occurrences`,
        c.next.length > 0 ? next : [],
        'none: it never fires again',
      ),
    );
    lines.push(
      ...section(
        'DST transitions, next 12 months',
        c.transitions.map(
          (t) => `${t.utc}  ${t.kind === 'gap' ? 'clocks forward' : 'clocks back'}  ${t.local}: ${t.effect}`,
        ),
        `none: ${c.timeZone} does not change its UTC offset in the next 12 months`,
      ),
    );
  }
  lines.push(
    ...section(
      'warnings',
      c.warnings.map((w) => `[${w.code}] ${w.message}`),
      'none',
    ),
  );
  if (c.errors.length > 0)
    lines.push(
      ...section(
        'REFUSED',
        c.errors.map((e) => e.message),
        '',
      ),
    );
  return lines.join('\n');
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

/** Register `cronfence check`. */
export function registerCheck(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('check [job]')
    .description(
      'check job definitions before deploying: next occurrences, DST transitions and what they do, warnings and errors ' +
        '(exit 0 ok or warnings, 1 a definition is refused, 2 bad usage)',
    )
    .option('--json', 'print JSON')
    .option(
      '--now <instant>',
      'check as of this instant (yyyy-mm-dd UTC or ISO-8601) (default: now)',
      instantArg('--now'),
    );
  withJobsOption(cmd).action(
    action(async (job: string | undefined, flags: CheckFlags) => {
      const nowMs = flags.now ?? Date.now();
      const loaded = await load(flags.jobs, defaults);
      const report: CheckReport =
        'refused' in loaded
          ? { now: new Date(nowMs).toISOString(), source: loaded.source, jobs: [], errors: [loaded.refused] }
          : checkRegistry(loaded.registry, nowMs, job);
      if (flags.json) out(toJson(report));
      else {
        out(`cronfence check: ${report.source} as of ${report.now}\n`);
        for (const c of report.jobs) out(`${renderJobCheck(c)}\n`);
        for (const e of report.errors) out(`REFUSED (${report.source}): ${e.message}`);
      }
      const refused = report.errors.length > 0 || report.jobs.some((c) => c.errors.length > 0);
      return refused ? ExitCode.Failure : ExitCode.Ok;
    }),
  );
}
