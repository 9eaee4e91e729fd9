/**
 * Pure decisions for business-result writes (docs/design.md steps 3, 4): what the item returned by a
 * refused fenced write or insert-once means. Shared by the DynamoDB and in-memory result stores.
 */
import { ResultConflictError, StaleFenceError } from '../errors.js';

/** The fence a write was made under (the subset these decisions read). */
export interface WriterFence {
  readonly leaseKey: string;
  readonly runId: string;
  readonly fence: number;
}

/** What a refused fenced write means. */
export type FencedRefusal =
  /** Refuse with this error: a newer holder of our lease wrote it (StaleFenceError carrying the stored
   * fence), or the item exists without a fence and adopting it was not asked for (ResultConflictError). */
  | { readonly kind: 'refused'; readonly error: Error }
  /**
   * Last written under ANOTHER lease (a resharded, renamed or moved job): fences of different leases
   * are never compared. Reconcile: write conditional on the item still being as seen, in one
   * transaction with a check that the other lease is released or expired.
   */
  | { readonly kind: 'other-lease'; readonly lease: string; readonly fence: number };

/**
 * Decide from the item a refused fenced write returned (docs/design.md, protocol 3). Every protected
 * item carries one fence attribute, `fence`, and its lease, `fencedBy`, whichever writer (fenced write
 * or insert-once) created it; a fence is only ever compared with a fence of the same lease.
 * @param target names the item in the message (`<table> <key>`).
 */
export function fencedWriteRefused(
  target: string,
  item: Record<string, unknown> | undefined,
  fc: WriterFence,
): FencedRefusal {
  if (item?.fence === undefined || item.fencedBy === undefined) {
    return {
      kind: 'refused',
      error: new ResultConflictError(
        `${target} exists but was never written under a fence; adopt it explicitly with fencedPut(..., { adoptUnfenced: true })`,
        item,
      ),
    };
  }
  if (item.fencedBy !== fc.leaseKey)
    return { kind: 'other-lease', lease: String(item.fencedBy), fence: Number(item.fence) };
  return { kind: 'refused', error: new StaleFenceError(target, fc.fence, Number(item.fence), item) };
}

/** The error when a cross-lease reconciliation is refused: the other lease still runs (or the item moved). */
export function crossLeaseRefused(
  target: string,
  other: { lease: string; fence: number },
  item: Record<string, unknown> | undefined,
): ResultConflictError {
  return new ResultConflictError(
    `${target} was last written under another lease (${other.lease}, fence ${other.fence}) that is still running (or this run no longer holds its own lease); it is reconciled once that lease is released or expired, by a holder of its own lease`,
    item,
  );
}

/** What a refused insert-once means. */
export type InsertRefusal = 'own-write' | 'existing' | 'stale';

/**
 * Decide from the existing row a refused insert-once returned: ours (lost response), a result already
 * inserted (born `succeeded`), or an item a fenced write created — which exists, unless a newer holder
 * of our lease wrote it (stale; fences compared only within one lease).
 */
export function insertRefused(existing: Record<string, unknown>, fc: WriterFence): InsertRefusal {
  if (existing.runId === fc.runId && existing.fence === fc.fence) return 'own-write';
  if (existing.status === 'succeeded') return 'existing';
  return existing.fencedBy === fc.leaseKey && Number(existing.fence) > fc.fence ? 'stale' : 'existing';
}
