/**
 * The conditions an overlap policy adds to a claim of the lease (lib/core/overlap.ts, docs/design.md
 * "Overlap policies"), as named fragments over the lease item's attributes: `buffered` (the waiting
 * slots' compact done keys, a string set), `doneSlots`, `lastSucceeded` and `def`.
 */
import { doneKey } from '../../core/lease.js';
import type { ClaimRequest } from '../../core/ports.js';
import { and, type Condition, contains, exists, ne, notExists, or } from './expression.js';

/** `buffer-*`: no slot waits on the lease item, or `slotId` is one that does. */
export function bufferTurn(slotId: string): Condition {
  return or(notExists('buffered'), contains('buffered', doneKey(slotId)));
}

/**
 * `after-previous`: the previous occurrence `previousSlotId` is in the done set; or nothing of the job
 * ever succeeded (its first occurrence); or the done set belongs to another definition (a redeploy
 * that changed the slot ids starts the chain again).
 */
export function previousDone(previousSlotId: string, def: string | undefined): Condition {
  const done = contains('doneSlots', doneKey(previousSlotId));
  const fresh = notExists('lastSucceeded');
  return def === undefined ? or(fresh, done) : or(fresh, done, and(exists('def'), ne('def', def)));
}

/** `base` (a claim's condition) with the request's overlap guards added; `base` itself without any. */
export function withOverlap(
  base: Condition,
  req: Pick<ClaimRequest, 'overlap' | 'slotId' | 'def'>,
): Condition {
  const extra: Condition[] = [];
  if (req.overlap?.buffer) extra.push(bufferTurn(req.slotId));
  if (req.overlap?.previousSlotId !== undefined)
    extra.push(previousDone(req.overlap.previousSlotId, req.def));
  if (extra.length === 0) return base;
  return base.kind === 'and' ? and(...base.of, ...extra) : and(base, ...extra);
}
