/**
 * The lease store: claim, renew and release, each ONE conditional write on the lease item declared in
 * lib/store/protocol/operations.ts (docs/design.md steps 1, 2, 6). Returned items replace reads.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClaimDecision, LeaseItem } from '../core/lease.js';
import { decideClaimFailed } from '../core/lease.js';
import type {
  BufferDecision,
  BufferRequest,
  OverlapLeaseStore,
  ReplaceRequest,
} from '../core/overlap-ports.js';
import type { ClaimRequest, LeaseRef, LeaseStore, ReleaseRequest, ReleaseResult } from '../core/ports.js';
import { isTransactionConflict } from './client.js';
import { StoreError } from './errors.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { claim, release, releaseIfOwner, renew } from './protocol/operations.js';
import { bufferArrival, replaceHolder, unbuffer } from './protocol/overlap-operations.js';
import { type ProtocolBackend, perform, read, type SendOptions } from './protocol/request.js';
import { Keys } from './schema.js';

/** Lease store on the library table of a protocol backend. */
export class TableLeaseStore implements LeaseStore, OverlapLeaseStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  async claim(req: ClaimRequest): Promise<ClaimDecision> {
    try {
      return await perform(this.backend, claim, { ...req, table: this.tableName });
    } catch (err) {
      if (!(err instanceof StoreError) || !isTransactionConflict(err.cause)) throw err;
      // Still conflicting after the client's conflict retries: decide from a consistent read (the item
      // names us if our claim was applied; else it is held or done; free stays a retryable StoreError).
      const item = await this.get(req);
      const d = decideClaimFailed(item, req);
      if (d.kind !== 'held' || (item?.leaseUntilMs ?? 0) >= req.nowMs) return d;
      throw err;
    }
  }

  releaseIfOwner(ref: LeaseRef & { runId: string; nowMs: number }): Promise<LeaseItem | undefined> {
    return perform(this.backend, releaseIfOwner, { ...ref, table: this.tableName });
  }

  async renew(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; leaseUntilMs: number },
    options?: SendOptions,
  ): Promise<void> {
    await perform(this.backend, renew, { ...ref, table: this.tableName }, options);
  }

  release(ref: ReleaseRequest): Promise<ReleaseResult> {
    return perform(this.backend, release, { ...ref, table: this.tableName });
  }

  buffer(req: BufferRequest): Promise<BufferDecision> {
    return perform(this.backend, bufferArrival, { ...req, table: this.tableName });
  }

  replace(req: ReplaceRequest): Promise<ClaimDecision> {
    return perform(this.backend, replaceHolder, { ...req, table: this.tableName });
  }

  unbuffer(ref: LeaseRef & { readonly slotId: string }): Promise<boolean> {
    return perform(this.backend, unbuffer, { ...ref, table: this.tableName });
  }

  async get(ref: LeaseRef): Promise<LeaseItem | undefined> {
    return (await read(this.backend, this.tableName, Keys.lease(ref.job, ref.shard), 'lease')) as
      | LeaseItem
      | undefined;
  }
}

/** Lease store on the library table in DynamoDB. */
export class DynamoLeaseStore extends TableLeaseStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    super(new DynamoBackend(doc), tableName);
  }
}
