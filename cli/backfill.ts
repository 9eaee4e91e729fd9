/**
 * `cronfence backfill <job> --from D --to D --requested-by NAME --reason TEXT`: re-run a job's real
 * slots in a range as manual runs (the deployed function, asynchronously, or the local handler with
 * `--local`), with a progress bar, then a summary read from the run records the runs wrote. A range
 * reaching before the job's start (`catchUp.since`) is refused (exit 2, nothing invoked) without
 * `--before-start`.
 */
import { randomUUID } from 'node:crypto';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { BEFORE_START_FLAG, beforeStartRefusal } from '../lib/core/schedule/catch-up.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { intArg } from './args.js';
import { checkLeases } from './backfill-guard.js';
import { type Invoker, lambdaInvoker, localInvoker } from './backfill-invoke.js';
import { type BackfillPlan, laterTodayNote, planBackfill } from './backfill-plan.js';
import { type BackfillRequest, executeBackfill } from './backfill-run.js';
import {
  type BackfillRow,
  backfillRecords,
  countOutcomes,
  NEEDS_REVIEW_OUTCOME,
  type PlannedRun,
  summarize,
} from './backfill-summary.js';
import {
  type Connection,
  type ConnectionFlags,
  connect,
  libraryTableName,
  withConnectionOptions,
} from './connection.js';
import { action, cell, ExitCode, iso, out, table, textValue, toJson, usage } from './output.js';
import { type HandlerSource, loadRegistry, requireJob, withJobsOption } from './registry.js';

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
  readonly invokeAws?: boolean;
  readonly expect?: string;
  readonly beforeStart?: boolean;
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

/** Print the dry run: the slots that would run. */
function printDryRun(job: string, handler: JobHandler, plan: BackfillPlan, shards: number, json: boolean) {
  const slots = plan.slots.map((s) => ({
    slot: s.id,
    scheduledTime: iso(s.scheduledTimeMs),
    businessDate: s.businessDate,
    ...(s.shifted && { shifted: true }),
  }));
  if (json) {
    out(toJson({ job, dryRun: true, count: slots.length, shards, laterToday: plan.laterToday, slots }));
    return;
  }
  out(
    `Dry run: ${slots.length} slot(s) of ${job} (${handler.job.schedule}, ${handler.job.timeZone})${laterTodayNote(plan)}; nothing invoked.`,
  );
  out(
    table(slots, [
      { header: 'SLOT', cell: (s) => s.slot },
      { header: 'SCHEDULED', cell: (s) => s.scheduledTime },
      { header: 'BUSINESS DATE', cell: (s) => s.businessDate },
      { header: 'NOTE', cell: (s) => (s.shifted ? 'DST gap: runs at the first instant after it' : '') },
    ]),
  );
}

/**
 * Where the events go: this process (`--local`) or the deployed function. Refuses to mix a local
 * table (DynamoDB Local) with invocations of a function in AWS unless `--invoke-aws` asks for it
 * (or `AWS_ENDPOINT_URL_LAMBDA` points the Lambda client at a local emulator).
 * @throws InvalidArgumentError naming `--local`/`--invoke-aws` (exit 2) before anything is sent.
 */
export async function openInvoker(
  conn: Connection,
  job: string,
  handler: JobHandler,
  flags: Pick<BackfillFlags, 'local' | 'invokeAws' | 'function'>,
) {
  if (flags.local) return localInvoker(conn, handler);
  if (conn.mode === 'local' && !flags.invokeAws && !process.env.AWS_ENDPOINT_URL_LAMBDA) {
    throw usage(
      '--local',
      '(not given)',
      `the run records are read from DynamoDB Local (${conn.endpoint}, from ${conn.source}) but the runs would be sent to the deployed function in AWS; pass --local to run the handler here, --region/--profile to use AWS for both, or --invoke-aws to mix them on purpose`,
    );
  }
  return lambdaInvoker(conn, flags.function ?? conn.functionName(job));
}

/** Send every planned run (progress bar on a terminal) and read the summary rows back. */
async function runPlanned(
  conn: Connection,
  invoker: Invoker,
  handler: JobHandler,
  request: BackfillRequest,
  planned: readonly PlannedRun[],
  flags: BackfillFlags,
): Promise<BackfillRow[]> {
  const bar =
    !flags.json && process.stderr.isTTY
      ? new SingleBar({
          format: `backfill ${request.job} [{bar}] {value}/{total} {last}`,
          hideCursor: true,
          stream: process.stderr,
        })
      : undefined;
  bar?.start(planned.length, 0, { last: '' });
  const sendErrors = await executeBackfill({
    conn,
    invoker,
    request,
    planned,
    concurrency: flags.concurrency,
    waitPerSlotMs: (flags.wait ?? handler.job.timeoutSeconds + 60) * 1000,
    onProgress: (p, status) => bar?.increment(1, { last: `${p.slot.id} ${status}` }),
  });
  bar?.stop();
  const records = await backfillRecords(conn.doc, conn.tableName, request.job, planned, request);
  return summarize(planned, records, sendErrors);
}

/** Print the summary (table or JSON) with what to do about rows that did not plainly succeed. */
function printSummary(
  rows: readonly BackfillRow[],
  request: BackfillRequest,
  plan: BackfillPlan,
  target: string,
  json: boolean,
): void {
  const { job } = request;
  const counts = countOutcomes(rows);
  if (json) {
    out(
      toJson({
        job,
        backfillId: request.backfillId,
        requestedBy: request.by,
        reason: request.reason,
        target,
        requested: rows.length,
        laterToday: plan.laterToday,
        counts,
        slots: rows,
      }),
    );
    return;
  }
  out(
    `Backfill of ${job}: ${rows.length} run(s) for ${plan.slots.length} slot(s) via ${target}, requested by ${request.by}: "${request.reason}"${laterTodayNote(plan)} [${request.backfillId}]`,
  );
  out(rowsTable(rows));
  out(
    Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  );
  if (counts.pending) out(`Still pending: check later with \`cronfence runs ${job} --since 1h\`.`);
  // Each skip reason gets its own advice: a paused job's slots wait for `resume`, not for a lease.
  const skipped = rows.filter((r) => r.outcome === 'skipped');
  if (skipped.some((r) => r.reason === 'paused')) {
    out(
      `Paused slots did not run: the job is paused (\`cronfence jobs\`); re-run them after \`cronfence resume ${job}\`.`,
    );
  }
  if (skipped.some((r) => r.reason !== 'paused')) {
    out(
      `Skipped slots did not run: another run held the lease (\`cronfence lease ${job}\`); re-run them after its leaseUntil.`,
    );
  }
  if (counts[NEEDS_REVIEW_OUTCOME]) {
    out(
      `needs-review: the run stopped at an effect whose outcome is unknown (${rows.flatMap((r) => r.needsReview ?? []).join(', ')}), recorded failed / effect-needs-review: the slot is not done; check the provider, then \`cronfence effects --job ${job}\` and \`cronfence effects resolve\`, then re-run the date.`,
    );
  }
}

/** Register `backfill` on the program. @param defaults the job registry used without `--jobs`. */
export function registerBackfill(program: Command, defaults: HandlerSource): void {
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
    .option(
      BEFORE_START_FLAG,
      "run slots before the job's start (catchUp.since), which the scheduler this job replaced may have paid: only after checking they were not",
    )
    .option('--local', "run the job's handler in this process instead of invoking the deployed function")
    .option(
      '--function <name|arn>',
      "deployed function to invoke (default: <stack>-<job> or the stack's JobFunctionNames output with the stack setting, else cronfence-<job>)",
    )
    .option(
      '--invoke-aws',
      'invoke the deployed function in AWS even though the run records are read from DynamoDB Local',
    )
    .option(
      '--wait <seconds>',
      "asynchronous invocations: how long to wait for each slot's run record before sending the next (default: the job's timeout + 60)",
      intArg('--wait', 0, 3600),
    )
    .option(
      '--expect <version>',
      'the lease VERSION you were shown (`trigger --dry-run`, pause, resume): refused, nothing invoked, if the lease changed since',
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    action(async (job: string, flags: BackfillFlags) => {
      const handler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      const request: BackfillRequest = {
        job,
        by: textValue('--requested-by', flags.requestedBy, 128),
        reason: textValue('--reason', flags.reason, 1024),
        backfillId: `backfill-${randomUUID()}`,
      };
      const plan = planBackfill(
        handler.job,
        handler.expression,
        { from: flags.from, to: flags.to, yes: Boolean(flags.yes) },
        Date.now(),
      );
      // Refused (exit 2, nothing read or invoked), dry run or not, before the job's start unless the
      // operator checked: the whole range, so no part of it runs.
      const early = beforeStartRefusal(handler.job.catchUp, plan.slots, Boolean(flags.beforeStart));
      if (early) throw usage('--from', flags.from, early.message);
      const shards = handler.job.shards > 1 ? [...Array(handler.job.shards).keys()] : [undefined];
      if (flags.dryRun) {
        // A dry run sends nothing, but a broken table setting is still bad input (exit 2), as for a real run.
        libraryTableName(flags, process.env, {});
        printDryRun(job, handler, plan, shards.length, Boolean(flags.json));
        return ExitCode.Ok;
      }
      const planned: PlannedRun[] = plan.slots.flatMap((slot) =>
        shards.map((shard) => ({ slot, ...(shard !== undefined && { shard }) })),
      );
      const conn = await connect(flags);
      let invoker: Invoker | undefined;
      try {
        // Refused (nothing invoked) while a live run holds a lease of the job, or when the lease is
        // not at --expect; each run's claim then re-checks the lease atomically.
        await checkLeases(conn, job, {
          shards: handler.job.shards,
          nowMs: Date.now(),
          ...(flags.expect !== undefined && { expect: flags.expect }),
        });
        invoker = await openInvoker(conn, job, handler, flags);
        const rows = await runPlanned(conn, invoker, handler, request, planned, flags);
        printSummary(rows, request, plan, invoker.target, Boolean(flags.json));
        // Exit 0 only when every requested run plainly succeeded (skipped, failed, stale, needs-review,
        // pending or not-sent: 1).
        return rows.every((r) => r.outcome === 'succeeded') ? ExitCode.Ok : ExitCode.Failure;
      } finally {
        invoker?.close();
        conn.close();
      }
    }),
  );
}
