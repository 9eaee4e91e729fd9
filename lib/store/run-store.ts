/**
 * The run-record store: one record per invocation attempt, written by the declared `putRunRecord` and
 * `markAbandoned` operations (lib/store/protocol/operations.ts); stored forms in run-items.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { markAbandoned, putRunRecord } from './protocol/operations.js';
import { type ProtocolBackend, perform } from './protocol/request.js';

/** Run store on the library table of a protocol backend. */
export class TableRunStore implements RunStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  put(record: RunRecord, retentionDays: number): Promise<void> {
    return perform(this.backend, putRunRecord, { table: this.tableName, record, retentionDays });
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
