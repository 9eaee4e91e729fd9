/**
 * `cronfence runs <job>` (a job's attempts, newest slot first: `JobHandle.runs`) and `cronfence runs
 * --failed` (every problem record across jobs from the sparse `problems` index: `Operator.problems`).
 */
import type { Command } from 'commander';
import { Outcome, PROBLEM_REASONS } from '../lib/core/outcomes.js';
import { iso, usage } from '../operate/input.js';
import type { Item } from '../operate/run-queries.js';
import { checkProblemOutcomes } from '../operate/runs.js';
import { intArg, jobNameArg, listArg, sinceArg, slotArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions } from './command.js';
import { type Column, cell, table, toJson } from './output.js';

interface RunsFlags extends OperatorFlags {
  readonly slot?: string;
  readonly since?: number;
  readonly outcome?: string[];
  readonly failed?: boolean;
  readonly limit: number;
}

function note(r: Item): string {
  const err = r.error as { name?: string; message?: string } | undefined;
  if (err) return `${err.name ?? 'Error'}: ${err.message ?? ''}`;
  const holder = r.holderSeen as { runId?: string; slot?: string } | undefined;
  if (holder) return `holder ${holder.runId} (slot ${holder.slot})`;
  if (r.requestedBy) return `by ${r.requestedBy}${r.requestReason ? `: ${r.requestReason}` : ''}`;
  const details = r.details as Record<string, unknown> | undefined;
  if (r.outcome === 'abandoned' && details?.detectedBy) {
    return `never released (lease until ${iso(details.leaseUntilMs)}); found by ${details.detectedBy}`;
  }
  return details ? toJson(details).replace(/\s+/g, ' ') : '';
}

/** Columns of a run-record table; `withJob` adds the job (cross-job listings). */
export function runColumns(withJob: boolean): Column<Item>[] {
  return [
    ...(withJob ? [{ header: 'JOB', cell: (r: Item) => cell(r.job) }] : []),
    { header: 'SLOT', cell: (r) => cell(r.slot) },
    { header: 'TRIGGER', cell: (r) => cell(r.trigger) },
    { header: 'OUTCOME', cell: (r) => cell(r.outcome) },
    { header: 'REASON', cell: (r) => cell(r.reason) },
    { header: 'FENCE', cell: (r) => cell(r.fence) },
    { header: 'STARTED', cell: (r) => iso(r.startedAtMs) },
    { header: 'TOOK', cell: (r) => (typeof r.durationMs === 'number' ? `${r.durationMs}ms` : '-') },
    { header: 'RUN ID', cell: (r) => cell(r.runId) },
    { header: 'NOTE', cell: note },
  ];
}

/** Register `runs` on the program. It reads the table only: no job code is imported. */
export function registerRuns(program: Command): void {
  const cmd = program
    .command('runs')
    .argument('[job]', 'job name (optional with --failed)', jobNameArg('<job>'))
    .description(
      "List a job's run records (newest slot first), or with --failed the problem runs across jobs",
    )
    .option('--slot <slot>', 'only this slot id, or a prefix of one (e.g. 2026-03-28)', slotArg('--slot'))
    .option(
      '--since <age|date>',
      'only attempts since: 30m, 24h, 7d, a UTC date or an ISO instant',
      sinceArg('--since'),
    )
    .option(
      '--outcome <list>',
      'only these outcomes, comma-separated (running,succeeded,failed,skipped,stale,abandoned)',
      listArg('--outcome', Object.values(Outcome)),
    )
    .option(
      '--failed',
      `problem runs across jobs (sparse index \`problems\`): failed, stale, abandoned, and skipped for ${PROBLEM_REASONS.join(', ')}; --since defaults to 24h`,
    )
    .option('--limit <n>', 'at most this many records', intArg('--limit', 1, 10_000), 20);
  withConnectionOptions(cmd).action(
    operatorAction(undefined, async (ops, flags: RunsFlags, job: string | undefined) => {
      if (!flags.failed && job === undefined) {
        throw usage('<job>', '(none)', 'name a job, or pass --failed to list problem runs across jobs');
      }
      if (flags.failed) {
        checkProblemOutcomes(flags.outcome);
        if (flags.slot) throw usage('--slot', flags.slot, 'cannot be combined with --failed');
      }
      const filters = {
        ...(flags.since !== undefined && { sinceMs: flags.since }),
        ...(flags.outcome && { outcomes: flags.outcome }),
        limit: flags.limit,
      };
      const rows = flags.failed
        ? await ops.problems({ ...filters, ...(job !== undefined && { job }) })
        : await ops
            .job(job as string)
            .runs({ ...filters, ...(flags.slot !== undefined && { slot: flags.slot }) });
      const tableName = (await ops.connection()).tableName;
      return {
        json: rows,
        text: () =>
          rows.length > 0
            ? table(rows, runColumns(Boolean(flags.failed)))
            : flags.failed
              ? 'No problem runs in that window.'
              : `No run records for ${job} in table ${tableName} match.`,
      };
    }),
  );
}
