/**
 * The overlap-policy invariants, read from what the store accepted and what the runs observed (true
 * time of the recorder), the run records and the provider calls:
 *
 * - O1 never two live holders: no claim is accepted while another run of the same lease still holds it
 *   by more than the skew budget (judged only between clocks within the budget) (clocks within the budget; workers whose clock left it are not judged) (except `replace`, which must raise the fence and respect
 *   `replaceAfterSeconds`), and no renewal sent after a higher fence claimed the lease is accepted.
 * - O2 no write or send by a displaced holder after its displacement: once a `replace` claim took the
 *   lease from a run that still held it by its own clock, no write that run decides later is accepted
 *   and it calls the provider only for an effect it had marked `sending` before.
 * - O3 under after-previous, no slot succeeds before its predecessor: a succeeding run claimed only after
 *   the previous slot's success was being recorded (when that slot was delivered or has records). With
 *   `catchUp.since` the chain starts at the job's first slot and every success is judged, the first
 *   included; without, it starts at the job's first success (not judged), and no slot before that one
 *   succeeds after it. A success is a run whose `succeeded` record landed (an attempt whose record
 *   failed is not one: its slot is re-run).
 * - O4 every buffered occurrence ends succeeded or with a counted problem (failed, stale, a problem
 *   skip the SlotNotRun alarm counts, or its event in the dead-letter queue).
 * - O5 under replace (at any age), an arrival never yields to a live holder of an older slot: no
 *   scheduled, retried or manual run of a slot is recorded `skipped / overlap` naming a holder of an
 *   earlier slot whose lease it saw live (the newest wins, also when two arrivals race to replace the
 *   same holder). Catch-up runs never replace.
 */
import type { Recorded } from '../../report/recording.js';
import { type Check, check, startsWork } from '../checks.js';
import { SLOT_MINUTES } from './jobs.js';
import { bufferedEnd, newestWins } from './overlap-outcomes.js';
import type { HistoryOutcome } from './run-history.js';

/** Names of the overlap invariants, in report order. */
export const OVERLAP_INVARIANTS = [
  'O1 never two live holders',
  'O2 no write or send by a displaced holder after its displacement',
  'O3 under after-previous, no slot succeeds before its predecessor',
  'O4 every buffered occurrence ends succeeded or with a counted problem',
  'O5 under replace, an arrival never yields to a live holder of an older slot',
] as const;

type Runtime = Extract<Recorded, { kind: 'runtime' }>;

interface Holding {
  readonly runId: string;
  readonly worker: string;
  /** The run's clock offset at its last claim or renewal, ms. */
  skewMs: number;
  readonly lease: string;
  readonly fence: number;
  readonly claimedAtMs: number;
  /** The lease's end by the run's own clock, converted to true time. */
  untilMs: number;
  /** True time the run first sent its release or recorded its finish. */
  endedAtMs?: number;
  /** True time a replace claim took the lease from it while it still held it. */
  displacedAtMs?: number;
}

const leaseOf = (ev: Runtime['event']) => `JOB#${ev.job}${ev.shard !== undefined ? `#${ev.shard}` : ''}`;
const accepted = (r: string) => r === 'ok' || r === 'lost';

/** The result entry that answered request `i` (the next result of that worker, run, op and key). */
function resultOf(entries: readonly Recorded[], i: number): string | undefined {
  const q = entries[i];
  if (q?.kind !== 'request') return undefined;
  for (let j = i + 1; j < entries.length; j++) {
    const e = entries[j];
    if (
      e?.kind === 'result' &&
      e.worker === q.worker &&
      e.op === q.op &&
      e.runId === q.runId &&
      e.key === q.key
    )
      return e.result;
  }
  return undefined;
}

/** O1 and the displacements O2 reads. */
export function liveHolders(
  o: HistoryOutcome,
  skewBudgetMs: number,
): { check: Check; holdings: Map<string, Holding> } {
  const holdings = new Map<string, Holding>();
  const bad: string[] = [];
  let claims = 0;
  const { entries } = o;
  for (const [i, e] of entries.entries()) {
    if (e.kind === 'runtime') {
      const ev = e.event;
      const mine = holdings.get(ev.runId);
      if (ev.type === 'claim-won' && ev.fence !== undefined) {
        claims++;
        const lease = leaseOf(ev);
        // A clock that left the skew budget (frozen-clock, skewed-lookup) cannot judge a lease's end:
        // then safety rests on the fences (I1, I2, I5-I8), as in I4.
        // (measured as well: a worker's clock offset is its event's time less the true time)
        const off = (worker: string, skewMs: number) =>
          o.offBudgetWorkers.has(worker) || Math.abs(skewMs) > skewBudgetMs / 2;
        const offBudget = off(e.worker, ev.atMs - e.atMs);
        for (const h of holdings.values()) {
          if (h.lease !== lease || h.runId === ev.runId || h.endedAtMs !== undefined || h.displacedAtMs)
            continue;
          if (e.atMs >= h.untilMs || offBudget || off(h.worker, h.skewMs)) continue;
          // The `restore` shape: a lease claimed after the backup is gone with the restored table.
          if (o.lostWithRestore?.has(h.runId)) continue;
          if (o.overlap === 'replace') {
            if (ev.fence <= h.fence)
              bad.push(
                `${ev.runId} replaced ${h.runId} without raising the fence (${ev.fence} ≤ ${h.fence})`,
              );
            h.displacedAtMs = e.atMs;
          } else if (h.untilMs - e.atMs > skewBudgetMs)
            bad.push(
              `${ev.runId} claimed ${lease} (fence ${ev.fence}) while ${h.runId} held it ${Math.round((h.untilMs - e.atMs) / 1000)} s more (${o.overlap ?? 'skip'})`,
            );
        }
        holdings.set(ev.runId, {
          runId: ev.runId,
          worker: e.worker,
          skewMs: ev.atMs - e.atMs,
          lease,
          fence: ev.fence,
          claimedAtMs: e.atMs,
          untilMs: ev.leaseUntilMs - (ev.atMs - e.atMs),
        });
      } else if (ev.type === 'renew' && ev.ok && mine) {
        mine.untilMs = ev.leaseUntilMs - (ev.atMs - e.atMs);
        mine.skewMs = ev.atMs - e.atMs;
      } else if (ev.type === 'finish' && mine && mine.endedAtMs === undefined) mine.endedAtMs = e.atMs;
    } else if (e.kind === 'request' && e.runId !== undefined) {
      const h = holdings.get(e.runId);
      if (!h) continue;
      if (e.op === 'release' && h.endedAtMs === undefined) h.endedAtMs = e.atMs;
      if (e.op !== 'renew' || !accepted(resultOf(entries, i) ?? '')) continue;
      const newer = [...holdings.values()].find(
        (x) => x.lease === h.lease && x.fence > h.fence && x.claimedAtMs < e.atMs,
      );
      if (newer)
        bad.push(`${h.runId} (fence ${h.fence}) renewed after ${newer.runId} claimed fence ${newer.fence}`);
    }
  }
  return {
    holdings,
    check: check(
      OVERLAP_INVARIANTS[0],
      bad.length === 0,
      bad.length ? bad.slice(0, 3).join('; ') : `${claims} accepted claims, never two live holders`,
    ),
  };
}

/** O2, from the displacements {@link liveHolders} found. */
export function noDisplacedWork(o: HistoryOutcome, holdings: ReadonlyMap<string, Holding>): Check {
  const bad: string[] = [];
  const decided = new Set<string>();
  const displaced = [...holdings.values()].filter((h) => h.displacedAtMs !== undefined);
  const markedBefore = new Map<string, number>();
  for (const [i, e] of o.entries.entries()) {
    if (e.kind !== 'request' || e.runId === undefined || !startsWork(e)) continue;
    const id = `${e.runId}|${e.op}|${e.key}`;
    const first = !decided.has(id);
    decided.add(id);
    const h = holdings.get(e.runId);
    const at = h?.displacedAtMs;
    if (at === undefined) continue;
    const ok = accepted(resultOf(o.entries, i) ?? '');
    if (e.op === 'effect' && ok && e.atMs <= at) markedBefore.set(`${e.runId}|${e.key}`, e.atMs);
    if (first && ok && e.atMs > at)
      bad.push(
        `${e.runId} ${e.op} ${e.key} accepted ${((e.atMs - at) / 1000).toFixed(1)} s after its displacement`,
      );
  }
  for (const c of o.sends) {
    const at = holdings.get(c.runId)?.displacedAtMs;
    if (at === undefined || c.atMs <= at) continue;
    const marked = [...markedBefore.keys()].some(
      (k) => k.startsWith(`${c.runId}|`) && k.includes(`${c.key}"`),
    );
    if (!marked)
      bad.push(
        `${c.runId} called the provider for ${c.key} ${((c.atMs - at) / 1000).toFixed(1)} s after its displacement`,
      );
  }
  return check(
    OVERLAP_INVARIANTS[1],
    bad.length === 0,
    bad.length
      ? bad.slice(0, 3).join('; ')
      : `${displaced.length} displaced holders, none wrote or sent after its displacement`,
  );
}

/** O3: the settle job under after-previous. */
export function inSlotOrder(o: HistoryOutcome): Check {
  if (o.overlap !== 'after-previous') return check(OVERLAP_INVARIANTS[2], true, 'not after-previous');
  const slotMs = SLOT_MINUTES * 60_000;
  const claimAt = new Map<string, number>();
  const successAt = new Map<number, number>();
  for (const e of o.entries) {
    if (e.kind !== 'runtime' || e.event.job !== 'ex-settle') continue;
    if (e.event.type === 'claim-won' && !claimAt.has(e.event.runId)) claimAt.set(e.event.runId, e.atMs);
  }
  const settle = o.records.filter((r) => r.job === 'ex-settle');
  // A mark a later claimer wrote (`abandoned`) names the slot but not its scheduled time: map by slot id.
  const scheduledMs = new Map(
    settle
      .filter((r) => r.scheduledTime !== undefined)
      .map((r) => [r.slot, Date.parse(String(r.scheduledTime))]),
  );
  const runSlot = new Map(
    settle.map((r) => [
      String(r.runId),
      r.scheduledTime !== undefined ? Date.parse(String(r.scheduledTime)) : scheduledMs.get(r.slot),
    ]),
  );
  // A success is one whose record landed: a run that began recording `succeeded` but whose record was
  // refused or never written is a failed attempt (its slot is not done and is re-run), not a success.
  const landed = new Set(settle.filter((r) => r.outcome === 'succeeded').map((r) => String(r.runId)));
  for (const e of o.entries)
    if (
      e.kind === 'runtime' &&
      e.event.type === 'recording' &&
      e.event.outcome === 'succeeded' &&
      landed.has(e.event.runId)
    ) {
      const slot = runSlot.get(e.event.runId);
      if (slot !== undefined && !successAt.has(slot)) successAt.set(slot, e.atMs);
    }
  const known = new Set([
    ...settle.map((r) => Date.parse(String(r.scheduledTime))),
    ...(o.lambda?.delivered ?? []).filter((d) => d.job === 'ex-settle').map((d) => d.scheduledTimeMs),
  ]);
  const bad: string[] = [];
  let succeeded = 0;
  const firstAt = Math.min(...successAt.values());
  const chainStart = o.overlapSince ? undefined : [...successAt].find(([, at]) => at === firstAt)?.[0];
  for (const r of settle) {
    if (r.outcome !== 'succeeded') continue;
    succeeded++;
    const slot = Date.parse(String(r.scheduledTime));
    if (chainStart !== undefined && slot < chainStart) {
      bad.push(
        `${r.scheduledTime} succeeded after the chain started at ${new Date(chainStart).toISOString()}`,
      );
      continue;
    }
    if (slot === chainStart) continue;
    const previous = slot - slotMs;
    if (!known.has(previous)) continue;
    const claimed = claimAt.get(String(r.runId)) ?? Number.NEGATIVE_INFINITY;
    const before = successAt.get(previous);
    if (before === undefined)
      bad.push(`${r.scheduledTime} succeeded (${r.runId}); its predecessor never did`);
    else if (claimed < before)
      bad.push(
        `${r.scheduledTime} claimed ${((before - claimed) / 1000).toFixed(1)} s before its predecessor succeeded`,
      );
  }
  return check(
    OVERLAP_INVARIANTS[2],
    bad.length === 0,
    bad.length ? bad.slice(0, 3).join('; ') : `${succeeded} succeeded slots, each after its predecessor`,
  );
}

/** Every overlap invariant on one history. */
export function checkOverlap(o: HistoryOutcome, skewBudgetMs: number): Check[] {
  const live = liveHolders(o, skewBudgetMs);
  return [live.check, noDisplacedWork(o, live.holdings), inSlotOrder(o), bufferedEnd(o), newestWins(o)];
}
