/**
 * `cronfence jobs` (`Operator.jobs`): one table of every job — schedule, zone, overlap policy, pause (with its note),
 * next occurrence (local and UTC), last occurrence with its outcome and reason, the lease holder if
 * held, how many slots wait in its buffer (overlap buffer-*), and the count of problem records in the
 * last 7 days.
 */
import type { Command } from 'commander';
import type { JobRow } from '../operate/jobs.js';
import type { HandlerSource } from '../operate/registry.js';
import { type OperatorFlags, operatorAction, withConnectionOptions, withJobsOption } from './command.js';
import { cell, table } from './output.js';

/** Every job's overview as `cronfence jobs` prints it: one row per job. */
export function jobsText(rows: readonly JobRow[]): string {
  return table(rows, [
    { header: 'JOB', cell: (r) => r.job },
    { header: 'SCHEDULE', cell: (r) => r.schedule, max: 32 },
    { header: 'ZONE', cell: (r) => r.timeZone },
    { header: 'OVERLAP', cell: (r) => r.overlap },
    { header: 'PAUSED', cell: (r) => (r.paused ? `${r.paused.by}: ${r.paused.note}` : '-'), max: 40 },
    { header: 'NEXT (LOCAL)', cell: (r) => cell(r.next?.local) },
    { header: 'NEXT (UTC)', cell: (r) => cell(r.next?.utc) },
    {
      header: 'LAST',
      cell: (r) =>
        r.last ? `${r.last.slot} ${r.last.outcome}${r.last.reason ? `/${r.last.reason}` : ''}` : '-',
    },
    {
      header: 'HOLDER',
      cell: (r) => (r.holder ? `${r.holder.runId} (fence ${r.holder.fence})` : '-'),
    },
    // Overlap buffer-*: how many slots wait on the job's lease to run after its holder.
    { header: 'WAITING', cell: (r) => (r.waiting.length > 0 ? String(r.waiting.length) : '-') },
    { header: 'PROBLEMS 7D', cell: (r) => String(r.problems7d) },
  ]);
}

/** Register `jobs`. @param defaults the job registry used without `--jobs`. */
export function registerJobs(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('jobs')
    .description(
      'List every job: schedule, pause, next and last occurrence, lease holder, problems in 7 days',
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    operatorAction(defaults, async (ops, _flags: OperatorFlags) => {
      const rows = await ops.jobs();
      return {
        json: rows,
        text: () => jobsText(rows),
      };
    }),
  );
}
