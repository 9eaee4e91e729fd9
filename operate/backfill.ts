/**
 * Re-run a job's real slots in a range as manual runs (`JobHandle.backfill`, `cronfence backfill`):
 * the deployed function, asynchronously, or the local handler with `local`; then a summary read from
 * the run records the runs wrote. `planBackfill` lists the slots and invokes nothing. A range reaching
 * before the job's start (`catchUp.since`) is refused (nothing invoked) without `beforeStart`.
 */
import { randomUUID } from 'node:crypto';
import { overlapOf } from '../lib/core/overlap.js';
import { beforeStartRefusal } from '../lib/core/schedule/catch-up.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { checkLeases } from './backfill-guard.js';
import { type Invoker, type InvokeTarget, openInvoker } from './backfill-invoke.js';
import { type BackfillPlan, planBackfill } from './backfill-plan.js';
import { type BackfillRequest, executeBackfill } from './backfill-run.js';
import {
  type BackfillRow,
  backfillRecords,
  countOutcomes,
  type PlannedRun,
  summarize,
} from './backfill-summary.js';
import { iso, textValue, usage } from './input.js';
import type { Session } from './session.js';

/** The range of a backfill. */
export interface BackfillRange {
  /** First slot: `yyyy-mm-dd` (a whole day in the job's zone), a local slot time `yyyy-mm-ddTHH:mm`, or an ISO instant. */
  readonly from: string;
  /** Last slot (inclusive), same forms. A date of today ends now. */
  readonly to: string;
  /** Allow more than 1,000 slots. @default false */
  readonly yes?: boolean;
  /** Run slots before the job's start (`catchUp.since`), after checking the scheduler it replaced did not. @default false */
  readonly beforeStart?: boolean;
}

/** Options of {@link backfillJob}. */
export interface BackfillOptions extends BackfillRange, InvokeTarget {
  /** Who asks for the re-run, 1-128 characters (recorded on every run record). */
  readonly requestedBy: string;
  /** Why, 1-1024 characters (recorded on every run record). */
  readonly reason: string;
  /** Leases worked at once (a sharded job's shards); a lease runs its slots one at a time. @default 4 */
  readonly concurrency?: number;
  /** Asynchronous invocations: how long to wait for each slot's run record, seconds. @default the job's timeout + 60 */
  readonly waitSeconds?: number;
  /** The lease version the operator was shown: refused, nothing invoked, if the lease changed since. @default none */
  readonly expect?: string;
  /** Called once before the first event is sent, with the number of runs planned (slots × shards). */
  readonly onPlanned?: (runs: number) => void;
  /** Called after each slot with what is known of it (an outcome, `sent`, `pending` or `error`). */
  readonly onProgress?: (run: PlannedRun, status: string) => void;
}

/** One slot a backfill would run. */
export interface PlannedSlotView {
  readonly slot: string;
  /** ISO-8601 UTC. */
  readonly scheduledTime: string;
  readonly businessDate: string;
  /** A DST-gap slot, run at the first instant after the gap. */
  readonly shifted?: true;
}

/** What a backfill would run (`backfill --dry-run --json`); nothing invoked. */
export interface BackfillPlanView {
  readonly job: string;
  readonly dryRun: true;
  readonly schedule: string;
  readonly timeZone: string;
  readonly count: number;
  /** The job's shard count: each slot runs once per shard. */
  readonly shards: number;
  /** Slots later today than now, not included (0 when the range ends before now). */
  readonly laterToday: number;
  /** True when the range reached past now and was cut there. */
  readonly endsNow: boolean;
  readonly slots: readonly PlannedSlotView[];
}

/** What a backfill ran (`backfill --json`): one row per slot (and shard), from the run records. */
export interface BackfillResult {
  readonly job: string;
  /** Sent as every event's `executionId` and stored on each run record. */
  readonly backfillId: string;
  readonly requestedBy: string;
  readonly reason: string;
  /** Where the events went (`local handler`, `lambda:<name>`). */
  readonly target: string;
  /** Runs requested: slots × shards. */
  readonly requested: number;
  readonly slotCount: number;
  readonly laterToday: number;
  readonly endsNow: boolean;
  /** Rows by outcome (`succeeded`, `skipped`, `needs-review`, `pending`, `not-sent`, ...). */
  readonly counts: Readonly<Record<string, number>>;
  readonly slots: readonly BackfillRow[];
  /** True when every requested run plainly succeeded. */
  readonly succeeded: boolean;
}

/** The plan, checked against the job's start. @throws InvalidArgumentError naming `from`/`to` */
function checkedPlan(s: Session, handler: JobHandler, range: BackfillRange): BackfillPlan {
  const plan = planBackfill(
    handler.job,
    handler.expression,
    { from: range.from, to: range.to, yes: Boolean(range.yes) },
    s.now(),
  );
  // Refused (nothing read or invoked), dry run or not, before the job's start unless the operator
  // checked: the whole range, so no part of it runs.
  const early = beforeStartRefusal(handler.job.catchUp, plan.slots, {
    allowBeforeStart: range.beforeStart === true,
  });
  if (early) throw usage('from', range.from, early.message);
  return plan;
}

/**
 * The slots a backfill of `range` would run; reads and invokes nothing.
 * @throws InvalidArgumentError naming `from`, `to` or `from/to` (not a slot, future,
 *   inverted, empty, over 1,000 slots without `yes`, before the job's start).
 */
export function planJobBackfill(s: Session, handler: JobHandler, range: BackfillRange): BackfillPlanView {
  const plan = checkedPlan(s, handler, range);
  return {
    job: handler.job.name,
    dryRun: true,
    schedule: handler.job.schedule,
    timeZone: handler.job.timeZone,
    count: plan.slots.length,
    shards: Math.max(1, handler.job.shards),
    laterToday: plan.laterToday,
    endsNow: plan.endsNow,
    slots: plan.slots.map((slot) => ({
      slot: slot.id,
      scheduledTime: iso(slot.scheduledTimeMs),
      businessDate: slot.businessDate,
      ...(slot.shifted && { shifted: true as const }),
    })),
  };
}

/**
 * Run the backfill and summarize its run records.
 * @throws InvalidArgumentError naming the field (see {@link planJobBackfill}, `requestedBy`,
 *   `reason`, `local`, `functionName`); LeaseChangedError; LeaseBusyError (a live run holds a lease of
 *   the job and its overlap policy would only skip every run): nothing invoked.
 */
export async function backfillJob(
  s: Session,
  handler: JobHandler,
  o: BackfillOptions,
): Promise<BackfillResult> {
  const job = handler.job.name;
  const request: BackfillRequest = {
    job,
    by: textValue('requestedBy', o.requestedBy, 128),
    reason: textValue('reason', o.reason, 1024),
    backfillId: `backfill-${randomUUID()}`,
  };
  const plan = checkedPlan(s, handler, o);
  const shards = handler.job.shards > 1 ? [...Array(handler.job.shards).keys()] : [undefined];
  const planned: PlannedRun[] = plan.slots.flatMap((slot) =>
    shards.map((shard) => ({ slot, ...(shard !== undefined && { shard }) })),
  );
  const conn = await s.connection();
  // Refused (nothing invoked) while a live run holds a lease of the job and the overlap policy would
  // skip every run, or when the lease is not at `expect`; each run's claim then re-checks the lease
  // atomically.
  await checkLeases(conn, job, {
    shards: handler.job.shards,
    nowMs: s.now(),
    ...(o.expect !== undefined && { expect: o.expect }),
    overlap: overlapOf(handler.job),
    slots: plan.slots.map((x) => x.id),
  });
  let invoker: Invoker | undefined;
  try {
    invoker = await openInvoker(conn, handler, o);
    o.onPlanned?.(planned.length);
    const sendErrors = await executeBackfill({
      conn,
      invoker,
      request,
      planned,
      concurrency: o.concurrency ?? 4,
      waitPerSlotMs: (o.waitSeconds ?? handler.job.timeoutSeconds + 60) * 1000,
      ...(o.onProgress && { onProgress: o.onProgress }),
    });
    const records = await backfillRecords(conn.doc, conn.tableName, job, planned, request);
    const rows = summarize(planned, records, sendErrors);
    return {
      job,
      backfillId: request.backfillId,
      requestedBy: request.by,
      reason: request.reason,
      target: invoker.target,
      requested: rows.length,
      slotCount: plan.slots.length,
      laterToday: plan.laterToday,
      endsNow: plan.endsNow,
      counts: countOutcomes(rows),
      slots: rows,
      succeeded: rows.every((r) => r.outcome === 'succeeded'),
    };
  } finally {
    invoker?.close();
  }
}
