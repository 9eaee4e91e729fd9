/**
 * The lease store: claim, renew and release, each ONE conditional write on the lease item declared in
 * lib/store/protocol/operations.ts (docs/design.md steps 1, 2, 6). Returned items replace reads.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClaimDecision, LeaseItem } from '../core/lease.js';
import type { ClaimRequest, LeaseRef, LeaseStore } from '../core/ports.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { claim, release, renew } from './protocol/operations.js';
import { type ProtocolBackend, perform, read } from './protocol/request.js';
import { Keys } from './schema.js';

/** Lease store on the library table of a protocol backend. */
export class TableLeaseStore implements LeaseStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  claim(req: ClaimRequest): Promise<ClaimDecision> {
    return perform(this.backend, claim, { ...req, table: this.tableName });
  }

  renew(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; leaseUntilMs: number },
  ): Promise<void> {
    return perform(this.backend, renew, { ...ref, table: this.tableName });
  }

  release(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; doneSlots?: ReadonlySet<string> },
  ): Promise<void> {
    return perform(this.backend, release, { ...ref, table: this.tableName });
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
