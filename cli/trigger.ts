/**
 * `cronfence trigger <job> [--slot <id>]`: run a job now, through the same path as a manual re-run
 * (`backfill`): the event of trigger `manual` goes to the deployed function (Lambda async Invoke) or,
 * with `--local`, to the handler in this process; then the run record it produced is read back and
 * printed. Default slot: the latest due one (the newest occurrence at or before now). A future slot is
 * bad input (exit 2), and so is a slot before the job's start (`catchUp.since`) without `--before-start`.
 * A paused job records the run `skipped / paused` like any delivery.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { BEFORE_START_FLAG, beforeStartRefusal } from '../lib/core/schedule/catch-up.js';
import { enumerateSlots } from '../lib/core/schedule/enumerate.js';
import type { Slot } from '../lib/core/schedule/slot.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { intArg } from './args.js';
import { openInvoker } from './backfill.js';
import { checkLeases } from './backfill-guard.js';
import type { Invoker } from './backfill-invoke.js';
import { parseBound, planBackfill } from './backfill-plan.js';
import { executeBackfill } from './backfill-run.js';
import { backfillRecords, type PlannedRun } from './backfill-summary.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import {
  action,
  cell,
  ExitCode,
  iso,
  operatorValue,
  out,
  table,
  textValue,
  toJson,
  usage,
} from './output.js';
import { type HandlerSource, loadRegistry, requireJob, withJobsOption } from './registry.js';

interface TriggerFlags extends ConnectionFlags {
  readonly slot?: string;
  readonly requestedBy?: string;
  readonly reason: string;
  readonly local?: boolean;
  readonly function?: string;
  readonly invokeAws?: boolean;
  readonly wait?: number;
  readonly jobs?: string;
  readonly expect?: string;
  readonly dryRun?: boolean;
  readonly beforeStart?: boolean;
}

const DAY_MS = 86_400_000;

/** The newest occurrence of the job at or before `nowMs` (looks back a day, then a year). */
export function latestDueSlot(handler: JobHandler, nowMs: number): Slot | undefined {
  const src = { ...handler.job, schedule: handler.expression, startMs: handler.job.rateAnchorMs ?? 0 };
  for (const back of [DAY_MS, 366 * DAY_MS]) {
    const slots = enumerateSlots(src, nowMs - back, nowMs);
    const last = slots[slots.length - 1];
    if (last) return last;
  }
  return undefined;
}

/**
 * The slot to run: `--slot` (a local slot time, ISO instant) or the latest due one.
 * @throws InvalidArgumentError naming `--slot` for a non-slot or a future slot.
 */
export function triggerSlot(handler: JobHandler, value: string | undefined, nowMs: number): Slot {
  if (value === undefined) {
    const latest = latestDueSlot(handler, nowMs);
    if (!latest)
      throw usage(
        '--slot',
        '(not given)',
        `job ${handler.job.name} has no occurrence in the last year: name one`,
      );
    return latest;
  }
  const bound = parseBound('--slot', value, handler.job, handler.expression);
  if (bound.kind !== 'slot')
    throw usage('--slot', value, 'names a day, not one slot: give yyyy-mm-ddTHH:mm or an instant');
  if (bound.ms > nowMs)
    throw usage(
      '--slot',
      value,
      `is in the future (scheduled ${iso(bound.ms)}, now ${iso(nowMs)}): trigger runs due slots only`,
    );
  const [slot] = planBackfill(handler.job, handler.expression, { from: value, to: value }, nowMs).slots;
  if (!slot) throw usage('--slot', value, `is not a slot of job ${handler.job.name}`);
  return slot;
}

/** A run record's error summary as `Name: message`, or `-` when the run recorded none. */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (!e || typeof e.message !== 'string') return '-';
  return typeof e.name === 'string' ? `${e.name}: ${e.message}` : e.message;
}

/** Register `trigger`. @param defaults the job registry used without `--jobs`. */
export function registerTrigger(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('trigger')
    .argument('<job>', 'job name')
    .description('Run a job now as a manual run (the latest due slot, or --slot) and print its run record')
    .option(
      '--slot <id>',
      "slot to run: a local slot time yyyy-mm-ddTHH:mm in the job's zone, or an ISO instant",
    )
    .option('--requested-by <name>', 'who asks (default: CRONFENCE_OPERATOR, then the OS user)')
    .option('--reason <text>', 'why (recorded on the run record)', 'cronfence trigger')
    .option('--local', "run the job's handler in this process instead of invoking the deployed function")
    .option(
      '--function <name|arn>',
      "deployed function to invoke (default: <stack>-<job> or the stack's JobFunctionNames output with the stack setting, else cronfence-<job>)",
    )
    .option(
      '--invoke-aws',
      'invoke the deployed function in AWS even though records are read from DynamoDB Local',
    )
    .option(
      '--wait <seconds>',
      "how long to wait for the run record (default: the job's timeout + 60)",
      intArg('--wait', 0, 3600),
    )
    .option(
      BEFORE_START_FLAG,
      "run a slot before the job's start (catchUp.since), which the scheduler this job replaced may have paid: only after checking it was not",
    )
    .option('--dry-run', "show the slot, the job's lease (holder, until) and its VERSION; invoke nothing")
    .option(
      '--expect <version>',
      'the lease VERSION you were shown (`--dry-run`, pause, resume): refused, nothing invoked, if the lease changed since',
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    action(async (job: string, flags: TriggerFlags) => {
      const handler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      const slot = triggerSlot(handler, flags.slot, Date.now());
      // Refused (exit 2, nothing read or invoked) before the job's start unless the operator checked.
      const early = beforeStartRefusal(handler.job.catchUp, [slot], Boolean(flags.beforeStart));
      if (early) throw usage('--slot', flags.slot ?? slot.id, early.message);
      // The same limits as backfill and the invocation event: refused here (exit 2, nothing invoked),
      // never cut short silently or left for the handler to reject.
      const by = operatorValue('--requested-by', flags.requestedBy, 128);
      const reason = textValue('--reason', flags.reason, 1024);
      const request = { job, by, reason, backfillId: `trigger-${randomUUID()}` };
      const shards = handler.job.shards > 1 ? [...Array(handler.job.shards).keys()] : [undefined];
      const planned: PlannedRun[] = shards.map((shard) => ({ slot, ...(shard !== undefined && { shard }) }));
      const conn = await connect(flags);
      let invoker: Invoker | undefined;
      try {
        // Refused (nothing invoked) while a live run holds a lease of the job, or when the lease is
        // not at --expect; the run's claim then re-checks the lease atomically.
        const lease = await checkLeases(conn, job, {
          shards: handler.job.shards,
          nowMs: Date.now(),
          ...(flags.expect !== undefined && { expect: flags.expect }),
          refuseHeld: !flags.dryRun,
        });
        if (flags.dryRun) {
          const view = { job, slot: slot.id, scheduledTime: iso(slot.scheduledTimeMs), lease };
          if (flags.json) out(toJson(view));
          else
            out(
              `Dry run: ${job} slot ${slot.id} (scheduled ${view.scheduledTime}); lease version ${lease.version}; ${lease.holder ? `held by run ${lease.holder.runId} (slot ${String(lease.holder.slot)}) until ${iso(lease.holder.leaseUntilMs)}` : 'no live holder'}; nothing invoked.\nRun it: cronfence trigger ${job} --slot ${slot.id} --expect ${lease.version}`,
            );
          return ExitCode.Ok;
        }
        invoker = await openInvoker(conn, job, handler, flags);
        const errors = await executeBackfill({
          conn,
          invoker,
          request,
          planned,
          concurrency: planned.length,
          waitPerSlotMs: Number(flags.wait ?? handler.job.timeoutSeconds + 60) * 1000,
        });
        const records = await backfillRecords(conn.doc, conn.tableName, job, planned, request);
        if (flags.json)
          out(
            toJson(
              planned.length === 1
                ? (records[0] ?? { error: [...errors.values()][0] ?? 'pending' })
                : records,
            ),
          );
        else if (records.length === 0)
          out(
            `no run record yet for ${job} slot ${slot.id} via ${invoker.target}${errors.size ? `: ${[...errors.values()].join('; ')}` : ' (check later with `cronfence runs`)'}`,
          );
        else
          out(
            table(records, [
              { header: 'SLOT', cell: (r) => String(r.slot) },
              ...(shards.length > 1
                ? [{ header: 'SHARD', cell: (r: Record<string, unknown>) => cell(r.shard) }]
                : []),
              { header: 'TRIGGER', cell: (r) => String(r.trigger) },
              { header: 'OUTCOME', cell: (r) => String(r.outcome) },
              { header: 'REASON', cell: (r) => cell(r.reason) },
              { header: 'FENCE', cell: (r) => cell(r.fence) },
              { header: 'RUN ID', cell: (r) => cell(r.runId) },
              { header: 'REQUESTED BY', cell: (r) => cell(r.requestedBy) },
              { header: 'ERROR', cell: (r) => errorText(r.error) },
            ]),
          );
        return records.length === planned.length && records.every((r) => r.outcome === 'succeeded')
          ? ExitCode.Ok
          : ExitCode.Failure;
      } finally {
        invoker?.close();
        conn.close();
      }
    }),
  );
}
