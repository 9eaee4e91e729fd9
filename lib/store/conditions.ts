/**
 * Every condition expression cronfence writes, as named fragments (STYLE.md convention 5).
 * Placeholders: `#x` names, `:x` values; the builders in the stores supply them.
 */

/**
 * Claim (protocol 1): lease free or expired by the caller's clock, and the slot not already succeeded under
 * this definition (a done set written under another definition id `#def` does not count).
 */
export const CLAIM =
  '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :now) AND (NOT contains(#doneSlots, :slot) OR (attribute_exists(#def) AND #def <> :def))';

/** Claim by a caller that names no definition id (tools): lease free or expired, slot not in the done set. */
export const CLAIM_ANY_DEF =
  '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :now) AND NOT contains(#doneSlots, :slot)';

/** Claim for a manual re-run: lease free or expired; the done set is not consulted. */
export const CLAIM_FORCE = '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :now)';

/**
 * Best-effort release after a claim request failed (its response lost, its retries refused): the item
 * still names us as a running owner. The fence is not known to the caller; the owner token suffices.
 */
export const RELEASE_IF_OWNER = '#owner = :me AND #holderState = :running';

/** Renew / release (protocol 2, 6): still ours — same owner token and same fence. */
export const OWNED = '#owner = :me AND #fence = :fence';

/**
 * Fenced write on a protected item (protocol 3): never written under a fence, or last written under
 * the same lease with a fence no higher than ours. Equal = the same holder writing again.
 */
export const FENCED = 'attribute_not_exists(#lastFence) OR (#fencedBy = :lease AND #lastFence <= :fence)';

/** Insert-once (protocol 4): no item with this key yet. `#k0` is the table's partition key. */
export const INSERT_ONCE = 'attribute_not_exists(#k0)';

/** Insert-once takeover: the `running` row still carries the stale holder's fence and run id. */
export const TAKEOVER = '#status = :running AND #fence = :oldFence AND #runId = :oldRunId';

/** Complete a two-phase insert-once row: still ours. */
export const RESULT_OWNED = '#runId = :me AND #fence = :fence';

/** A run record is written once; only an `abandoned` mark left by a successor may be replaced. */
export const RUN_RECORD_PUT = 'attribute_not_exists(#pk) OR #outcome = :abandoned';

/** Mark a displaced holder's run abandoned only if it never wrote its own record. */
export const RUN_RECORD_ABANDON = 'attribute_not_exists(#pk)';

/** Effect insert (protocol 5): no effect record under this idempotency key yet. `#pk` is `pk`. */
export const EFFECT_INSERT = 'attribute_not_exists(#pk)';

/**
 * Move an effect another call left (take over `pending`/`sending`, record a looked-up outcome, mark
 * `needs-review`): it still has the status, fence and run we saw, and its fence is not above ours.
 * A lower fence never moves an effect a higher one holds.
 */
export const EFFECT_MOVE =
  '#status = :from AND #fence = :oldFence AND #runId = :oldRunId AND #fence <= :fence';

/** Record the outcome of our own provider call: the effect is still `sending` under our fence and run. */
export const EFFECT_OWNED = '#status = :sending AND #fence = :fence AND #runId = :me';
