/**
 * A job's real history over a range, as `cronfence report` draws it: its run records, its lease item
 * and its effect records. Reads: one Query of the job's run records, one GetItem of its lease, one
 * Scan of the library table for the job's effect records (filtered; the table has no per-job effect
 * index).
 */
import type { LeaseItem } from '../lib/core/lease.js';
import { queryItems, scanItems } from '../lib/store/client.js';
import { DynamoPauseStore } from '../lib/store/pause-store.js';
import { Attr, Keys } from '../lib/store/schema.js';
import { iso, usage } from './input.js';
import type { Item } from './run-queries.js';
import type { Session } from './session.js';

/** The longest range a history covers, days. */
export const MAX_HISTORY_DAYS = 92;

const DAY_MS = 86_400_000;

/** A job's records over a range. */
export interface JobHistory {
  /** Run records whose scheduled time (else start) is in the range, as stored. */
  readonly runs: readonly Item[];
  /** Effect records the runs in range wrote, as stored. */
  readonly effects: readonly Item[];
  /** The job's lease item now. */
  readonly lease: LeaseItem | undefined;
}

/**
 * Check a history range before anything is read.
 * @throws InvalidArgumentError naming `to` (before `from`) or `from/to` (over 92 days).
 */
export function checkHistoryRange(fromMs: number, toMs: number): void {
  if (toMs < fromMs) throw usage('to', iso(toMs), `is before \`from\` ${iso(fromMs)}`);
  if (toMs - fromMs > MAX_HISTORY_DAYS * DAY_MS)
    throw usage(
      'from/to',
      `${iso(fromMs)}..${iso(toMs)}`,
      `spans more than ${MAX_HISTORY_DAYS} days: draw a shorter range`,
    );
}

/**
 * The job's run records, lease and effects for [`fromMs`, `toMs`] (epoch ms, inclusive).
 * @throws InvalidArgumentError (see {@link checkHistoryRange}); StoreError
 */
export async function jobHistory(s: Session, job: string, fromMs: number, toMs: number): Promise<JobHistory> {
  checkHistoryRange(fromMs, toMs);
  const conn = await s.connection();
  // Slot ids begin with a local or UTC date: a day either side covers every zone.
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const inRange = (ms: number) => ms >= fromMs - DAY_MS && ms <= toMs + DAY_MS;
  const runs = (
    await queryItems(conn.doc, {
      TableName: conn.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
      ExpressionAttributeValues: {
        ':pk': Keys.lease(job).pk,
        ':from': `RUN#${day(fromMs - DAY_MS)}`,
        ':to': `RUN#${day(toMs + DAY_MS)}\uffff`,
      },
    })
  ).filter((r) => {
    const at = r.scheduledTime ? Date.parse(String(r.scheduledTime)) : Number(r.startedAtMs);
    return at >= fromMs && at <= toMs;
  });
  const lease = await new DynamoPauseStore(conn.doc, conn.tableName).lease(job);
  const effects = (
    await scanItems(conn.doc, {
      TableName: conn.tableName,
      FilterExpression: 'begins_with(#pk, :prefix)',
      ExpressionAttributeNames: { '#pk': Attr.pk },
      ExpressionAttributeValues: { ':prefix': `EFFECT#${job}#` },
    })
  ).filter((e) => inRange(Number(e.createdAtMs)) && runs.some((r) => r.runId === e.runId));
  return { runs, effects, lease };
}
