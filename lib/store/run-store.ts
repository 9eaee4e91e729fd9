/**
 * The run-record store: one record per invocation attempt, written by the declared `putRunRecord` and
 * `markAbandoned` operations (lib/store/protocol/operations.ts); stored forms in run-items.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import { StoreError } from '../errors.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { markAbandoned, putRunRecord } from './protocol/operations.js';
import { type ProtocolBackend, perform } from './protocol/request.js';
import { isSucceededUnder } from './run-items.js';
import { Attr, Keys } from './schema.js';

/** Run store on the library table of a protocol backend. */
export class TableRunStore implements RunStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  put(record: RunRecord, retentionDays: number): Promise<void> {
    return perform(this.backend, putRunRecord, { table: this.tableName, record, retentionDays });
  }

  async findSucceeded(job: string, slotId: string, def: string, shard?: number): Promise<string | undefined> {
    const { pk, sk } = Keys.run(job, slotId, '');
    try {
      const items = await this.backend.queryPrefix(
        this.tableName,
        { name: Attr.pk, value: pk },
        { name: Attr.sk, prefix: sk },
      );
      const hit = items.find((i) => isSucceededUnder(i, def, shard));
      return hit === undefined ? undefined : String(hit.runId);
    } catch (err) {
      throw new StoreError('Query (run records of a slot)', err);
    }
  }

  markAbandoned(
    job: string,
    holder: HolderSeen,
    byRunId: string,
    nowMs: number,
    retentionDays: number,
  ): Promise<void> {
    return perform(this.backend, markAbandoned, {
      table: this.tableName,
      job,
      holder,
      byRunId,
      nowMs,
      retentionDays,
    });
  }
}

/** Run store on the library table in DynamoDB. */
export class DynamoRunStore extends TableRunStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    super(new DynamoBackend(doc), tableName);
  }
}
