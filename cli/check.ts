/**
 * `cronfence check [job] [--jobs <module>] [--json] [--now <instant>]`: what each job definition will
 * do before it deploys — expression and zone, the next occurrences (local, UTC, business date), the
 * zone's DST transitions of the next 12 months with what each does to the job, and every warning and
 * error of the one job schema and `checkJob` (lib/core/job-check.ts), the same checks `cdk synth` runs.
 * Exit 0: no errors (warnings allowed); 1: a definition is refused; 2: bad usage (module, job, flag).
 * Reads nothing from AWS (`checkJobs` of the operator API).
 */
import type { Command } from 'commander';
import type { JobCheck } from '../lib/core/job-check.js';
import { checkJobs } from '../operate/check.js';
import type { HandlerSource } from '../operate/registry.js';
import { instantArg } from './args.js';
import { operatorAction, withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { table } from './output.js';

interface CheckFlags {
  readonly jobs?: string;
  readonly json?: boolean;
  readonly now?: number;
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
  if (c.overlap) lines.push(`  overlap ${c.overlap.consequence}`);
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
    operatorAction(defaults, async (_ops, flags: CheckFlags, job: string | undefined) => {
      const report = await checkJobs(flags.jobs, defaults, flags.now ?? Date.now(), job);
      const refused = report.errors.length > 0 || report.jobs.some((c) => c.errors.length > 0);
      return {
        json: report,
        text: () =>
          [
            `cronfence check: ${report.source} as of ${report.now}\n`,
            ...report.jobs.map((c) => `${renderJobCheck(c)}\n`),
            ...report.errors.map((e) => `REFUSED (${report.source}): ${e.message}`),
          ].join('\n'),
        exitCode: refused ? ExitCode.Failure : ExitCode.Ok,
      };
    }),
  );
}
