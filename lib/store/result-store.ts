/**
 * Writes to the application's business tables under a lease's fence (docs/design.md steps 3, 4):
 * the declared `fencedWrite`, `insertOnce` and `takeOver` operations (lib/store/protocol/operations.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../core/ports.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { fencedWrite, insertOnce, takeOver } from './protocol/operations.js';
import { type ProtocolBackend, perform } from './protocol/request.js';

export type { FenceContext, InsertOnceResult, ItemRef } from '../core/ports.js';

/** Fenced writes and insert-once results on business tables of a protocol backend. */
export class TableResultStore implements ResultStore {
  constructor(private readonly backend: ProtocolBackend) {}

  /**
   * Write (create or overwrite) a protected item under a fence.
   * @throws StaleFenceError carrying the stored fence when a newer holder already wrote it.
   * @throws ResultConflictError when another lease fences the item; StoreError on store failure.
   */
  fencedPut(ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext): Promise<void> {
    return perform(this.backend, fencedWrite, { ref, attributes, fc });
  }

  /**
   * Insert a business result once, born `status` (default `succeeded`), in ONE PutItem. A loser gets
   * the existing row back, no read: ours (lost response) → `inserted`; succeeded → `existing`;
   * `running` under a lower fence of our lease → taken over; a higher fence → stale.
   * @throws StaleFenceError when a newer holder owns the row; StoreError (naming the key) on store failure.
   */
  async insertOnce(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    status = 'succeeded',
  ): Promise<InsertOnceResult> {
    const w = { ref, attributes, fc, status };
    const step = await perform(this.backend, insertOnce, w);
    return step.status === 'take-over'
      ? perform(this.backend, takeOver, { ...w, existing: step.item })
      : step;
  }
}

/** Fenced writes and insert-once results on business tables in DynamoDB. */
export class DynamoResultStore extends TableResultStore {
  constructor(doc: DynamoDBDocumentClient) {
    super(new DynamoBackend(doc));
  }
}
