/**
 * The phases of one job's sweep, in the order the sweeper runs them: read (expected slots, lease
 * items, run records, their statuses), dead holders (abandoned marks), unfinished (delivered slots
 * caught up), off the schedule (`not-on-schedule`), missed (the catch-up rule, `catch-up-limit`).
 * Each phase reports its decisions and the problem records it wrote through the {@link Sweep} state.
 */
import { type JobDefinition, jobKeyOf } from '../core/job-definition.js';
import { awaitsAbandonMark, type LeaseItem, openHolders } from '../core/lease.js';
import { definitionId, holdersToMark } from '../core/liveness.js';
import { Outcome, Reason, Trigger } from '../core/outcomes.js';
import type { RunRecord } from '../core/ports.js';
import { BEFORE_START, catchUpFloorMs, planCatchUp, sweepWindow } from '../core/schedule/catch-up.js';
import { enumerateSlots } from '../core/schedule/enumerate.js';
import type { Slot } from '../core/schedule/slot.js';
import { offScheduleSlots, type RecordFacts, type SlotStatus, slotStatuses } from '../core/slot-status.js';
import { shardPayloads } from './fan-out.js';
import {
  DEFAULT_CATCH_UP,
  MAX_CATCH_UP_ATTEMPTS,
  OFF_SCHEDULE_RUN_ID,
  type SweepDecision,
  type SweepDeps,
  type SweepProblem,
  type SweepReport,
  type SweepTarget,
} from './sweep-types.js';

/** The most two zones' local times differ (UTC-12 .. UTC+14), ms. */
const ZONE_SPAN_MS = 26 * 3_600_000;

async function leaseItems(
  deps: SweepDeps,
  job: string,
  shards: number,
): Promise<Map<number | undefined, LeaseItem | undefined>> {
  const out = new Map<number | undefined, LeaseItem | undefined>();
  for (const shard of [undefined, ...Array.from({ length: shards > 1 ? shards : 0 }, (_, i) => i)])
    out.set(shard, await deps.leases.get({ job, ...(shard !== undefined && { shard }) }));
  return out;
}

async function recordsOf(
  deps: SweepDeps,
  job: string,
  slots: readonly Slot[],
  fromMs: number,
  toMs: number,
): Promise<RecordFacts[]> {
  if (toMs < fromMs) return [];
  // Slot ids are local minutes: a zone change between deploys gives the same occurrences other ids,
  // up to 26 h apart. Read that much around the window so records of the old ids are seen too — and
  // read the whole window even when the current schedule has no slot in it (a redeploy may have
  // removed slots that were delivered: offScheduleSlots).
  const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  const ids = [...slots.map((s) => s.id), minute(fromMs - ZONE_SPAN_MS), minute(toMs + ZONE_SPAN_MS)].sort();
  return deps.runs.slotRecords(job, ids[0] as string, ids[ids.length - 1] as string);
}

/** The payload a catch-up invocation carries (the manual form with trigger `catch-up`). */
export function catchUpPayload(job: string, slot: Slot, why: string): Record<string, unknown> {
  return {
    job,
    scheduledTime: `${new Date(slot.scheduledTimeMs).toISOString().slice(0, 19)}Z`,
    trigger: Trigger.CatchUp,
    requestedBy: 'sweeper',
    reason: why,
    ...(slot.shifted && { slot: slot.localTime }),
  };
}

/** What one job's sweep reads: its expected slots, lease items, run records and their statuses. */
export interface JobView {
  /** The job's name: its function, its schedule, its metrics' dimension. */
  readonly job: string;
  /** The job's identity in the table (its `id`, else its name): what leases and records are keyed by. */
  readonly key: string;
  readonly target: SweepTarget;
  readonly catchUp: NonNullable<JobDefinition['catchUp']> | typeof DEFAULT_CATCH_UP;
  readonly fromMs: number;
  readonly toMs: number;
  readonly expected: Slot[];
  readonly def: string;
  readonly leases: Map<number | undefined, LeaseItem | undefined>;
  readonly records: RecordFacts[];
  readonly statuses: SlotStatus[];
}

/** The state one sweep threads through its jobs' phases. */
export interface Sweep {
  readonly deps: SweepDeps;
  readonly nowMs: number;
  readonly report: SweepReport;
  decide(d: SweepDecision): void;
  problem(p: SweepProblem): void;
}

/** An invoke the sweeper could not make, carrying the slot it was for (the failure record's slot). */
export class CatchUpInvokeError extends Error {
  override readonly name = 'CatchUpInvokeError';
  constructor(
    readonly slot: Slot,
    cause: unknown,
  ) {
    super(
      `catch-up invoke of ${slot.id} failed: ${(cause as Error)?.name ?? 'Error'}: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
  }
}

/** Invoke one catch-up payload; a refusal becomes a {@link CatchUpInvokeError} naming the slot. */
async function invoke(t: SweepTarget, payload: Record<string, unknown>, slot: Slot): Promise<void> {
  try {
    await t.invoke(payload, slot);
  } catch (err) {
    throw new CatchUpInvokeError(slot, err);
  }
}

/** Step 1, read: the job's expected slots in the window, its lease items and run records, their statuses. */
export async function readJob(
  s: Sweep,
  t: SweepTarget,
  graceMs: number,
  notBeforeMs: number,
): Promise<JobView> {
  const job = t.definition.name;
  const catchUp = t.definition.catchUp ?? DEFAULT_CATCH_UP;
  const window = sweepWindow(s.nowMs, catchUp.windowHours, graceMs);
  const fromMs = Math.max(window.fromMs, notBeforeMs);
  const toMs = window.toMs;
  const expected = enumerateSlots(
    { ...t.definition, schedule: t.expression, ...(t.startMs !== undefined && { startMs: t.startMs }) },
    fromMs,
    toMs,
  );
  const def = definitionId(t.definition);
  const shards = t.definition.shards;
  const key = jobKeyOf(t.definition);
  const leases = await leaseItems(s.deps, key, shards);
  const records = await recordsOf(s.deps, key, expected, fromMs, toMs);
  const statuses = slotStatuses({ expected, records, leases, shards, def, nowMs: s.nowMs });
  return { job, key, target: t, catchUp, fromMs, toMs, expected, def, leases, records, statuses };
}

/**
 * Step 2, dead holders: a holder whose lease is over and that never released is recorded abandoned
 * now (a problem record `RunAbandoned` counts), not only when the job's next claim comes. A holder
 * that wrote its own record (a `succeeded` whose release was cut off) keeps it and counts nothing.
 */
export async function markDeadHolders(s: Sweep, v: JobView): Promise<void> {
  for (const [shard, item] of v.leases) {
    if (!item || (item.leaseUntilMs ?? 0) >= s.nowMs) continue;
    const dead = openHolders(item).filter((h) => h.leaseUntilMs < s.nowMs);
    // The current holder as the lease item names it: with its claim time, trigger and requester.
    const current =
      awaitsAbandonMark(item.holderState) && item.owner && item.slot
        ? {
            runId: item.owner,
            slot: item.slot,
            leaseUntilMs: item.leaseUntilMs ?? 0,
            fence: item.fence ?? 0,
            ...(item.acquiredAtMs !== undefined && { acquiredAtMs: item.acquiredAtMs }),
            ...(item.trigger !== undefined && { trigger: item.trigger }),
            ...(item.requestedBy !== undefined && { requestedBy: item.requestedBy }),
          }
        : undefined;
    if (current) dead.push(current);
    for (const holder of holdersToMark(dead, '')) {
      const by = `sweeper${shard === undefined ? '' : ` (shard ${shard})`}`;
      const marked = await s.deps.runs.markAbandoned(
        v.key,
        holder.runId === current?.runId ? current : holder,
        by,
        s.nowMs,
        v.target.definition.runRetentionDays,
      );
      if (marked)
        s.problem({ job: v.job, slot: holder.slot, outcome: Outcome.Abandoned, reason: Reason.NotReleased });
    }
  }
}

/**
 * Step 4, unfinished: a delivered slot that never finished is always caught up (whatever `catchUp`
 * says; that setting is about slots Scheduler never delivered), the missing shards only, at most
 * {@link MAX_CATCH_UP_ATTEMPTS} times — except the slots the overlap policy holds back (`heldBack`,
 * lib/runtime/sweep-overlap.ts).
 */
export async function catchUpUnfinished(
  s: Sweep,
  v: JobView,
  heldBack: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (s.deps.catchUpUnfinished === false) return;
  const shards = v.target.definition.shards;
  for (const st of v.statuses.filter((x) => !x.done && x.started && !heldBack.has(x.slot.id))) {
    if (st.failedCatchUps >= MAX_CATCH_UP_ATTEMPTS) {
      s.decide({ job: v.job, slot: st.slot.id, action: 'skipped', reason: 'catch-up-exhausted' });
      continue;
    }
    const base = catchUpPayload(v.job, st.slot, 'unfinished');
    const payloads = shards > 1 ? shardPayloads(base, shards, st.missingShards) : [base];
    for (const p of payloads) await invoke(v.target, p, st.slot);
    s.decide({
      job: v.job,
      slot: st.slot.id,
      action: 'triggered',
      reason: shards > 1 ? `unfinished: shards ${st.missingShards.join(',')}` : 'unfinished',
    });
  }
}

/**
 * Step 5, off the schedule: a delivered, unfinished slot a redeploy removed cannot be caught up, so
 * it ends here as `skipped / not-on-schedule` (`SlotNotRun` counts it), at the first sweep that sees
 * its record inside the window (bound: one sweep period after the slot's grace, while the slot is
 * within `catchUp.windowHours`).
 */
export async function endOffSchedule(s: Sweep, v: JobView): Promise<void> {
  if (s.deps.catchUpUnfinished === false) return;
  for (const off of offScheduleSlots({
    expected: v.expected,
    records: v.records,
    fromMs: v.fromMs,
    toMs: v.toMs,
  })) {
    await s.deps.runs.put(
      sweeperRecord(v, off.slot, off.scheduledTimeMs, OFF_SCHEDULE_RUN_ID, Reason.NotOnSchedule, s.nowMs, {
        details: { delivered: 'unfinished', currentSchedule: v.target.definition.schedule, def: v.def },
        def: v.def,
      }),
      v.target.definition.runRetentionDays,
    );
    s.problem({ job: v.job, slot: off.slot, outcome: Outcome.Skipped, reason: Reason.NotOnSchedule });
    s.decide({ job: v.job, slot: off.slot, action: 'skipped', reason: Reason.NotOnSchedule });
  }
}

/**
 * Step 6, missed: slots Scheduler never delivered, by the job's catch-up rule (`none` / `latest` /
 * `all`, at most `maxSlotsPerSweep`); the ones over the cap are recorded `skipped / catch-up-limit`
 * once (`SlotNotRun` counts them). Slots the overlap policy holds back are left alone.
 */
export async function catchUpMissed(
  s: Sweep,
  v: JobView,
  heldBack: ReadonlySet<string> = new Set(),
): Promise<void> {
  // Held back by the overlap policy: planned as if handled, so the catch-up cap does not skip them.
  const done = new Set(
    v.statuses.filter((st) => st.done || st.started || heldBack.has(st.slot.id)).map((st) => st.slot.id),
  );
  const plan = planCatchUp({
    expected: v.expected,
    succeededIds: done,
    mode: v.catchUp.mode,
    maxSlotsPerSweep: v.catchUp.maxSlotsPerSweep,
    floorMs: catchUpFloorMs(v.target.definition.catchUp),
  });
  for (const slot of plan.trigger) {
    const why = slot.shifted ? 'dst-gap-shift' : 'missed';
    await invoke(v.target, catchUpPayload(v.job, slot, why), slot);
    s.decide({ job: v.job, slot: slot.id, action: 'triggered', reason: why });
  }
  for (const { slot, reason } of plan.skipped) {
    if (reason === Reason.CatchUpLimit) {
      await s.deps.runs.put(
        sweeperRecord(
          v,
          slot.id,
          slot.scheduledTimeMs,
          'sweeper-catch-up-limit',
          Reason.CatchUpLimit,
          s.nowMs,
          {
            businessDate: slot.businessDate,
          },
        ),
        v.target.definition.runRetentionDays,
      );
      s.problem({ job: v.job, slot: slot.id, outcome: Outcome.Skipped, reason: Reason.CatchUpLimit });
    }
    s.decide({ job: v.job, slot: slot.id, action: 'skipped', reason });
  }
  for (const slot of plan.ignored)
    s.decide({ job: v.job, slot: slot.id, action: 'ignored', reason: 'catch-up-none' });
  for (const slot of plan.beforeStart)
    s.decide({ job: v.job, slot: slot.id, action: 'ignored', reason: BEFORE_START });
}

/** A record the sweeper writes itself (outcome `skipped` unless given), trigger `catch-up`, by `sweeper`. */
function sweeperRecord(
  v: JobView,
  slot: string,
  scheduledTimeMs: number,
  runId: string,
  reason: Reason,
  nowMs: number,
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    job: v.key,
    slot,
    scheduledTime: new Date(scheduledTimeMs).toISOString(),
    businessDate: slot.slice(0, 10),
    runId,
    trigger: Trigger.CatchUp,
    requestedBy: 'sweeper',
    outcome: Outcome.Skipped,
    reason,
    startedAtMs: nowMs,
    finishedAtMs: nowMs,
    durationMs: 0,
    ...extra,
  };
}
