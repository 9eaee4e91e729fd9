/**
 * In-memory run-record store: the same items (`runRecordItem`) and conditions (RUN_RECORD_PUT,
 * RUN_RECORD_ABANDON) as DynamoRunStore.
 */
import { Outcome } from '../../core/outcomes.js';
import type { HolderSeen, RunRecord, RunStore } from '../../core/ports.js';
import { storeError } from '../client.js';
import { abandonedRunItem, isSucceededUnder, runRecordItem } from '../run-store.js';
import { Keys } from '../schema.js';
import { type MemoryClient, MemoryConditionFailed } from './memory-db.js';

/** Run store on a {@link MemoryClient}. */
export class MemoryRunStore implements RunStore {
  constructor(
    private readonly client: MemoryClient,
    private readonly tableName: string,
  ) {}

  async put(record: RunRecord, retentionDays: number): Promise<void> {
    const key = Keys.run(record.job, record.slot, record.runId);
    try {
      await this.client.send(
        {
          command: 'PutItemCommand',
          op: 'run-record',
          input: { TableName: this.tableName, Key: key, runId: record.runId, fence: record.fence },
        },
        () => {
          const cur = this.client.db.get(this.tableName, key);
          if (cur !== undefined && cur.outcome !== Outcome.Abandoned) throw new MemoryConditionFailed(cur);
          this.client.db.put(this.tableName, key, runRecordItem(record, retentionDays), {
            op: 'run-record',
            runId: record.runId,
            ...(record.fence !== undefined && { fence: record.fence }),
            status: record.outcome,
          });
        },
      );
    } catch (err) {
      if (err instanceof MemoryConditionFailed) {
        const existing = err.item;
        if (existing?.runId === record.runId && existing?.outcome === record.outcome) return;
        throw storeError(
          'PutItem (run record)',
          new Error(`run record ${record.runId} already written as ${String(existing?.outcome)}`),
        );
      }
      throw storeError('PutItem (run record)', err);
    }
  }

  async findSucceeded(job: string, slotId: string, def: string, shard?: number): Promise<string | undefined> {
    const { pk, sk } = Keys.run(job, slotId, '');
    try {
      return await this.client.send(
        { command: 'QueryCommand', op: 'read', input: { TableName: this.tableName, Key: { pk, sk } } },
        () => {
          const hit = this.client.db
            .scan(this.tableName)
            .find((i) => i.pk === pk && String(i.sk).startsWith(sk) && isSucceededUnder(i, def, shard));
          return hit === undefined ? undefined : String(hit.runId);
        },
      );
    } catch (err) {
      throw storeError('Query (succeeded run records of a slot)', err);
    }
  }

  async markAbandoned(
    job: string,
    holder: HolderSeen,
    byRunId: string,
    nowMs: number,
    retentionDays: number,
  ): Promise<void> {
    const item = abandonedRunItem(job, holder, byRunId, nowMs, retentionDays);
    const key = Keys.run(job, holder.slot, holder.runId);
    try {
      await this.client.send(
        {
          command: 'PutItemCommand',
          op: 'mark-abandoned',
          input: { TableName: this.tableName, Key: key, runId: holder.runId, fence: holder.fence },
        },
        () => {
          const cur = this.client.db.get(this.tableName, key);
          if (cur !== undefined) throw new MemoryConditionFailed(cur);
          this.client.db.put(this.tableName, key, item, {
            op: 'mark-abandoned',
            runId: holder.runId,
            fence: holder.fence,
            status: Outcome.Abandoned,
          });
        },
      );
    } catch (err) {
      if (err instanceof MemoryConditionFailed) return;
      throw storeError('PutItem (abandoned run record)', err);
    }
  }
}
