/**
 * `cronfence backfill <job> --from D --to D --requested-by NAME --reason TEXT` (`JobHandle.backfill`;
 * `--dry-run`: `planBackfill`): re-run a job's real
 * slots in a range as manual runs (the deployed function, asynchronously, or the local handler with
 * `--local`), with a progress bar, then a summary read from the run records the runs wrote. A range
 * reaching before the job's start (`catchUp.since`) is refused (exit 2, nothing invoked) without
 * `--before-start`.
 */
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { BackfillPlanView, BackfillResult } from '../operate/backfill.js';
import { laterTodayNote } from '../operate/backfill-plan.js';
import { type BackfillRow, NEEDS_REVIEW_OUTCOME } from '../operate/backfill-summary.js';
import { textValue } from '../operate/input.js';
import type { HandlerSource } from '../operate/registry.js';
import { intArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions, withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { CLI_FLAGS } from './flags.js';
import { cell, table } from './output.js';

interface BackfillFlags extends OperatorFlags {
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

/** The dry run as text: the slots that would run. */
function dryRunText(plan: BackfillPlanView): string {
  return `Dry run: ${plan.count} slot(s) of ${plan.job} (${plan.schedule}, ${plan.timeZone})${laterTodayNote(plan)}; nothing invoked.\n${table(
    plan.slots,
    [
      { header: 'SLOT', cell: (s) => s.slot },
      { header: 'SCHEDULED', cell: (s) => s.scheduledTime },
      { header: 'BUSINESS DATE', cell: (s) => s.businessDate },
      { header: 'NOTE', cell: (s) => (s.shifted ? 'DST gap: runs at the first instant after it' : '') },
    ],
  )}`;
}

/** The summary as `cronfence backfill` prints it, with what to do about rows that did not plainly succeed. */
export function backfillText(r: BackfillResult): string {
  const { job, counts } = r;
  const rows = r.slots;
  const lines = [
    `Backfill of ${job}: ${rows.length} run(s) for ${r.slotCount} slot(s) via ${r.target}, requested by ${r.requestedBy}: "${r.reason}"${laterTodayNote(r)} [${r.backfillId}]`,
    rowsTable(rows),
    Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
  ];
  if (counts.pending) lines.push(`Still pending: check later with \`cronfence runs ${job} --since 1h\`.`);
  // Each skip reason gets its own advice: a paused job's slots wait for `resume`, not for a lease.
  const skipped = rows.filter((row) => row.outcome === 'skipped');
  if (skipped.some((row) => row.reason === 'paused')) {
    lines.push(
      `Paused slots did not run: the job is paused (\`cronfence jobs\`); re-run them after \`cronfence resume ${job}\`.`,
    );
  }
  if (skipped.some((row) => row.reason !== 'paused')) {
    lines.push(
      `Skipped slots did not run: another run held the lease (\`cronfence lease ${job}\`); re-run them after its leaseUntil.`,
    );
  }
  if (counts[NEEDS_REVIEW_OUTCOME]) {
    lines.push(
      `needs-review: the run stopped at an effect whose outcome is unknown (${rows.flatMap((row) => row.needsReview ?? []).join(', ')}), recorded failed / effect-needs-review: the slot is not done; check the provider, then \`cronfence effects --job ${job}\` and \`cronfence effects resolve\`, then re-run the date.`,
    );
  }
  return lines.join('\n');
}

/** A progress bar on stderr when it is a terminal and the output is not JSON. */
function progressBar(job: string, json: boolean): SingleBar | undefined {
  return !json && process.stderr.isTTY
    ? new SingleBar({
        format: `backfill ${job} [{bar}] {value}/{total} {last}`,
        hideCursor: true,
        stream: process.stderr,
      })
    : undefined;
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
      CLI_FLAGS.beforeStart as string,
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
    operatorAction(defaults, async (ops, flags: BackfillFlags, job: string) => {
      const range = {
        from: flags.from,
        to: flags.to,
        ...(flags.yes && { yes: true }),
        ...(flags.beforeStart && { beforeStart: true }),
      };
      if (flags.dryRun) {
        // The same checks as a real run (who, why, the range, the table setting); nothing is sent.
        textValue('--requested-by', flags.requestedBy, 128);
        textValue('--reason', flags.reason, 1024);
        const plan = await ops.job(job).planBackfill(range);
        return { json: plan, text: () => dryRunText(plan) };
      }
      const bar = progressBar(job, Boolean(flags.json));
      const result = await ops.job(job).backfill({
        ...range,
        requestedBy: flags.requestedBy,
        reason: flags.reason,
        concurrency: flags.concurrency,
        ...(flags.local && { local: true }),
        ...(flags.function !== undefined && { functionName: flags.function }),
        ...(flags.invokeAws && { invokeAws: true }),
        ...(flags.wait !== undefined && { waitSeconds: flags.wait }),
        ...(flags.expect !== undefined && { expect: flags.expect }),
        onPlanned: (runs) => bar?.start(runs, 0, { last: '' }),
        onProgress: (p, status) => bar?.increment(1, { last: `${p.slot.id} ${status}` }),
      });
      bar?.stop();
      // Exit 0 only when every requested run plainly succeeded (skipped, failed, stale, needs-review,
      // pending or not-sent: 1).
      return {
        json: result,
        text: () => backfillText(result),
        exitCode: result.succeeded ? ExitCode.Ok : ExitCode.Failure,
      };
    }),
  );
}
