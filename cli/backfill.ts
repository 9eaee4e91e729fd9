/**
 * `cronfence backfill <job> --from D --to D --requested-by NAME --reason TEXT`: re-run a job's real
 * slots in a range as manual runs (the deployed function, asynchronously, or the local handler with
 * `--local`), with a progress bar, then a summary read from the run records the runs wrote.
 */
import { randomUUID } from 'node:crypto';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { intArg } from './args.js';
import { defaultFunctionName, type Invoker, lambdaInvoker, localInvoker } from './backfill-invoke.js';
import { planBackfill } from './backfill-plan.js';
import { executeBackfill } from './backfill-run.js';
import {
  type BackfillRow,
  backfillRecords,
  countOutcomes,
  type PlannedRun,
  summarize,
} from './backfill-summary.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import { action, cell, ExitCode, iso, out, table, toJson, usage } from './output.js';
import { type HandlerList, loadRegistry, requireJob, withJobsOption } from './registry.js';

interface BackfillFlags extends ConnectionFlags {
  readonly from: string;
  readonly to: string;
  readonly concurrency: number;
  readonly dryRun?: boolean;
  readonly requestedBy: string;
  readonly reason: string;
  readonly yes?: boolean;
  readonly local?: boolean;
  readonly function?: string;
  readonly wait?: number;
  readonly jobs?: string;
}

function text(flag: string, value: string, max: number): string {
  const v = value.trim();
  if (v.length === 0 || v.length > max) throw usage(flag, value, `must be 1 to ${max} characters`);
  return v;
}

function rowsTable(rows: readonly BackfillRow[]): string {
  return table(rows, [
    { header: 'SLOT', cell: (r) => r.slot },
    ...(rows.some((r) => r.shard !== undefined)
      ? [{ header: 'SHARD', cell: (r: BackfillRow) => cell(r.shard) }]
      : []),
    { header: 'SCHEDULED', cell: (r) => r.scheduledTime },
    { header: 'OUTCOME', cell: (r) => r.outcome },
    { header: 'REASON', cell: (r) => cell(r.reason) },
    { header: 'FENCE', cell: (r) => cell(r.fence) },
    { header: 'ATTEMPTS', cell: (r) => String(r.attempts) },
    { header: 'RUN ID', cell: (r) => cell(r.runId) },
    { header: 'ERROR', cell: (r) => cell(r.error) },
  ]);
}

/** Register `backfill` on the program. @param defaults the job registry used without `--jobs`. */
export function registerBackfill(program: Command, defaults: HandlerList): void {
  const cmd = program
    .command('backfill')
    .argument('<job>', 'job name')
    .description("Re-run a job's past slots in a range as manual runs, then summarize their run records")
    .requiredOption(
      '--from <date>',
      "first slot: yyyy-mm-dd (a whole day in the job's zone), a local slot time yyyy-mm-ddTHH:mm, or an ISO instant",
    )
    .requiredOption('--to <date>', 'last slot (inclusive), same forms as --from')
    .requiredOption('--requested-by <name>', 'who asks for the re-run (recorded on every run record)')
    .requiredOption('--reason <text>', 'why (recorded on every run record)')
    .option(
      '--concurrency <n>',
      "leases worked at once (a sharded job's shards); a lease runs its slots one at a time",
      intArg('--concurrency', 1, 100),
      4,
    )
    .option('--dry-run', 'list the slots that would run; invoke nothing')
    .option('--yes', 'allow more than 1,000 slots')
    .option('--local', "run the job's handler in this process instead of invoking the deployed function")
    .option('--function <name|arn>', 'deployed function to invoke (default: cronfence-<job>)')
    .option(
      '--wait <seconds>',
      "asynchronous invocations: how long to wait for each slot's run record before sending the next (default: the job's timeout + 60)",
      intArg('--wait', 0, 3600),
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    action(async (job: string, flags: BackfillFlags) => {
      const handler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      const requestedBy = text('--requested-by', flags.requestedBy, 128);
      const reason = text('--reason', flags.reason, 1024);
      const startedAtMs = Date.now();
      const plan = planBackfill(
        handler.job,
        handler.expression,
        { from: flags.from, to: flags.to, yes: Boolean(flags.yes) },
        startedAtMs,
      );
      const shards = handler.job.shards > 1 ? [...Array(handler.job.shards).keys()] : [undefined];
      const planned: PlannedRun[] = plan.slots.flatMap((slot) =>
        shards.map((shard) => ({ slot, ...(shard !== undefined && { shard }) })),
      );
      const later = plan.laterToday > 0 ? ` (${plan.laterToday} later slot(s) today not included)` : '';
      if (flags.dryRun) {
        const slots = plan.slots.map((s) => ({
          slot: s.id,
          scheduledTime: iso(s.scheduledTimeMs),
          businessDate: s.businessDate,
          ...(s.shifted && { shifted: true }),
        }));
        if (flags.json)
          out(
            toJson({
              job,
              dryRun: true,
              count: slots.length,
              shards: shards.length,
              laterToday: plan.laterToday,
              slots,
            }),
          );
        else {
          out(
            `Dry run: ${slots.length} slot(s) of ${job} (${handler.job.schedule}, ${handler.job.timeZone})${later}; nothing invoked.`,
          );
          out(
            table(slots, [
              { header: 'SLOT', cell: (s) => s.slot },
              { header: 'SCHEDULED', cell: (s) => s.scheduledTime },
              { header: 'BUSINESS DATE', cell: (s) => s.businessDate },
              {
                header: 'NOTE',
                cell: (s) => (s.shifted ? 'DST gap: runs at the first instant after it' : ''),
              },
            ]),
          );
        }
        return ExitCode.Ok;
      }
      const conn = await connect(flags);
      let invoker: Invoker | undefined;
      try {
        invoker = flags.local
          ? localInvoker(conn, handler)
          : await lambdaInvoker(conn, flags.function ?? defaultFunctionName(job));
        const send = invoker;
        const bar =
          !flags.json && process.stderr.isTTY
            ? new SingleBar({
                format: `backfill ${job} [{bar}] {value}/{total} {last}`,
                hideCursor: true,
                stream: process.stderr,
              })
            : undefined;
        bar?.start(planned.length, 0, { last: '' });
        const request = { job, by: requestedBy, reason, backfillId: `backfill-${randomUUID()}` };
        const sendErrors = await executeBackfill({
          conn,
          invoker: send,
          request,
          planned,
          concurrency: flags.concurrency,
          waitPerSlotMs: (flags.wait ?? handler.job.timeoutSeconds + 60) * 1000,
          onProgress: (p, status) => bar?.increment(1, { last: `${p.slot.id} ${status}` }),
        });
        bar?.stop();
        const rows = summarize(
          planned,
          await backfillRecords(conn.doc, conn.tableName, job, planned, request),
          sendErrors,
        );
        const counts = countOutcomes(rows);
        if (flags.json) {
          out(
            toJson({
              job,
              backfillId: request.backfillId,
              requestedBy,
              reason,
              target: send.target,
              requested: planned.length,
              laterToday: plan.laterToday,
              counts,
              slots: rows,
            }),
          );
        } else {
          out(
            `Backfill of ${job}: ${planned.length} run(s) for ${plan.slots.length} slot(s) via ${send.target}, requested by ${requestedBy}: "${reason}"${later} [${request.backfillId}]`,
          );
          out(rowsTable(rows));
          out(
            Object.entries(counts)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          );
          if (counts.pending) out(`Still pending: check later with \`cronfence runs ${job} --since 1h\`.`);
          if (counts.skipped) {
            out(
              `Skipped slots did not run: another run held the lease (\`cronfence lease ${job}\`); re-run them after its leaseUntil.`,
            );
          }
        }
        // Exit 0 only when every requested run succeeded (skipped, failed, stale, pending or unsent: 1).
        return rows.every((r) => r.outcome === 'succeeded') ? ExitCode.Ok : ExitCode.Failure;
      } finally {
        invoker?.close();
        conn.close();
      }
    }),
  );
}
