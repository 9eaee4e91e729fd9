/**
 * The run-record store: one record per invocation attempt, written by the declared `putRunRecord` and
 * `markAbandoned` operations (lib/store/protocol/operations.ts); stored forms in run-items.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Outcome } from '../core/outcomes.js';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { eq } from './protocol/expression.js';
import { markAbandoned, putRunRecord } from './protocol/operations.js';
import { type ProtocolBackend, perform, query } from './protocol/request.js';
import { Keys } from './schema.js';

/** Run store on the library table of a protocol backend. */
export class TableRunStore implements RunStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  put(record: RunRecord, retentionDays: number): Promise<void> {
    return perform(this.backend, putRunRecord, { table: this.tableName, record, retentionDays });
  }

  async succeededSlots(job: string, slotIds: readonly string[]): Promise<Set<string>> {
    const ids = [...slotIds].sort();
    const first = ids[0];
    const last = ids[ids.length - 1];
    if (first === undefined || last === undefined) return new Set();
    const range = {
      pk: Keys.run(job, first, '').pk,
      fromSk: Keys.run(job, first, '').sk,
      toSk: `${Keys.run(job, last, '').sk}\uffff`,
    };
    const items = await query(
      this.backend,
      this.tableName,
      range,
      eq('outcome', Outcome.Succeeded),
      'run records',
    );
    return new Set(items.map((i) => String(i.slot)));
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
