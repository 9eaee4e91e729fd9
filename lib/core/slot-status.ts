/**
 * When is a slot done (docs/design.md "When is a slot done")? Pure: from the run records of the sweep
 * window and the lease items, decide per expected slot whether it succeeded, whether an attempt started
 * and never finished, and — for a sharded job — which shards are still missing.
 *
 * - An unsharded slot is done when a `succeeded` record exists under the current definition id, or the
 *   job lease's done set (written under that id) holds it.
 * - A sharded slot is done only when EVERY shard 0..N-1 of the current count is done the same way (the
 *   fan-out's own `succeeded` record only says the payloads were handed off).
 * - An occurrence was delivered and never finished when any record of it is not `succeeded` (failed,
 *   stale, abandoned, or skipped lease-held / overlap / deadline), or a lease item still shows a
 *   `running` (or open) holder of it whose lease is over. Such a slot is always caught up, whatever
 *   `catchUp` says (that setting is about slots Scheduler never delivered).
 * - A delivered, unfinished occurrence the current definition no longer has (a redeploy changed the
 *   schedule: `cron(0/5 …)` to `cron(0/10 …)` leaves :05 skipped `overlap` off the schedule) cannot be
 *   caught up: {@link offScheduleSlots} names it, and the sweeper records it `skipped/not-on-schedule`
 *   (a problem record the alarms count).
 */
import { awaitsAbandonMark, doneSlotsFor, type LeaseItem, openHolders } from './lease.js';
import { Outcome, Reason } from './outcomes.js';
import type { Slot } from './schedule/slot.js';

/** The fields of a run record the status reads. */
export interface RecordFacts {
  readonly slot: string;
  /** The occurrence's instant (ISO), when the record knows it (abandoned marks do not). */
  readonly scheduledTime?: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly trigger?: string;
  readonly shard?: number;
  /** Shard runs: the shard count the run's payload was cut for. */
  readonly shards?: number;
  readonly def?: string;
}

/** What the sweeper knows about one expected slot. */
export interface SlotStatus {
  readonly slot: Slot;
  readonly done: boolean;
  /** An attempt of it (or of one of its shards) started and never finished. */
  readonly started: boolean;
  /** Sharded jobs: shard indexes not done yet (empty when done or unsharded). */
  readonly missingShards: readonly number[];
  /** Catch-up attempts that ended failed / stale / abandoned. */
  readonly failedCatchUps: number;
}

const UNFINISHED: readonly string[] = [Outcome.Failed, Outcome.Stale, Outcome.Abandoned];

/**
 * Records that do not mean "this occurrence was delivered and has not run": the sweeper's own skips,
 * refused events (recorded as problems themselves) and re-fanned-out shard payloads.
 */
const NOT_DELIVERED: readonly string[] = [
  Reason.CatchUpLimit,
  Reason.Superseded,
  Reason.NotOnSchedule,
  Reason.Resharded,
  Reason.AlreadySucceeded,
  // Refused while paused: after `resume` such a slot is a missed one, left to the job's catch-up rule.
  Reason.Paused,
  // Refused by a full buffer (overlap `buffer-*`): like a missed slot, left to the job's catch-up rule.
  Reason.BufferFull,
  // The sweeper's own note on a slot waiting for its predecessor (the waiting record itself counts).
  Reason.WaitingTooLong,
];

const underDef = (def: string) => (r: { def?: string }) => r.def === undefined || r.def === def;

/**
 * Status of each expected slot.
 * @param leases the job lease (index `undefined`) and, for a sharded job, each shard lease by index.
 * @param shards the job's current shard count (1 = unsharded).
 * @param def the current definition id (`definitionId`).
 * @param nowMs the sweep's clock, epoch ms.
 */
export function slotStatuses(input: {
  readonly expected: readonly Slot[];
  readonly records: readonly RecordFacts[];
  readonly leases: ReadonlyMap<number | undefined, LeaseItem | undefined>;
  readonly shards: number;
  readonly def: string;
  readonly nowMs: number;
}): SlotStatus[] {
  const ok = underDef(input.def);
  const records = input.records.filter(ok);
  const sharded = input.shards > 1;
  // A sharded slot completed under an earlier shard count (every shard of that count succeeded under
  // that count's definition) is done: completion is per key space, not per current count.
  const doneEarlier = new Set<string>();
  if (sharded) {
    const byDefSlot = new Map<string, { n: number; shards: Set<number> }>();
    for (const r of input.records) {
      if (r.outcome !== Outcome.Succeeded || r.shard === undefined || r.shards === undefined) continue;
      const k = `${r.def ?? ''}|${r.slot}`;
      const e = byDefSlot.get(k) ?? { n: r.shards, shards: new Set<number>() };
      e.shards.add(r.shard);
      byDefSlot.set(k, e);
    }
    for (const [k, e] of byDefSlot) if (e.shards.size >= e.n) doneEarlier.add(k.slice(k.indexOf('|') + 1));
  }
  const keyOf = (slot: string, shard: number | undefined) => `${slot}|${shard ?? ''}`;
  const succeeded = new Set<string>();
  const started = new Set<string>();
  const failedCatchUps = new Map<string, number>();
  for (const r of input.records) {
    const k = keyOf(r.slot, r.shard);
    // Delivered and unfinished under any definition (a redeploy does not make it less delivered).
    if (r.outcome !== Outcome.Succeeded && !NOT_DELIVERED.includes(r.reason ?? '')) {
      started.add(k);
      // By instant too: after a zone change the same occurrence has another slot id.
      if (r.scheduledTime) started.add(`@${Date.parse(r.scheduledTime)}|${r.shard ?? ''}`);
    }
  }
  for (const r of records) {
    const k = keyOf(r.slot, r.shard);
    if (r.outcome === Outcome.Succeeded) succeeded.add(k);
    if (r.trigger === 'catch-up' && UNFINISHED.includes(r.outcome))
      failedCatchUps.set(r.slot, (failedCatchUps.get(r.slot) ?? 0) + 1);
  }
  for (const [shard, item] of input.leases) {
    if (sharded !== (shard !== undefined) || !item) continue;
    if (item.def === undefined || item.def === input.def)
      for (const id of doneSlotsFor(item, undefined)) succeeded.add(keyOf(id, shard));
    if (awaitsAbandonMark(item.holderState) && (item.leaseUntilMs ?? 0) < input.nowMs && item.slot)
      started.add(keyOf(item.slot, shard));
    for (const h of openHolders(item)) if (h.leaseUntilMs < input.nowMs) started.add(keyOf(h.slot, shard));
  }
  return input.expected.map((slot) => {
    const parts = sharded ? Array.from({ length: input.shards }, (_, i) => i) : [undefined];
    const missing = doneEarlier.has(slot.id) ? [] : parts.filter((p) => !succeeded.has(keyOf(slot.id, p)));
    const anyShardStarted = [...started].some(
      (k) => (k.startsWith(`${slot.id}|`) || k.startsWith(`@${slot.scheduledTimeMs}|`)) && !k.endsWith('|'),
    );
    const at = `@${slot.scheduledTimeMs}`;
    const begun =
      parts.some(
        (p) =>
          started.has(keyOf(slot.id, p)) || started.has(keyOf(at, p)) || succeeded.has(keyOf(slot.id, p)),
      ) ||
      started.has(keyOf(at, undefined)) ||
      (sharded && anyShardStarted);
    // A sharded slot whose fan-out ran (any shard record or lease trace) has started.
    const fanOut = sharded && input.records.some((r) => r.slot === slot.id && r.shard === undefined);
    return {
      slot,
      done: missing.length === 0,
      started: missing.length > 0 && (sharded ? begun || fanOut : begun),
      missingShards: sharded ? (missing as number[]) : [],
      failedCatchUps: failedCatchUps.get(slot.id) ?? 0,
    };
  });
}

/** Records that already make an occurrence a problem the alarms count. */
const PROBLEM: readonly string[] = [Outcome.Failed, Outcome.Stale];

/** A delivered, unfinished occurrence that is not on the current schedule (see {@link offScheduleSlots}). */
export interface OffScheduleSlot {
  /** The slot id its records carry (under the definition that delivered it). */
  readonly slot: string;
  /** The occurrence's instant, epoch ms. */
  readonly scheduledTimeMs: number;
}

/**
 * Delivered occurrences the current definition no longer has, that never finished and were never
 * recorded as a problem: an occurrence with a delivered-and-unfinished record (an `overlap` /
 * `lease-held` / `deadline` skip, ...: not `succeeded`, not one of the sweeper's or the refusals' own
 * records), whose instant lies in `[fromMs, toMs]` but matches no expected slot (by instant or by id),
 * and that has no `succeeded` record (unsharded; sharded: every shard of one count, under one
 * definition) and no problem record yet (`failed`, `stale`, `not-on-schedule`). Records without an
 * instant (abandoned marks) are left out: the killed holder's event is retried by Lambda, whose retry
 * under the new definition records `not-on-schedule` itself (or the event lands in the dead-letter queue).
 * @param fromMs first instant of the sweep window, epoch ms (inclusive).
 * @param toMs last instant of the sweep window, epoch ms (inclusive).
 */
export function offScheduleSlots(input: {
  readonly expected: readonly Slot[];
  readonly records: readonly RecordFacts[];
  readonly fromMs: number;
  readonly toMs: number;
}): OffScheduleSlot[] {
  const expectedAt = new Set(input.expected.map((s) => s.scheduledTimeMs));
  const expectedIds = new Set(input.expected.map((s) => s.id));
  const byInstant = new Map<number, RecordFacts[]>();
  for (const r of input.records) {
    if (!r.scheduledTime) continue;
    const at = Date.parse(r.scheduledTime);
    if (!Number.isFinite(at) || at < input.fromMs || at > input.toMs) continue;
    if (expectedAt.has(at) || expectedIds.has(r.slot)) continue;
    byInstant.set(at, [...(byInstant.get(at) ?? []), r]);
  }
  const out: OffScheduleSlot[] = [];
  for (const [at, rs] of byInstant) {
    const unfinished = rs.find(
      (r) => r.outcome !== Outcome.Succeeded && !NOT_DELIVERED.includes(r.reason ?? ''),
    );
    if (!unfinished || rs.some((r) => PROBLEM.includes(r.outcome) || r.reason === Reason.NotOnSchedule))
      continue;
    const sharded = rs.some((r) => r.shard !== undefined);
    if (!sharded && rs.some((r) => r.outcome === Outcome.Succeeded)) continue;
    const shardsDone = new Map<string, Set<number>>();
    for (const r of rs) {
      if (r.outcome !== Outcome.Succeeded || r.shard === undefined || r.shards === undefined) continue;
      const k = `${r.def ?? ''}|${r.shards}`;
      shardsDone.set(k, (shardsDone.get(k) ?? new Set<number>()).add(r.shard));
    }
    if ([...shardsDone].some(([k, got]) => got.size >= Number(k.slice(k.indexOf('|') + 1)))) continue;
    out.push({ slot: unfinished.slot, scheduledTimeMs: at });
  }
  return out.sort((a, b) => a.scheduledTimeMs - b.scheduledTimeMs);
}
