/**
 * DynamoDB run-record store: one record per invocation attempt at `JOB#<job>` / `RUN#<slot>#<runId>`,
 * TTL'd through `expiresAt`; failed, stale and abandoned records carry the sparse `problems` index keys.
 */
import { type DynamoDBDocumentClient, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { Outcome, PROBLEM_OUTCOMES, PROBLEM_REASONS, Reason } from '../core/outcomes.js';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from './client.js';
import { RUN_RECORD_ABANDON, RUN_RECORD_PUT } from './conditions.js';
import { Attr, Keys } from './schema.js';

const DAY_S = 86_400;

/** The stored form of a run record: keys, TTL and (for problems) the sparse index attributes. */
export function runRecordItem(record: RunRecord, retentionDays: number): Record<string, unknown> {
  const atMs = record.finishedAtMs ?? record.startedAtMs;
  const problem =
    PROBLEM_OUTCOMES.includes(record.outcome) ||
    (record.reason !== undefined && PROBLEM_REASONS.includes(record.reason));
  return {
    ...Keys.run(record.job, record.slot, record.runId),
    kind: 'run',
    ...record,
    // Retention counts from when the record is written (wall clock), not from the run's own clock:
    // a skewed or emulated clock (npm start --from <past>) must not make DynamoDB reap it at once.
    [Attr.expiresAt]: Math.floor(Math.max(atMs, Date.now()) / 1000) + Math.ceil(retentionDays * DAY_S),
    ...(problem && { [Attr.problem]: record.outcome, [Attr.problemAtMs]: atMs }),
  };
}

/**
 * The stored form of the `abandoned / not-released` record a claimer writes for a displaced holder
 * that never wrote its own (no trigger or scheduled time: only the holder knew them).
 */
export function abandonedRunItem(
  job: string,
  holder: HolderSeen,
  byRunId: string,
  nowMs: number,
  retentionDays: number,
): Record<string, unknown> {
  const record: RunRecord = {
    job,
    slot: holder.slot,
    scheduledTime: '',
    businessDate: '',
    runId: holder.runId,
    trigger: 'schedule',
    fence: holder.fence,
    outcome: Outcome.Abandoned,
    reason: Reason.NotReleased,
    startedAtMs: nowMs,
    finishedAtMs: nowMs,
    details: { detectedBy: byRunId, leaseUntilMs: holder.leaseUntilMs },
  };
  const { scheduledTime: _s, businessDate: _b, trigger: _t, ...item } = runRecordItem(record, retentionDays);
  return item;
}

/**
 * Filter of {@link DynamoRunStore.findSucceeded}: `succeeded`, under this definition id (records
 * without one predate it and count), and for a shard, that shard's.
 */
function succeededFilter(shard: number | undefined): string {
  return `#outcome = :ok AND (attribute_not_exists(#def) OR #def = :def)${shard === undefined ? ' AND attribute_not_exists(#shard)' : ' AND #shard = :shard'}`;
}
const succeededNames = (_shard: number | undefined) => ({
  '#outcome': 'outcome',
  '#def': 'def',
  '#shard': 'shard',
});
const succeededValues = (def: string, shard: number | undefined) => ({
  ':ok': Outcome.Succeeded,
  ':def': def,
  ...(shard !== undefined && { ':shard': shard }),
});

/** The same test as the Query filter, on an item (the in-memory store). */
export function isSucceededUnder(item: Record<string, unknown>, def: string, shard?: number): boolean {
  return (
    item.outcome === Outcome.Succeeded &&
    (item.def === undefined || item.def === def) &&
    (shard === undefined ? item.shard === undefined : item.shard === shard)
  );
}

/** Run store on the library table. */
export class DynamoRunStore implements RunStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: RunRecord, retentionDays: number): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: runRecordItem(record, retentionDays),
          ConditionExpression: RUN_RECORD_PUT,
          ExpressionAttributeNames: { '#pk': Attr.pk, '#outcome': 'outcome' },
          ExpressionAttributeValues: { ':abandoned': Outcome.Abandoned },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) {
        const existing = itemOfConditionFailure(err);
        // Our own earlier put, whose response was lost and which the SDK retried: already recorded.
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
    try {
      const pages = paginateQuery(
        { client: this.doc },
        {
          TableName: this.tableName,
          ConsistentRead: true,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          FilterExpression: succeededFilter(shard),
          ProjectionExpression: '#runId',
          ExpressionAttributeNames: {
            '#pk': Attr.pk,
            '#sk': Attr.sk,
            ...succeededNames(shard),
            '#runId': 'runId',
          },
          ExpressionAttributeValues: {
            ':pk': Keys.run(job, slotId, '').pk,
            ':prefix': Keys.run(job, slotId, '').sk,
            ...succeededValues(def, shard),
          },
        },
      );
      for await (const page of pages) {
        const hit = page.Items?.[0];
        if (hit) return String(hit.runId);
      }
      return undefined;
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
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: RUN_RECORD_ABANDON,
          ExpressionAttributeNames: { '#pk': Attr.pk },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return; // it wrote its own record before dying: keep it
      throw storeError('PutItem (abandoned run record)', err);
    }
  }
}
