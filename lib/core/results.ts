/**
 * Pure decisions for business-result writes (docs/design.md steps 3, 4): what the item returned by a
 * refused fenced write or insert-once means. Shared by the DynamoDB and in-memory result stores.
 */
import { ResultConflictError, StaleFenceError } from './fence-errors.js';

/** The prefix of every attribute cronfence writes on a business item; a job's own names may not start with it. */
export const BOOKKEEPING_PREFIX = 'cronfence:';

/**
 * The bookkeeping attributes cronfence writes on a business item beside the job's own (fenced writes and
 * insert-once both): prefixed, so that no ordinary attribute name collides with them.
 */
export const BusinessAttr = {
  /** The fence the item was last written under (a number). */
  fence: 'cronfence:fence',
  /** The lease that fence belongs to (`JOB#<job>` or `JOB#<job>#<shard>`). */
  lease: 'cronfence:lease',
  /** The run that last wrote the item. */
  runId: 'cronfence:runId',
  /** When it was written, epoch ms by the writer's clock. */
  writtenAtMs: 'cronfence:writtenAtMs',
  /** `succeeded` on an insert-once row (born succeeded); absent on a fenced write's item. */
  status: 'cronfence:status',
} as const;

/**
 * The names an earlier version wrote on business items (unprefixed, so they overwrote or refused a job's
 * own `status`, `fence`, ...). An item without {@link BusinessAttr.fence} but with `fencedBy` was
 * written so; it is read and matched under these names until cronfence next writes it, which adds the
 * prefixed ones (the legacy attributes are left as they are: they may be the job's own data now).
 */
export const LegacyBusinessAttr = {
  fence: 'fence',
  lease: 'fencedBy',
  runId: 'runId',
  writtenAtMs: 'writtenAtMs',
  status: 'status',
} as const;

/** The fence bookkeeping of a stored business item, whichever version wrote it. */
export interface StoredFence {
  readonly fence: number;
  readonly lease: string;
  readonly runId: string | undefined;
  /** True for an insert-once row (born `succeeded`). */
  readonly inserted: boolean;
  /** True when read from the {@link LegacyBusinessAttr} names. */
  readonly legacy: boolean;
}

/**
 * Read an item's fence bookkeeping: the prefixed attributes, else (an item an earlier version wrote) the
 * legacy ones; `undefined` for an item never written under a fence.
 */
export function storedFence(item: Record<string, unknown> | undefined): StoredFence | undefined {
  if (item === undefined) return undefined;
  const legacy = item[BusinessAttr.fence] === undefined;
  const names = legacy ? LegacyBusinessAttr : BusinessAttr;
  if (item[names.lease] === undefined || item[names.fence] === undefined) return undefined;
  const runId = item[names.runId];
  return {
    fence: Number(item[names.fence]),
    lease: String(item[names.lease]),
    runId: runId === undefined ? undefined : String(runId),
    inserted: item[names.status] === 'succeeded',
    legacy,
  };
}

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
 * item carries one fence, `cronfence:fence`, and its lease, `cronfence:lease` ({@link storedFence}),
 * whichever writer (fenced write or insert-once) created it; a fence is only ever compared with a fence
 * of the same lease.
 * @param target names the item in the message (`<table> <key>`).
 */
export function fencedWriteRefused(
  target: string,
  item: Record<string, unknown> | undefined,
  fc: WriterFence,
): FencedRefusal {
  const stored = storedFence(item);
  if (stored === undefined) {
    return {
      kind: 'refused',
      error: new ResultConflictError(
        `${target} exists but was never written under a fence; adopt it explicitly with fencedPut(..., { adoptUnfenced: true })`,
        item,
      ),
    };
  }
  if (stored.lease !== fc.leaseKey) return { kind: 'other-lease', lease: stored.lease, fence: stored.fence };
  return { kind: 'refused', error: new StaleFenceError(target, fc.fence, stored.fence, item) };
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
  const stored = storedFence(existing);
  if (stored === undefined) return 'existing';
  if (stored.runId === fc.runId && stored.fence === fc.fence) return 'own-write';
  if (stored.inserted) return 'existing';
  return stored.lease === fc.leaseKey && stored.fence > fc.fence ? 'stale' : 'existing';
}
