/**
 * Writes to the application's business tables under a lease's fence (docs/design.md steps 3, 4):
 * the declared `fencedWrite`, `crossLeaseWrite` and `insertOnce` operations (lib/store/protocol/operations.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ResultConflictError } from '../core/fence-errors.js';
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../core/ports.js';
import { crossLeaseRefused } from '../core/results.js';
import { showValue } from '../core/show-value.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { crossLeaseWrite, type FencedPutOptions, fencedWrite, insertOnce } from './protocol/operations.js';

export type { FencedPutOptions } from './protocol/operations.js';

import { type ProtocolBackend, perform } from './protocol/request.js';

export type { FenceContext, InsertOnceResult, ItemRef } from '../core/ports.js';

/** Fenced writes and insert-once results on business tables of a protocol backend. */
export class TableResultStore implements ResultStore {
  /**
   * @param leaseTable the table of the lease items, for cross-lease reconciliation; without it an item
   *   last written under another lease is refused (ResultConflictError).
   */
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly leaseTable?: string,
  ) {}

  /**
   * Write (create or overwrite) a protected item under a fence (`cronfence:fence` + `cronfence:lease`,
   * the attributes insert-once writes too; the job's own attributes stored as given). An item last written under another lease is reconciled once that lease is
   * released or expired (`crossLeaseWrite`, one transaction; never on a run's normal path).
   * @throws StaleFenceError carrying the stored fence when a newer holder of our lease already wrote it.
   * @throws ResultConflictError when the item exists unfenced (and `adoptUnfenced` is not set), or another
   *   lease that still runs wrote it; StoreError on store failure.
   */
  async fencedPut(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    options: FencedPutOptions = {},
  ): Promise<void> {
    const step = await perform(this.backend, fencedWrite, {
      ref,
      attributes,
      fc,
      options,
      ...this.leaseCheck(fc),
    });
    if (step.kind === 'written') return;
    if (!this.leaseTable) throw crossLeaseRefused(`${ref.tableName} ${showValue(ref.key)}`, step, undefined);
    await perform(this.backend, crossLeaseWrite, {
      ref,
      attributes,
      fc,
      leaseTable: this.leaseTable,
      other: step,
    });
  }

  /**
   * Insert a business result once, born `succeeded`, in ONE PutItem. A loser gets the existing row
   * back, no read: ours (lost response) → `inserted`; a result already there → `existing`.
   * @throws StaleFenceError when a newer holder of our lease wrote the item; StoreError (naming the
   *   key) on store failure.
   */
  async insertOnce(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
  ): Promise<InsertOnceResult> {
    return perform(this.backend, insertOnce, { ref, attributes, fc, ...this.leaseCheck(fc) });
  }

  /**
   * The lease table a write checks its lease in ({@link FenceContext.checkLease}).
   * @throws ResultConflictError (nothing written) when the lease must be checked and this store has no
   *   lease table.
   */
  private leaseCheck(fc: FenceContext): { leaseTable?: string } {
    if (!fc.checkLease) return {};
    if (!this.leaseTable)
      throw new ResultConflictError(
        `a write under lease ${fc.leaseKey} must check the lease (overlap replace) but the result store has no lease table`,
      );
    return { leaseTable: this.leaseTable };
  }
}

/** Fenced writes and insert-once results on business tables in DynamoDB. */
export class DynamoResultStore extends TableResultStore {
  /** @param leaseTable the library table (cross-lease reconciliation). */
  constructor(doc: DynamoDBDocumentClient, leaseTable?: string) {
    super(new DynamoBackend(doc), leaseTable);
  }
}
