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

/**
 * The error for a refused fenced write: another lease fences the item (ResultConflictError), or a
 * newer holder of our lease wrote it (StaleFenceError carrying the stored fence).
 * @param target names the item in the message (`<table> <key>`).
 */
export function fencedWriteRefused(
  target: string,
  item: Record<string, unknown> | undefined,
  fc: WriterFence,
): Error {
  if (item?.fencedBy !== fc.leaseKey) {
    return new ResultConflictError(`${target} is fenced by another lease (${String(item?.fencedBy)})`, item);
  }
  return new StaleFenceError(target, fc.fence, item?.lastFence as number | undefined, item);
}

/** What a refused insert-once means. */
export type InsertRefusal = 'own-write' | 'existing' | 'take-over' | 'stale';

/**
 * Decide from the existing row a refused insert-once returned: ours (lost response), already
 * succeeded, a `running` row of a lower fence of our lease (take it over), or a newer holder's (stale).
 */
export function insertRefused(existing: Record<string, unknown>, fc: WriterFence): InsertRefusal {
  if (existing.runId === fc.runId && existing.fence === fc.fence) return 'own-write';
  if (existing.status === 'succeeded') return 'existing';
  if (existing.fencedBy === fc.leaseKey && Number(existing.fence) < fc.fence) return 'take-over';
  return 'stale';
}

/** Decide from the row a refused takeover returned: ours after all, succeeded meanwhile, or stale. */
export function takeOverRefused(
  now: Record<string, unknown>,
  fc: WriterFence,
): 'own-write' | 'existing' | 'stale' {
  if (now.runId === fc.runId && now.fence === fc.fence) return 'own-write';
  if (now.status === 'succeeded' && Number(now.fence) <= fc.fence) return 'existing';
  return 'stale';
}
