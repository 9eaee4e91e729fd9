/**
 * What an occurrence does when its claim found another slot's run holding the lease (or, under
 * `buffer-*` and `after-previous`, a free lease its policy keeps for another slot): the overlap
 * policy's arrival path (lib/core/overlap.ts, docs/design.md "Overlap policies"). `skip` keeps the
 * claim's decision (`skipped / overlap`); the others buffer, replace or wait, each with one
 * conditional write at most, decided from the item the refused claim returned.
 */
import type { ClaimDecision, LeaseItem } from '../core/lease.js';
import { decideClaimFailed, wasReplaced } from '../core/lease.js';
import { Outcome, Reason } from '../core/outcomes.js';
import { type Overlap, OverlapPolicy } from '../core/overlap.js';
import type { ClaimRequest, HolderSeen, LeaseRef } from '../core/ports.js';
import { LeaseLostError } from '../store/errors.js';
import type { RuntimeDeps } from './deps.js';
import type { RuntimeEventBody } from './events.js';
import type { RunSummary } from './run-summary.js';

/** What the arrival path uses of the run session. */
export interface ArrivalPort {
  readonly overlap: Overlap;
  readonly slotId: string;
  /** The run is a catch-up of a past slot started by the sweeper (or the release path). */
  readonly catchUp: boolean;
  readonly deps: RuntimeDeps;
  /** `after-previous`: the occurrence this slot waits for. */
  readonly previousSlotId?: string;
  readonly details: Record<string, unknown>;
  claimRequest(nowMs: number, untilMs: number): ClaimRequest;
  claim(nowMs: number, untilMs: number): Promise<ClaimDecision>;
  record(outcome: Outcome, reason: Reason, holderSeen: HolderSeen | undefined): Promise<RunSummary>;
  emit(e: RuntimeEventBody): void;
}

/** The arrival's result: a claim decision to go on with, or the record it already wrote. */
export type Arrival =
  | { readonly kind: 'decision'; readonly decision: ClaimDecision }
  | { readonly kind: 'recorded'; readonly summary: RunSummary };

type Held = Extract<ClaimDecision, { kind: 'held' }>;

const decided = (decision: ClaimDecision): Arrival => ({ kind: 'decision', decision });

function seen(d: Held): HolderSeen {
  return { runId: d.holderRunId, slot: d.holderSlot, leaseUntilMs: d.leaseUntilMs, fence: d.fence };
}

async function recorded(p: ArrivalPort, outcome: Outcome, reason: Reason, d: Held): Promise<Arrival> {
  p.emit({ type: 'claim-lost', reason, holderRunId: d.holderRunId, leaseUntilMs: d.leaseUntilMs });
  return { kind: 'recorded', summary: await p.record(outcome, reason, seen(d)) };
}

/**
 * The overlap policy's answer to a refused claim. A decision other than "held by another slot" (ours,
 * done, paused, the same slot held) is returned as it is, whatever the policy.
 * @throws StoreError from the policy's own write (buffer, replace) or the record.
 */
export async function arriveUnderHolder(
  p: ArrivalPort,
  decision: ClaimDecision,
  nowMs: number,
  untilMs: number,
): Promise<Arrival> {
  if (decision.kind !== 'held' || decision.sameSlot) return decided(decision);
  switch (p.overlap.policy) {
    case OverlapPolicy.BufferOne:
    case OverlapPolicy.BufferAll:
      return buffer(p, decision, nowMs, untilMs);
    case OverlapPolicy.Replace:
      return decided(await replace(p, decision, nowMs, untilMs));
    case OverlapPolicy.AfterPrevious:
      if (p.previousSlotId !== undefined) p.details.waitingFor = p.previousSlotId;
      return recorded(p, Outcome.Skipped, Reason.WaitingForPrevious, decision);
    default:
      return decided(decision);
  }
}

/** How many holders one arrival may try to replace: each newer holder it finds raced it there. */
const REPLACE_ATTEMPTS = 4;

/**
 * `replace`: take the lease from a live holder of an older slot (one conditional write). When another
 * arrival replaced that holder first and its slot is older than ours too, the newest still wins: the
 * refused write's item names the new holder and the arrival replaces it in turn, at most
 * {@link REPLACE_ATTEMPTS} writes (each only on this contended path). A catch-up run does not replace:
 * it re-runs a past slot, and the sweeper starts several at once — they would displace one another
 * (and the live run) in turn; it is skipped (`overlap`) and the next sweep starts it again.
 */
async function replace(p: ArrivalPort, first: Held, nowMs: number, untilMs: number): Promise<ClaimDecision> {
  if (p.catchUp) return first;
  let d: ClaimDecision = first;
  for (let attempt = 0; attempt < REPLACE_ATTEMPTS; attempt++) {
    if (d.kind !== 'held' || d.sameSlot) return d;
    const live = d.holderState === 'running' && d.leaseUntilMs >= nowMs;
    if (!live || !(d.holderSlot < p.slotId)) return d;
    const holder = d;
    // The holder got the lease by displacing fence − 1: the chain of displacements goes on.
    const chainFromFence =
      holder.replaced?.toFence === holder.fence - 1 ? holder.replaced.fromFence : holder.fence;
    d = await p.deps.leases.replace({
      ...p.claimRequest(nowMs, untilMs),
      holder: { runId: holder.holderRunId, fence: holder.fence, chainFromFence },
      replaceAfterSeconds: p.overlap.replaceAfterSeconds,
    });
    if (d.kind === 'acquired') {
      p.details.replaced = seen(holder);
      return d;
    }
  }
  return d;
}

/**
 * `buffer-*`: a slot already waiting is a duplicate (`skipped / lease-held`, `details.buffered`); a full
 * buffer is `skipped / buffer-full` — both told by the claim's returned item, without a write; else one
 * `ADD buffered` write, recorded `buffered`. A lease found free meanwhile is claimed once more.
 */
async function buffer(p: ArrivalPort, d: Held, nowMs: number, untilMs: number): Promise<Arrival> {
  const max = p.overlap.maxBuffered;
  if (d.buffered.includes(p.slotId)) {
    p.details.buffered = d.buffered;
    return recorded(p, Outcome.Skipped, Reason.LeaseHeld, d);
  }
  if (d.buffered.length >= max) {
    p.details.buffered = d.buffered;
    return recorded(p, Outcome.Skipped, Reason.BufferFull, d);
  }
  const req = p.claimRequest(nowMs, untilMs);
  const b = await p.deps.leases.buffer({
    job: req.job,
    ...(req.shard !== undefined && { shard: req.shard }),
    slotId: p.slotId,
    nowMs,
    maxBuffered: max,
    ...(req.def !== undefined && { def: req.def }),
  });
  switch (b.kind) {
    case 'buffered':
      p.details.buffered = b.buffered;
      return recorded(p, Outcome.Buffered, Reason.Overlap, d);
    case 'already-buffered':
      p.details.buffered = b.buffered;
      return recorded(p, Outcome.Skipped, Reason.LeaseHeld, d);
    case 'full':
      p.details.buffered = b.buffered;
      return recorded(p, Outcome.Skipped, Reason.BufferFull, d);
    case 'free':
      return decided(await p.claim(nowMs, untilMs));
    case 'claim-decides':
      return decided(decideClaimFailed(b.item, { ...req, nowMs }));
  }
}

/**
 * `stale / replaced` instead of `stale-fence` / `lease-lost` when the lease item shows a replacing claim
 * displaced this run (`replacedRunId`, or its fence in the chain `replacedFromFence`..`replacedFence`: a
 * successor displaced in turn): from the refused renewal's or release's item, else (a fenced
 * write refused by a successor's fence) from one read of the lease, off the normal path.
 * @returns undefined when the job does not replace, or the run was not the one replaced.
 */
export async function replacedReason(
  overlap: Overlap,
  deps: RuntimeDeps,
  lease: LeaseRef,
  runId: string,
  fence: number,
  err: unknown,
): Promise<Reason | undefined> {
  if (overlap.policy !== OverlapPolicy.Replace) return undefined;
  // A LeaseLostError carries the lease item (a refused renewal or release) or a run record (an abandoned
  // mark a later claimer left): only the lease item tells who was replaced; else read it.
  const carried = err instanceof LeaseLostError ? (err.item as LeaseItem | undefined) : undefined;
  const item =
    carried?.holderState !== undefined ? carried : await deps.leases.get(lease).catch(() => undefined);
  return wasReplaced(item, runId, fence) ? Reason.Replaced : undefined;
}
