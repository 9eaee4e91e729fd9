/**
 * The conditions an overlap policy adds to a claim of the lease (lib/core/overlap.ts, docs/design.md
 * "Overlap policies"), as named fragments over the lease item's attributes: `buffered` (the waiting
 * slots' compact done keys, a string set), `doneSlots`, `lastSucceeded` and `def`.
 */
import { doneKey } from '../../core/lease.js';
import type { ClaimRequest } from '../../core/ports.js';
import { and, type Condition, contains, eq, exists, ne, notExists, or } from './expression.js';

/**
 * `buffer-*`: no slot waits on the lease item; or `slotId` is the lease's own slot (a retry of the
 * occurrence that held it: older than every waiting slot, it goes first); or (`own-turn`) `slotId` is
 * one that waits.
 */
export function bufferTurn(slotId: string, turn: 'none-waiting' | 'own-turn'): Condition {
  return turn === 'own-turn'
    ? or(notExists('buffered'), contains('buffered', doneKey(slotId)))
    : or(notExists('buffered'), eq('slot', slotId));
}

/**
 * `after-previous`: the previous occurrence `previousSlotId` is in the done set; or nothing of the job
 * ever succeeded (the chain starts at the first success) — not when `fromFirstSlot` (the job declares
 * its first instant, `catchUp.since`, so its first slot starts the chain and every later one waits);
 * or the done set belongs to another definition (a redeploy that changed the slot ids starts the chain
 * again).
 */
export function previousDone(
  previousSlotId: string,
  def: string | undefined,
  fromFirstSlot = false,
): Condition {
  const alternatives = [contains('doneSlots', doneKey(previousSlotId))];
  if (!fromFirstSlot) alternatives.unshift(notExists('lastSucceeded'));
  if (def !== undefined) alternatives.push(and(exists('def'), ne('def', def)));
  return alternatives.length === 1 ? (alternatives[0] as Condition) : or(...alternatives);
}

/**
 * `after-previous`, the job's first slot `slotId` (no predecessor): nothing of the job succeeded yet;
 * or the slot itself is in the done set (a forced re-run); or the done set belongs to another
 * definition.
 */
export function firstOfChain(slotId: string, def: string | undefined): Condition {
  const alternatives = [notExists('lastSucceeded'), contains('doneSlots', doneKey(slotId))];
  if (def !== undefined) alternatives.push(and(exists('def'), ne('def', def)));
  return or(...alternatives);
}

/** `base` (a claim's condition) with the request's overlap guards added; `base` itself without any. */
export function withOverlap(
  base: Condition,
  req: Pick<ClaimRequest, 'overlap' | 'slotId' | 'def'>,
): Condition {
  const extra: Condition[] = [];
  if (req.overlap?.buffer) extra.push(bufferTurn(req.slotId, req.overlap.buffer));
  if (req.overlap?.previousSlotId !== undefined)
    extra.push(previousDone(req.overlap.previousSlotId, req.def, req.overlap.fromFirstSlot === true));
  else if (req.overlap?.firstSlot) extra.push(firstOfChain(req.slotId, req.def));
  if (extra.length === 0) return base;
  return base.kind === 'and' ? and(...base.of, ...extra) : and(base, ...extra);
}
