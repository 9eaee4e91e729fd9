/**
 * A backfill's summary, read back from the run records it produced: one Query over the range of
 * the planned slots' sort keys, filtered to manual runs by this requester and reason since the start.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Reason } from '../lib/core/outcomes.js';
import type { Slot } from '../lib/core/schedule/slot.js';
import { queryItems } from '../lib/store/client.js';
import { Attr, Keys } from '../lib/store/schema.js';
import type { Item } from './run-queries.js';

/** One planned invocation: a slot (and shard). */
export interface PlannedRun {
  readonly slot: Slot;
  readonly shard?: number;
}

/** The summary row of one planned invocation. */
export interface BackfillRow {
  readonly slot: string;
  readonly scheduledTime: string;
  readonly shard?: number;
  /**
   * The latest attempt's outcome; `needs-review` when it stopped at an effect whose outcome is unknown
   * (recorded `failed / effect-needs-review`: someone must check the provider and resolve it); `pending` when no record has
   * appeared yet, `not-sent` when the hand-off failed.
   */
  readonly outcome: string;
  readonly reason?: string;
  readonly fence?: number;
  readonly runId?: string;
  /** Run records this backfill produced for the slot (Lambda may retry a failed run). */
  readonly attempts: number;
  readonly error?: string;
  /** Keys of the effects the run left in `needs-review` (from the record's `effectsNeedingReview`). */
  readonly needsReview?: readonly string[];
}

/** The outcome a backfill row reports for a run recorded `failed / effect-needs-review`. */
export const NEEDS_REVIEW_OUTCOME = 'needs-review';

function reviewKeys(record: Item): string[] {
  const details = record.details as { effectsNeedingReview?: { key?: unknown }[] } | undefined;
  return (details?.effectsNeedingReview ?? []).map((n) => String(n.key));
}

function key(slotId: string, shard: number | undefined): string {
  return shard === undefined ? slotId : `${slotId}#${shard}`;
}

/** The run records this backfill (its `backfillId`, stored as `executionId`) produced for the planned slots. */
export async function backfillRecords(
  doc: DynamoDBDocumentClient,
  tableName: string,
  job: string,
  planned: readonly PlannedRun[],
  request: { backfillId: string },
): Promise<Item[]> {
  const ids = planned.map((p) => p.slot.id).sort();
  return queryItems(doc, {
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :first AND :last',
    FilterExpression: '#trigger = :manual AND #executionId = :backfill',
    ExpressionAttributeNames: {
      '#pk': Attr.pk,
      '#sk': Attr.sk,
      '#trigger': 'trigger',
      '#executionId': 'executionId',
    },
    ExpressionAttributeValues: {
      ':pk': Keys.lease(job).pk,
      ':first': `RUN#${ids[0]}#`,
      ':last': `RUN#${ids[ids.length - 1]}#\uffff`,
      ':manual': 'manual',
      ':backfill': request.backfillId,
    },
    ConsistentRead: true,
  });
}

/** One row per planned run, from its records (latest attempt wins) and hand-off errors. */
export function summarize(
  planned: readonly PlannedRun[],
  records: readonly Item[],
  sendErrors: ReadonlyMap<string, string>,
): BackfillRow[] {
  const bySlot = new Map<string, Item[]>();
  for (const r of records) {
    const k = key(String(r.slot), r.shard as number | undefined);
    bySlot.set(k, [...(bySlot.get(k) ?? []), r]);
  }
  return planned.map((p) => {
    const k = key(p.slot.id, p.shard);
    const recs = (bySlot.get(k) ?? []).sort((a, b) => Number(a.startedAtMs) - Number(b.startedAtMs));
    const latest = recs[recs.length - 1];
    const err = sendErrors.get(k);
    const base = {
      slot: p.slot.id,
      scheduledTime: `${new Date(p.slot.scheduledTimeMs).toISOString().slice(0, 19)}Z`,
      ...(p.shard !== undefined && { shard: p.shard }),
      attempts: recs.length,
    };
    if (!latest) return { ...base, outcome: err ? 'not-sent' : 'pending', ...(err && { error: err }) };
    const e = latest.error as { name?: string; message?: string } | undefined;
    const review = reviewKeys(latest);
    return {
      ...base,
      outcome: latest.reason === Reason.EffectNeedsReview ? NEEDS_REVIEW_OUTCOME : String(latest.outcome),
      ...(review.length > 0 && { needsReview: review }),
      ...(latest.reason !== undefined && { reason: String(latest.reason) }),
      ...(typeof latest.fence === 'number' && { fence: latest.fence }),
      runId: String(latest.runId),
      ...(e && { error: `${e.name}: ${e.message}` }),
    };
  });
}

/** Count rows by outcome. */
export function countOutcomes(rows: readonly BackfillRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

/** The key a hand-off error is filed under for {@link summarize}. */
export function plannedKey(p: PlannedRun): string {
  return key(p.slot.id, p.shard);
}
