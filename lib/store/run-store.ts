/**
 * DynamoDB run-record store: one record per invocation attempt at `JOB#<job>` / `RUN#<slot>#<runId>`,
 * TTL'd through `expiresAt`; failed, stale and abandoned records carry the sparse `problems` index keys.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Outcome, PROBLEM_OUTCOMES, Reason } from '../core/outcomes.js';
import type { HolderSeen, RunRecord, RunStore } from '../core/ports.js';
import { LeaseLostError } from '../errors.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from './client.js';
import { RUN_RECORD_ABANDON, RUN_RECORD_CORRECT, RUN_RECORD_PUT, RUN_RECORD_SUCCESS } from './conditions.js';
import { Attr, Keys } from './schema.js';

const DAY_S = 86_400;

/** The stored form of a run record: keys, TTL and (for problems) the sparse index attributes. */
export function runRecordItem(record: RunRecord, retentionDays: number): Record<string, unknown> {
  const atMs = record.finishedAtMs ?? record.startedAtMs;
  const problem = PROBLEM_OUTCOMES.includes(record.outcome);
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
 * The condition a run record's put carries, by outcome: `succeeded` only where nothing is recorded
 * (RUN_RECORD_SUCCESS), `stale` may also replace the run's own `succeeded` (RUN_RECORD_CORRECT),
 * anything else may replace an `abandoned` mark (RUN_RECORD_PUT). `allows` is the same rule on the
 * current item's outcome, for the in-memory store.
 */
export function runRecordCondition(outcome: string): {
  expression: string;
  values: Record<string, unknown>;
  allows(current: string | undefined): boolean;
} {
  if (outcome === Outcome.Succeeded)
    return { expression: RUN_RECORD_SUCCESS, values: {}, allows: (cur) => cur === undefined };
  if (outcome === Outcome.Stale)
    return {
      expression: RUN_RECORD_CORRECT,
      values: { ':abandoned': Outcome.Abandoned, ':succeeded': Outcome.Succeeded },
      allows: (cur) => cur === undefined || cur === Outcome.Abandoned || cur === Outcome.Succeeded,
    };
  return {
    expression: RUN_RECORD_PUT,
    values: { ':abandoned': Outcome.Abandoned },
    allows: (cur) => cur === undefined || cur === Outcome.Abandoned,
  };
}

/**
 * What a refused run-record put means: our own write whose response was lost (undefined: done), a
 * `succeeded` record refused by a successor's abandoned mark (LeaseLostError: the run was displaced,
 * record it stale), or a record already written otherwise (StoreError).
 */
export function runRecordRefused(
  existing: Record<string, unknown> | undefined,
  record: RunRecord,
): Error | undefined {
  if (existing?.runId === record.runId && existing?.outcome === record.outcome) return undefined;
  if (record.outcome === Outcome.Succeeded && existing?.outcome === Outcome.Abandoned) {
    const by = (existing.details as Record<string, unknown> | undefined)?.detectedBy;
    return new LeaseLostError(
      `run ${record.runId} (fence ${String(record.fence)}) was displaced: run ${String(by)} took its lease and marked it abandoned`,
      existing,
    );
  }
  return storeError(
    'PutItem (run record)',
    new Error(`run record ${record.runId} already written as ${String(existing?.outcome)}`),
  );
}

/** Run store on the library table. */
export class DynamoRunStore implements RunStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: RunRecord, retentionDays: number): Promise<void> {
    const condition = runRecordCondition(record.outcome);
    const hasOutcome = Object.keys(condition.values).length > 0;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: runRecordItem(record, retentionDays),
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: { '#pk': Attr.pk, ...(hasOutcome && { '#outcome': 'outcome' }) },
          ...(hasOutcome && { ExpressionAttributeValues: condition.values }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) {
        const refusal = runRecordRefused(itemOfConditionFailure(err), record);
        if (refusal) throw refusal;
        return;
      }
      throw storeError('PutItem (run record)', err);
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
