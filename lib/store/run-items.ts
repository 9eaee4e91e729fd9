/**
 * The stored forms of run records (`JOB#<job>` / `RUN#<slot>#<runId>`): TTL through `expiresAt`, and
 * for problem records (failed, stale, abandoned, and skips for a reason in PROBLEM_REASONS) the sparse
 * `problems` index keys.
 */
import { isProblemRun, Outcome, Reason } from '../core/outcomes.js';
import type { HolderSeen, RunRecord } from '../core/ports.js';
import { Attr, Keys } from './schema.js';

const DAY_S = 86_400;

/** The stored form of a run record: keys, TTL and (for problems) the sparse index attributes. */
export function runRecordItem(record: RunRecord, retentionDays: number): Record<string, unknown> {
  const atMs = record.finishedAtMs ?? record.startedAtMs;
  const problem = isProblemRun(record.outcome, record.reason);
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
