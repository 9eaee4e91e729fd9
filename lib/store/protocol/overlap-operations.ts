/**
 * The overlap policies' own writes on the lease item (lib/core/overlap.ts, docs/design.md "Overlap
 * policies"), each declared once like the claim: buffer an arrival (`buffer-*`), take the lease from a
 * live holder by raising the fence (`replace`), and take a slot that can no longer run off the buffered
 * list. None is on a run's normal path (a free lease): they follow a claim the lease item refused.
 */
import { decideClaimFailed, decideClaimSucceeded, doneKey, type LeaseItem } from '../../core/lease.js';
import type { BufferDecision, BufferRequest, ReplaceRequest } from '../../core/overlap-ports.js';
import type { LeaseRef } from '../../core/ports.js';
import { Keys } from '../schema.js';
import { and, contains, eq, exists, ge, lt, ne, notContains, notExists, or, sizeLt } from './expression.js';
import { bufferedSlots, claimable, claimRequest } from './operations.js';
import { ProtocolOp } from './ops.js';
import { withOverlap } from './overlap-conditions.js';
import type { Operation } from './request.js';

/** Input of {@link bufferArrival}: the request and the table. */
export type BufferInput = BufferRequest & { readonly table: string };

/**
 * Buffer (overlap `buffer-*`): `ADD buffered :slotKey` if another slot holds a live lease (or slots
 * already wait), the slot is not the holder's and not already buffered, fewer than `maxBuffered` wait,
 * and the slot is claimable (not done, not paused). Returns ALL_NEW. Refused: the item decides.
 */
export const bufferArrival: Operation<BufferInput, BufferDecision> = {
  name: ProtocolOp.Claim,
  request: (req) => {
    const key = Keys.lease(req.job, req.shard);
    const stored = doneKey(req.slotId);
    const live = and(eq('holderState', 'running'), ge('leaseUntilMs', req.nowMs));
    return {
      tag: { op: ProtocolOp.Claim, name: 'buffer', table: req.table, key },
      label: 'buffer slot on lease',
      writes: [
        {
          kind: 'update',
          table: req.table,
          key,
          condition: and(
            ne('slot', req.slotId),
            or(exists('buffered'), live),
            notContains('buffered', stored),
            or(notExists('buffered'), sizeLt('buffered', req.maxBuffered)),
            ...claimable(req),
          ),
          update: { set: {}, addToSet: { buffered: [stored] } },
          returnValues: 'ALL_NEW',
        },
      ],
    };
  },
  accepted: (item) => ({ kind: 'buffered', buffered: bufferedSlots(item as LeaseItem | undefined) }),
  refused: (item, _i, req) => {
    const lease = item as LeaseItem | undefined;
    const buffered = bufferedSlots(lease);
    const d = decideClaimFailed(lease, {
      runId: '-',
      slotId: req.slotId,
      nowMs: req.nowMs,
      ...(req.def !== undefined && { def: req.def }),
    });
    if (d.kind !== 'held' || d.sameSlot) return { kind: 'claim-decides', item: lease };
    if (buffered.includes(req.slotId)) return { kind: 'already-buffered', buffered };
    if (buffered.length >= req.maxBuffered) return { kind: 'full', buffered };
    return { kind: 'free' };
  },
};

/** Input of {@link replaceHolder}: the request and the table. */
export type ReplaceInput = ReplaceRequest & { readonly table: string };

/**
 * Replace (overlap `replace`): a claim over a live holder, one `UpdateItem`: the item still names that
 * holder (`owner`, `fence`, `holderState = running`), its slot is older than ours, it acquired long
 * enough ago (`replaceAfterSeconds`), and our slot is claimable. The claim's update (`ADD fence 1`,
 * `prev*`, `open`) plus `replacedRunId` / `replacedFence` / `replacedFromFence` (the chain of
 * displacements), so the displaced run's refused renewal tells it was replaced. The displaced run is not marked abandoned: it is alive and records itself
 * `stale / replaced` (if it dies first, the sweeper marks it from the `open` list once its lease ends).
 * Refused: the item decides, as for a claim.
 */
export const replaceHolder: Operation<ReplaceInput, ReturnType<typeof decideClaimSucceeded>> = {
  name: ProtocolOp.Claim,
  request: (req) => {
    const displaced = and(
      eq('owner', req.holder.runId),
      eq('fence', req.holder.fence),
      eq('holderState', 'running'),
      lt('slot', req.slotId),
      ...(req.replaceAfterSeconds > 0
        ? [lt('acquiredAtMs', req.nowMs - req.replaceAfterSeconds * 1000)]
        : []),
      ...claimable(req),
    );
    return claimRequest(req, 'replace lease holder', withOverlap(displaced, req), {
      replacedRunId: req.holder.runId,
      replacedFence: req.holder.fence,
      replacedFromFence: req.holder.chainFromFence ?? req.holder.fence,
    });
  },
  accepted: (old, req) => {
    const d = decideClaimSucceeded(old as LeaseItem | undefined, req);
    if (d.kind !== 'acquired' || d.previous === undefined) return d;
    return { ...d, previous: { ...d.previous, abandoned: false } };
  },
  refused: (item, _i, req) => decideClaimFailed(item as LeaseItem | undefined, req),
};

/**
 * Take a slot that can no longer run (it succeeded meanwhile, or is off the schedule) off the
 * buffered list, so it holds no place in the buffer. Refused: it was not there; nothing to do.
 */
export const unbuffer: Operation<LeaseRef & { table: string; slotId: string }, boolean> = {
  name: ProtocolOp.Release,
  request: (req) => {
    const key = Keys.lease(req.job, req.shard);
    return {
      tag: { op: ProtocolOp.Release, name: 'unbuffer', table: req.table, key },
      label: 'take slot off the buffer',
      writes: [
        {
          kind: 'update',
          table: req.table,
          key,
          condition: contains('buffered', doneKey(req.slotId)),
          update: { set: {}, deleteFromSet: { buffered: [doneKey(req.slotId)] } },
        },
      ],
    };
  },
  accepted: () => true,
  refused: () => false,
};
