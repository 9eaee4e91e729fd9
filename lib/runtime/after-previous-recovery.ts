/**
 * Overlap policy `after-previous`: a success the lease item does not know of (docs/design.md "Overlap
 * policies"). A run that recorded `succeeded` and whose release never landed (throttled, cut off by a
 * timeout) leaves the lease `running` with its slot outside the done set and no `lastSucceeded`, so
 * the claim's "nothing succeeded yet" alternative would let any slot claim once the lease expired —
 * an earlier slot could then succeed after the chain started at that one. The claimer that takes over
 * such a holder finds it: its abandoned mark is refused (the holder wrote its record), and one read of
 * the holder's slot (off the normal path) tells whether that record is a success. Then the slot counts
 * as done for this claim, and the claimer's release adds it to the done set whatever the claimer does.
 */
import { nextDoneSlots } from '../core/lease.js';
import type { Predecessor } from '../core/overlap-previous.js';

/** The done set with the recovered slots (in slot order) added, bounded like every done set: `rememberSlots`. */
export function withRecovered(
  done: ReadonlySet<string>,
  recovered: readonly string[],
  rememberSlots: number,
): ReadonlySet<string> {
  let next = done;
  for (const slotId of recovered) next = nextDoneSlots(next, slotId, rememberSlots);
  return next;
}

/**
 * Whether a slot that is not itself done may still run once the recovered successes count, by the
 * after-previous claim's rule with the chain started (`lastSucceeded` now exists): its predecessor is
 * done, or it has none and the job declares its first slot (`catchUp.since`). A slot before the chain's
 * start never runs after it.
 */
export function mayRunAfterRecovery(predecessor: Predecessor, done: ReadonlySet<string>): boolean {
  return predecessor.id !== undefined ? done.has(predecessor.id) : predecessor.fromFirstSlot;
}
