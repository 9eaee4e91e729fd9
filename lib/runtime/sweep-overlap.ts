/**
 * The sweeper's part of the overlap policies (lib/core/overlap.ts, docs/design.md "Overlap policies"),
 * run before the catch-up steps: which slots it starts itself, in slot order, and which the catch-up
 * steps must leave alone (`heldBack`).
 * - `buffer-*`: the buffered slots wait on the lease item; once the lease is free the first of them is
 *   started (the release path may have started it already: the claim decides, never twice), also one
 *   younger than the sweep window's grace (it was delivered: the grace is for slots Scheduler may still
 *   deliver). A buffered slot that can no longer run (done meanwhile, or older than the sweep window)
 *   is taken off the list.
 * - `after-previous`: only the earliest slot not done is started; the slots behind it wait. A slot
 *   that has waited past `waitingProblemAfterSeconds` is recorded `skipped / waiting-too-long` once
 *   (`SlotNotRun` counts it); it still runs once its predecessor succeeds.
 */
import { Outcome, Reason } from '../core/outcomes.js';
import { OverlapPolicy, overlapOf } from '../core/overlap.js';
import { predecessorOf } from '../core/overlap-previous.js';
import type { Slot } from '../core/schedule/slot.js';
import { schedulePeriodMs } from '../core/schedule/validate.js';
import { bufferedSlots } from '../store/protocol/operations.js';
import { shardPayloads } from './fan-out.js';
import { bufferedSlot } from './overlap-start.js';
import { catchUpPayload, type JobView, type Sweep } from './sweep-phases.js';

/** Run id of the sweeper's `waiting-too-long` record of a slot (one per slot: a put that never repeats). */
export const WAITING_TOO_LONG_RUN_ID = 'sweeper-waiting-too-long';

/**
 * Start what the job's overlap policy starts itself, and say which slots the catch-up steps must not
 * trigger. @returns the held-back slot ids (empty under `skip` and `replace`).
 * @throws StoreError, or the target's invoke error
 */
export async function sweepOverlap(s: Sweep, v: JobView): Promise<ReadonlySet<string>> {
  const overlap = overlapOf(v.target.definition);
  if (overlap.maxBuffered > 0) return startBuffered(s, v);
  if (overlap.policy !== OverlapPolicy.AfterPrevious) return new Set();
  // A definition parsed by defineJob carries its bound; one built by hand gets the default of two periods.
  const periodMs = schedulePeriodMs(v.target.expression, s.nowMs);
  return startEarliest(s, v, overlapOf(v.target.definition, { periodMs }).waitingProblemAfterSeconds);
}

async function startBuffered(s: Sweep, v: JobView): Promise<ReadonlySet<string>> {
  const held = new Set<string>();
  for (const [shard, item] of v.leases) {
    if (v.target.definition.shards > 1 !== (shard !== undefined)) continue;
    const waiting = bufferedSlots(item);
    for (const id of waiting) held.add(id);
    const live = item?.holderState === 'running' && (item.leaseUntilMs ?? 0) >= s.nowMs;
    if (live) continue;
    for (const id of waiting) {
      const status = v.statuses.find((st) => st.slot.id === id);
      const ref = { job: v.key, ...(shard !== undefined && { shard }), slotId: id };
      // Not in the window: younger than its grace (delivered, waiting: start it), or older (drop it).
      const young = status ? undefined : bufferedSlot(v.target.definition, v.target.expression, id);
      const slot = status?.slot ?? (young && young.scheduledTimeMs > v.toMs ? young : undefined);
      if (!slot || (status?.done && !status.missingShards.includes(shard ?? -1))) {
        await s.deps.leases.unbuffer(ref);
        s.decide({
          job: v.job,
          slot: id,
          action: 'skipped',
          reason: status ? 'buffered-done' : 'buffered-outside-window',
        });
        continue;
      }
      const base = catchUpPayload(v.job, slot, 'buffered');
      const payloads =
        shard === undefined ? [base] : shardPayloads(base, v.target.definition.shards, [shard]);
      for (const p of payloads) await v.target.invoke(p, slot);
      s.decide({ job: v.job, slot: id, action: 'triggered', reason: 'buffered' });
      break;
    }
  }
  return held;
}

async function startEarliest(s: Sweep, v: JobView, boundSeconds: number): Promise<ReadonlySet<string>> {
  // The chain starts after the latest done slot: slots before it are older than the chain (before the
  // job's first success, or before `catchUp.since`) and never hold it back.
  const lastDone = v.statuses.map((st) => st.done).lastIndexOf(true);
  const notDone = v.statuses.slice(lastDone + 1).filter((st) => !st.done);
  // The earliest slot not done goes next: caught up as unfinished (it started) or by the catch-up rule
  // (a slot never delivered); every slot behind it waits.
  const head = notDone[0];
  const beforeChain = v.statuses.slice(0, lastDone + 1).filter((st) => !st.done);
  const held = new Set([...beforeChain, ...notDone.filter((st) => st !== head)].map((st) => st.slot.id));
  const recorded = new Set(v.records.filter((r) => r.reason === Reason.WaitingTooLong).map((r) => r.slot));
  for (const st of [...beforeChain, ...notDone]) {
    const waited = v.records.some((r) => r.slot === st.slot.id && r.reason === Reason.WaitingForPrevious);
    if (!waited || recorded.has(st.slot.id) || s.nowMs - st.slot.scheduledTimeMs <= boundSeconds * 1000)
      continue;
    await s.deps.runs.put(
      {
        job: v.key,
        slot: st.slot.id,
        scheduledTime: new Date(st.slot.scheduledTimeMs).toISOString(),
        businessDate: st.slot.businessDate,
        runId: WAITING_TOO_LONG_RUN_ID,
        trigger: 'catch-up',
        requestedBy: 'sweeper',
        outcome: Outcome.Skipped,
        reason: Reason.WaitingTooLong,
        startedAtMs: s.nowMs,
        finishedAtMs: s.nowMs,
        durationMs: 0,
        // The slot it waits for, as its waiting-for-previous record names it (`cronfence why` shows it).
        details: { waitingProblemAfterSeconds: boundSeconds, ...waitingForOf(v, st.slot) },
        def: v.def,
      },
      v.target.definition.runRetentionDays,
    );
    s.problem({ job: v.job, slot: st.slot.id, outcome: Outcome.Skipped, reason: Reason.WaitingTooLong });
  }
  return held;
}

/** The `waitingFor` detail of a slot under `after-previous`: its previous occurrence, when it has one. */
function waitingForOf(v: JobView, slot: Slot): { waitingFor?: string } {
  const prev = predecessorOf(v.target.definition, v.target.expression, slot).id;
  return prev === undefined ? {} : { waitingFor: prev };
}
