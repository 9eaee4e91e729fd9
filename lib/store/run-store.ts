/**
 * The run-record store: one record per invocation attempt, written by the declared `putRunRecord` and
 * `markAbandoned` operations (lib/store/protocol/operations.ts); stored forms in run-items.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Outcome } from '../core/outcomes.js';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import type { RecordFacts } from '../core/slot-status.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { eq } from './protocol/expression.js';
import { markAbandoned, putRunRecord } from './protocol/operations.js';
import { type ProtocolBackend, perform, query } from './protocol/request.js';
import { isSucceededUnder } from './run-items.js';
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

  async findSucceeded(job: string, slotId: string, def: string, shard?: number): Promise<string | undefined> {
    const { pk, sk } = Keys.run(job, slotId, '');
    const items = await query(
      this.backend,
      this.tableName,
      { pk, fromSk: sk, toSk: `${sk}\uffff` },
      eq('outcome', Outcome.Succeeded),
      'succeeded run records of a slot',
    );
    const hit = items.find((i) => isSucceededUnder(i, def, shard));
    return hit === undefined ? undefined : String(hit.runId);
  }

  async slotRecords(job: string, fromSlot: string, toSlot: string): Promise<RecordFacts[]> {
    const items = await query(
      this.backend,
      this.tableName,
      { pk: Keys.run(job, fromSlot, '').pk, fromSk: `RUN#${fromSlot}`, toSk: `RUN#${toSlot}#\uffff` },
      undefined,
      'run records of the sweep window',
    );
    return items.map((r) => ({
      slot: String(r.slot),
      ...(r.scheduledTime ? { scheduledTime: String(r.scheduledTime) } : {}),
      outcome: String(r.outcome),
      ...(r.reason !== undefined && { reason: String(r.reason) }),
      ...(r.trigger !== undefined && { trigger: String(r.trigger) }),
      ...(r.shard !== undefined && { shard: Number(r.shard) }),
      ...(r.shards !== undefined && { shards: Number(r.shards) }),
      ...(r.def !== undefined && { def: String(r.def) }),
    }));
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
  ): Promise<boolean> {
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
