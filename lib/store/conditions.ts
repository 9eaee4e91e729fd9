/**
 * Every condition expression cronfence writes, as named fragments (STYLE.md convention 5).
 * Placeholders: `#x` names, `:x` values; the builders in the stores supply them.
 */

/** Claim (protocol 1): lease free or expired by the caller's clock, and the slot not already succeeded. */
export const CLAIM =
  '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :now) AND NOT contains(#doneSlots, :slot)';

/** Claim for a manual re-run: lease free or expired; the done set is not consulted. */
export const CLAIM_FORCE = '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :now)';

/**
 * Holder-only (renew, release, the effect transaction's lease check; protocol 2, 5, 6): still ours —
 * same owner token, same fence — AND still running. Release sets `holderState = released`, so a
 * renewal or an effect of that owner and fence arriving after the release is refused: release is
 * terminal for its owner and fence. Values: `:me`, `:fence`, `:running`.
 */
export const OWNED = '#owner = :me AND #fence = :fence AND #holderState = :running';

/**
 * Fenced write on a protected item (protocol 3): the item does not exist, or it was last written —
 * by a fenced write OR an insert-once, which store the same `fence` and `fencedBy` attributes — under
 * the same lease with a fence no higher than ours. Equal = the same holder writing again. `#k0` is
 * the table's partition key. An item that exists without a fence is refused: adopting it is
 * FENCED_ADOPT, an explicit choice. An item of another lease is never compared by fence
 * (see FENCED_CROSS_LEASE).
 */
export const FENCED = 'attribute_not_exists(#k0) OR (#fencedBy = :lease AND #fence <= :fence)';

/** FENCED, also adopting an item that exists but was never fenced (`fencedPut(..., { adoptUnfenced: true })`). */
export const FENCED_ADOPT = `${FENCED} OR attribute_not_exists(#fence)`;

/**
 * Reconciling a protected item last written under ANOTHER lease (a job resharded, renamed or moved):
 * it is still as we saw it (same lease, fence and run), and the write is one transaction with a
 * check that the other lease is released or expired (LEASE_INACTIVE on that lease item).
 */
export const FENCED_CROSS_LEASE = '#fencedBy = :otherLease AND #fence = :otherFence';

/** The other lease of a cross-lease reconciliation is not running, or its lease ran out by our clock. */
export const LEASE_INACTIVE =
  'attribute_not_exists(#holderState) OR #holderState <> :running OR #leaseUntilMs < :now';

/** Insert-once (protocol 4): no item with this key yet. `#k0` is the table's partition key. */
export const INSERT_ONCE = 'attribute_not_exists(#k0)';

/** Insert-once takeover: the `running` row still carries the stale holder's fence and run id. */
export const TAKEOVER = '#status = :running AND #fence = :oldFence AND #runId = :oldRunId';

/** Complete a two-phase insert-once row: still ours. */
export const RESULT_OWNED = '#runId = :me AND #fence = :fence';

/**
 * A run record is written once; an `abandoned` mark left by a successor may be replaced by the
 * holder's own failed / stale / skipped record, never by `succeeded` (see RUN_RECORD_SUCCESS).
 */
export const RUN_RECORD_PUT = 'attribute_not_exists(#pk) OR #outcome = :abandoned';

/**
 * A `succeeded` record: only where nothing is recorded yet. An `abandoned` mark means a successor took
 * the lease from this run: it is then recorded `stale / lease-lost`, never `succeeded` next to it.
 */
export const RUN_RECORD_SUCCESS = 'attribute_not_exists(#pk)';

/**
 * The correction of a holder that recorded `succeeded` and then found its release refused (a successor
 * displaced it before its abandoned mark could land): `stale` replaces the run's own `succeeded` record
 * (or an `abandoned` mark).
 */
export const RUN_RECORD_CORRECT =
  'attribute_not_exists(#pk) OR #outcome = :abandoned OR #outcome = :succeeded';

/** Mark a displaced holder's run abandoned only if it never wrote its own record. */
export const RUN_RECORD_ABANDON = 'attribute_not_exists(#pk)';

/** Effect insert (protocol 5): no effect record under this idempotency key yet. `#pk` is `pk`. */
export const EFFECT_INSERT = 'attribute_not_exists(#pk)';

/**
 * Move an effect another call left (take over `pending`/`sending`, record a looked-up outcome, mark
 * `needs-review`): it still has the status, fence and run we saw, and — when it was last moved under
 * our lease — its fence is not above ours. A lower fence never moves an effect a higher one of the
 * same lease holds; fences of different leases are never compared (the move of another lease's effect
 * is checked against that lease with LEASE_INACTIVE instead).
 */
export const EFFECT_MOVE =
  '#status = :from AND #fence = :oldFence AND #runId = :oldRunId AND (#leaseKey <> :lease OR #fence <= :fence)';

/** Record the outcome of our own provider call: the effect is still `sending` under our fence and run. */
export const EFFECT_OWNED = '#status = :sending AND #fence = :fence AND #runId = :me';
