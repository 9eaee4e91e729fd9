/**
 * Run a job now (`JobHandle.trigger`, `cronfence trigger`), through the same path as a manual re-run
 * (backfill): the event of trigger `manual` goes to the deployed function (Lambda async Invoke) or,
 * with `local`, to the handler in this process; then the run record it produced is read back. Default
 * slot: the latest due one (the newest occurrence at or before now). A future slot is bad input, and
 * so is a slot before the job's start (`catchUp.since`) without `beforeStart`. A paused job records
 * the run `skipped / paused` like any delivery. `previewTrigger` shows the slot and the lease version
 * and invokes nothing.
 */
import { randomUUID } from 'node:crypto';
import { overlapOf } from '../lib/core/overlap.js';
import { beforeStartRefusal } from '../lib/core/schedule/catch-up.js';
import { enumerateSlots } from '../lib/core/schedule/enumerate.js';
import type { Slot } from '../lib/core/schedule/slot.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { checkLeases, type LeaseVersionView } from './backfill-guard.js';
import { type Invoker, type InvokeTarget, openInvoker } from './backfill-invoke.js';
import { parseBound, planBackfill } from './backfill-plan.js';
import { executeBackfill } from './backfill-run.js';
import { backfillRecords, type PlannedRun } from './backfill-summary.js';
import { iso, operatorValue, textValue, usage } from './input.js';
import type { RunView } from './runs.js';
import type { Session } from './session.js';

const DAY_MS = 86_400_000;

/** Options of {@link triggerJob} and {@link previewTrigger}. */
export interface TriggerOptions extends InvokeTarget {
  /** The slot: a local slot time `yyyy-mm-ddTHH:mm` in the job's zone, or an ISO instant. @default the latest due slot */
  readonly slot?: string;
  /** Who asks, 1-128 characters. @default `CRONFENCE_OPERATOR`, then the OS user */
  readonly requestedBy?: string;
  /** Why, 1-1024 characters (recorded on the run record). @default 'cronfence trigger' */
  readonly reason?: string;
  /** How long to wait for the run record of an asynchronous invocation, seconds. @default the job's timeout + 60 */
  readonly waitSeconds?: number;
  /** The lease version the operator was shown: refused, nothing invoked, if the lease changed since. @default none */
  readonly expect?: string;
  /** Run a slot before the job's start (`catchUp.since`), after checking the scheduler it replaced did not. @default false */
  readonly beforeStart?: boolean;
}

/** What a trigger would run: the slot and the job lease's version and live holder; nothing invoked. */
export interface TriggerPreview {
  readonly job: string;
  readonly slot: string;
  /** ISO-8601 UTC. */
  readonly scheduledTime: string;
  readonly lease: LeaseVersionView;
}

/** What a trigger ran: the run records it produced (one per shard), read back. */
export interface TriggerResult {
  readonly job: string;
  readonly slot: string;
  /** Where the events went (`local handler`, `lambda:<name>`). */
  readonly target: string;
  /** The job's shard count (1: unsharded). */
  readonly shards: number;
  /** The run records this trigger produced (none yet when an asynchronous run had not finished). */
  readonly records: readonly RunView[];
  /** Hand-offs that failed (the event never reached the function). */
  readonly errors: readonly string[];
  /** True when every shard's run record is there and `succeeded`. */
  readonly succeeded: boolean;
}

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
 * The slot to run: `value` (a local slot time, ISO instant) or the latest due one.
 * @throws InvalidArgumentError naming `slot` for a non-slot or a future slot.
 */
export function triggerSlot(handler: JobHandler, value: string | undefined, nowMs: number): Slot {
  if (value === undefined) {
    const latest = latestDueSlot(handler, nowMs);
    if (!latest)
      throw usage(
        'slot',
        '(not given)',
        `job ${handler.job.name} has no occurrence in the last year: name one`,
      );
    return latest;
  }
  const bound = parseBound('slot', value, handler.job, handler.expression);
  if (bound.kind !== 'slot')
    throw usage('slot', value, 'names a day, not one slot: give yyyy-mm-ddTHH:mm or an instant');
  if (bound.ms > nowMs)
    throw usage(
      'slot',
      value,
      `is in the future (scheduled ${iso(bound.ms)}, now ${iso(nowMs)}): trigger runs due slots only`,
    );
  const [slot] = planBackfill(handler.job, handler.expression, { from: value, to: value }, nowMs).slots;
  if (!slot) throw usage('slot', value, `is not a slot of job ${handler.job.name}`);
  return slot;
}

/**
 * The slot (checked against the job's start) and the request, checked before anything is read.
 * @throws InvalidArgumentError naming `slot`, `requestedBy` or `reason`
 */
function checkedRequest(s: Session, handler: JobHandler, o: TriggerOptions) {
  const slot = triggerSlot(handler, o.slot, s.now());
  // Refused (nothing read or invoked) before the job's start unless the operator checked.
  const early = beforeStartRefusal(handler.job.catchUp, [slot], { allowBeforeStart: o.beforeStart === true });
  if (early) throw usage('slot', o.slot ?? slot.id, early.message);
  // The same limits as backfill and the invocation event: refused here (nothing invoked), never cut
  // short silently or left for the handler to reject.
  const by = operatorValue('requestedBy', o.requestedBy, 128);
  const reason = textValue('reason', o.reason ?? 'cronfence trigger', 1024);
  return { slot, request: { job: handler.job.name, by, reason, backfillId: `trigger-${randomUUID()}` } };
}

/**
 * The slot a trigger would run and the job's lease (version, live holder); nothing invoked.
 * @throws InvalidArgumentError naming `slot`, `requestedBy` or `reason`; LeaseChangedError
 *   when the lease is not at `expect`
 */
export async function previewTrigger(
  s: Session,
  handler: JobHandler,
  o: TriggerOptions = {},
): Promise<TriggerPreview> {
  const job = handler.job.name;
  const { slot } = checkedRequest(s, handler, o);
  const lease = await checkLeases(await s.connection(), job, {
    shards: handler.job.shards,
    nowMs: s.now(),
    ...(o.expect !== undefined && { expect: o.expect }),
    refuseHeld: false,
  });
  return { job, slot: slot.id, scheduledTime: iso(slot.scheduledTimeMs), lease };
}

/**
 * Run one slot of the job now as a manual run (every shard of a sharded job) and read its records back.
 * @throws InvalidArgumentError naming `slot`, `requestedBy`, `reason`, `local` or
 *   `functionName`; LeaseChangedError (lease not at `expect`); LeaseBusyError (a live run holds a lease
 *   of the job and its overlap policy would only skip the run): nothing invoked.
 */
export async function triggerJob(
  s: Session,
  handler: JobHandler,
  o: TriggerOptions = {},
): Promise<TriggerResult> {
  const job = handler.job.name;
  const { slot, request } = checkedRequest(s, handler, o);
  const shards = handler.job.shards > 1 ? [...Array(handler.job.shards).keys()] : [undefined];
  const planned: PlannedRun[] = shards.map((shard) => ({ slot, ...(shard !== undefined && { shard }) }));
  const conn = await s.connection();
  // Refused (nothing invoked) while a live run holds a lease of the job and the overlap policy would
  // skip the run, or when the lease is not at `expect`; the run's claim then re-checks the lease
  // atomically.
  await checkLeases(conn, job, {
    shards: handler.job.shards,
    nowMs: s.now(),
    ...(o.expect !== undefined && { expect: o.expect }),
    overlap: overlapOf(handler.job),
    slots: [slot.id],
  });
  let invoker: Invoker | undefined;
  try {
    invoker = await openInvoker(conn, handler, o);
    const errors = await executeBackfill({
      conn,
      invoker,
      request,
      planned,
      concurrency: planned.length,
      waitPerSlotMs: Number(o.waitSeconds ?? handler.job.timeoutSeconds + 60) * 1000,
    });
    const records = (await backfillRecords(conn.doc, conn.tableName, job, planned, request)) as RunView[];
    return {
      job,
      slot: slot.id,
      target: invoker.target,
      shards: shards.length,
      records,
      errors: [...errors.values()],
      succeeded: records.length === planned.length && records.every((r) => r.outcome === 'succeeded'),
    };
  } finally {
    invoker?.close();
  }
}
