/**
 * The stored forms of run records (`JOB#<job>` / `RUN#<slot>#<runId>`): TTL through `expiresAt`, and
 * for problem records (failed, stale, abandoned, and skips for a reason in PROBLEM_REASONS) the sparse
 * `problems` index keys.
 */
import { isProblemRun, Outcome, Reason } from '../core/outcomes.js';
import type { HolderSeen, RunRecord } from '../core/ports.js';
import { Attr, Keys, problemKeys } from './schema.js';

const DAY_S = 86_400;

/** An epoch-ms instant as ISO 8601 UTC (`2026-03-10T09:00:05.000Z`), for readers of the stored item. */
export function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** The stored form of a run record: keys, TTL and (for problems) the sparse index attributes. */
export function runRecordItem(record: RunRecord, retentionDays: number): Record<string, unknown> {
  const atMs = record.finishedAtMs ?? record.startedAtMs;
  const problem = isProblemRun(record.outcome, record.reason);
  return {
    ...Keys.run(record.job, record.slot, record.runId),
    ...record,
    // The instants a person reads in the console, beside the epoch-ms numbers the code reads.
    startedAt: isoInstant(record.startedAtMs),
    ...(record.finishedAtMs !== undefined && { finishedAt: isoInstant(record.finishedAtMs) }),
    // Retention counts from when the record is written (wall clock), not from the run's own clock:
    // a skewed or emulated clock (npm start --from <past>) must not make DynamoDB reap it at once.
    [Attr.expiresAt]: Math.floor(Math.max(atMs, Date.now()) / 1000) + Math.ceil(retentionDays * DAY_S),
    ...(problem && problemKeys(record.outcome, atMs)),
  };
}

/**
 * The stored form of the `abandoned / not-released` record a claimer (or the sweeper) writes for a
 * displaced holder that never wrote its own. It names the dead run as far as the lease item did: its
 * slot, fence and lease end always, and its claim time (`startedAtMs`), `trigger` and `requestedBy`
 * when the lease item kept them (claims store them; an entry of the `open` list and an item written
 * before they were stored do not: `trigger` is then left out rather than guessed, and `startedAtMs` is
 * the detection time, as `details.detectedAtMs` says). `details` says who found it and when.
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
    ...(holder.requestedBy !== undefined && { requestedBy: holder.requestedBy }),
    fence: holder.fence,
    outcome: Outcome.Abandoned,
    reason: Reason.NotReleased,
    startedAtMs: holder.acquiredAtMs ?? nowMs,
    finishedAtMs: nowMs,
    details: {
      detectedBy: byRunId,
      detectedAtMs: nowMs,
      detectedAt: isoInstant(nowMs),
      leaseUntilMs: holder.leaseUntilMs,
      leaseUntil: isoInstant(holder.leaseUntilMs),
    },
  };
  const { scheduledTime: _s, businessDate: _b, trigger: _t, ...item } = runRecordItem(record, retentionDays);
  return { ...item, ...(holder.trigger !== undefined && { trigger: holder.trigger }) };
}

/**
 * True for a `succeeded` record under definition id `def` (records without one predate definition
 * ids and count), of the given shard (or of no shard).
 */
export function isSucceededUnder(item: Record<string, unknown>, def: string, shard?: number): boolean {
  return (
    item.outcome === Outcome.Succeeded &&
    (item.def === undefined || item.def === def) &&
    (shard === undefined ? item.shard === undefined : item.shard === shard)
  );
}
