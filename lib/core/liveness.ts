/**
 * Pure liveness rules (docs/design.md "When is a slot done"): which definition a slot id belongs to,
 * when a same-slot skip must not be the end of the line, and when a claim must look past the bounded
 * done set before running a slot again. Nothing here does I/O.
 */
import { awaitsAbandonMark, type LeaseItem, type OpenHolder, StoredDoneSlots } from './lease.js';

/**
 * The identity of a job's slot ids: its schedule expression, zone and DST-gap policy (cron only), and for sharded
 * leases the shard count (a shard index means a different key space under another count). Slot ids
 * are local wall-clock minutes, so `2026-03-28T05:00` in Asia/Tokyo and in America/Los_Angeles are
 * different occurrences: done sets and run records are only compared under the same id.
 * FNV-1a (32 bit) of the parts, base 36 (stable across processes and releases).
 * @example definitionId({ schedule: 'cron(0 * * * ? *)', timeZone: 'Asia/Tokyo' }) // e.g. '1x3k9qz'
 */
export function definitionId(def: {
  readonly schedule: string;
  readonly timeZone: string;
  readonly dstGap?: string;
  readonly shards?: number;
}): string {
  // rate() and at() slot ids are UTC instants: the zone does not change them, so it is not part of it.
  const cron = def.schedule.startsWith('cron(');
  const text = [
    def.schedule,
    cron ? def.timeZone : '-',
    cron ? (def.dstGap ?? '-') : '-',
    (def.shards ?? 1) > 1 ? def.shards : '',
  ]
    .map(String)
    .join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/**
 * Should a claimer that found its own slot held wait for the lease and claim again, rather than skip?
 * A live holder renews every `renewFraction` of its lease; one that has not renewed for longer than
 * that (plus `slackMs` for skew and scheduling) may be dead, and then the skip must not be the end of
 * the line. The claimer waits when the holder's lease ends inside its own remaining time.
 * @returns `wait` with how long (ms, by the claimer's clock), `skip` (holder alive), or `retry-later`
 *   (holder may be dead but its lease outlives this invocation: fail retryably).
 */
export function sameSlotHeldAction(input: {
  readonly nowMs: number;
  readonly leaseUntilMs: number;
  readonly renewedAtMs: number;
  readonly leaseMs: number;
  readonly renewFraction: number;
  /** Lambda time left, ms. */
  readonly remainingMs: number;
  /** Time the claimer needs after the wait to run at all, ms. */
  readonly minRemainingMs: number;
  /** Skew and scheduling allowance, ms. */
  readonly slackMs: number;
}): { kind: 'skip' } | { kind: 'wait'; waitMs: number } | { kind: 'retry-later' } {
  const silentMs = input.nowMs - input.renewedAtMs;
  const renewEveryMs = input.leaseMs * input.renewFraction;
  if (silentMs <= renewEveryMs + input.slackMs) return { kind: 'skip' };
  const waitMs = Math.max(0, input.leaseUntilMs - input.nowMs) + input.slackMs;
  if (waitMs + input.minRemainingMs <= input.remainingMs) return { kind: 'wait', waitMs };
  return { kind: 'retry-later' };
}

/**
 * Must an acquired, non-manual claim check the run records before running? True only when the slot is
 * older than every slot the bounded done set still remembers (so the set cannot say whether it
 * succeeded): a late copy (Lambda keeps throttled async events up to 6 h, Scheduler retries hand-offs up
 * to 24 h). Costs one Query, only on that path; the normal path (the newest slot) never reads.
 */
export function needsDoneCheck(doneSlots: ReadonlySet<string>, slotId: string): boolean {
  if (doneSlots.size === 0 || doneSlots.has(slotId)) return false;
  if (doneSlots instanceof StoredDoneSlots) return doneSlots.precedesAll(slotId);
  let oldest: string | undefined;
  for (const id of doneSlots) if (oldest === undefined || id < oldest) oldest = id;
  return oldest !== undefined && slotId < oldest;
}

/**
 * The holders a new claim must mark `abandoned`: every earlier open claim (deduplicated, not us).
 * Marking is conditional on no record existing, so a holder that recorded its outcome keeps it.
 */
export function holdersToMark(open: readonly OpenHolder[] | undefined, me: string): OpenHolder[] {
  const seen = new Set<string>([me]);
  const out: OpenHolder[] = [];
  for (const h of open ?? []) {
    if (seen.has(h.runId)) continue;
    seen.add(h.runId);
    out.push(h);
  }
  return out;
}

/** True when the lease item shows a claim that started and was never released, and whose lease is over. */
export function startedNeverFinished(item: LeaseItem | undefined, nowMs: number): boolean {
  return awaitsAbandonMark(item?.holderState) && (item?.leaseUntilMs ?? 0) < nowMs;
}
