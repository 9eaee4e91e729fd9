/**
 * Every job at a glance (`Operator.jobs`, `cronfence jobs`) — schedule, zone, pause (with its note), next occurrence
 * (local and UTC), last occurrence with its outcome and reason, the lease holder if held, and the
 * count of problem records in the last 7 days: the records `cronfence runs --failed --since 7d` lists
 * (failed / stale / abandoned, and skips for a reason in PROBLEM_REASONS), read from the same index.
 * Per job: ONE GetItem of the job lease and ONE Query of its run records of the last 8 days (a few
 * attributes projected), in parallel across jobs; for all jobs together ONE Query per run partition of
 * the sparse `problems` index (RUN_PROBLEM_PARTITIONS: 4).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type LeaseItem, slotIdOfDoneKey } from '../lib/core/lease.js';
import { Outcome, Reason, RUN_PROBLEM_PARTITIONS } from '../lib/core/outcomes.js';
import { overlapLabel, overlapOfJob } from '../lib/core/overlap-check.js';
import { pauseInForce } from '../lib/core/pause.js';
import { iterateSlots, type SlotSource } from '../lib/core/schedule/enumerate.js';
import { MAX_SLOT_AHEAD_MS } from '../lib/core/schedule/validate-slot.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { queryItems } from '../lib/store/client.js';
import { DynamoPauseStore } from '../lib/store/pause-store.js';
import { Attr, Keys } from '../lib/store/schema.js';
import { iso } from './input.js';
import { queryProblems } from './run-queries.js';

/** How far back `jobs` counts problems and looks for the last occurrence, ms. */
export const JOBS_LOOKBACK_MS = 7 * 86_400_000;

const DAY_MS = 86_400_000;

/** One job's overview: one row of `cronfence jobs`. */
export interface JobRow {
  readonly job: string;
  readonly schedule: string;
  readonly timeZone: string;
  readonly shards: number;
  /** The overlap policy as one token: `skip`, `buffer-all(4)`, `replace(>300s)`, ... */
  readonly overlap: string;
  readonly paused: { by: string; since: string; note: string; until?: string } | null;
  readonly next: { slot: string; local: string; utc: string } | null;
  readonly last: {
    slot: string;
    scheduledTime: string;
    outcome: string;
    reason?: string;
    trigger: string;
    runId: string;
  } | null;
  readonly holder: { runId: string; slot: string; fence: number; leaseUntil: string } | null;
  /**
   * Overlap `buffer-*`: the slot ids waiting on the job's lease item to run after its holder, in slot
   * order (empty when none wait; a sharded job's shard slots wait on its shard leases: `cronfence lease`).
   */
  readonly waiting: readonly string[];
  /**
   * The job's problem records whose `problemAtMs` (finish, else start) is in the last 7 days: exactly
   * the records `cronfence runs --failed --since 7d <job>` lists.
   */
  readonly problems7d: number;
}

async function runsOf(doc: DynamoDBDocumentClient, table: string, job: string, nowMs: number) {
  // Slot ids start with a date (local or UTC); a day more than the look-back covers every zone.
  const from = new Date(nowMs - JOBS_LOOKBACK_MS - 86_400_000).toISOString().slice(0, 10);
  return queryItems(doc, {
    TableName: table,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: {
      '#pk': Attr.pk,
      '#sk': Attr.sk,
      '#slot': 'slot',
      '#outcome': 'outcome',
      '#reason': 'reason',
      '#trigger': 'trigger',
      '#runId': 'runId',
      '#st': 'scheduledTime',
      '#fin': 'finishedAtMs',
      '#shard': 'shard',
    },
    ExpressionAttributeValues: { ':pk': Keys.lease(job).pk, ':from': `RUN#${from}`, ':to': 'RUN#\uffff' },
    ProjectionExpression: '#slot, #outcome, #reason, #trigger, #runId, #st, #fin, #shard',
  });
}

/**
 * The run that stands for the job's newest occurrence with a record (pure): occurrences are ordered by
 * their instant — the schedule's own instant for a slot id of the current schedule (enumerated with
 * Scheduler's rules over the look-back), else the record's `scheduledTime` (a slot of an earlier
 * definition) — never by the text of slot ids, which mix local (`2026-12-01T02:30`) and UTC
 * (`2026-12-01T04:00Z`) forms. A `not-on-schedule` record is no occurrence and never the last run. Of
 * the newest occurrence's attempts: a success if any, else the one that finished last.
 * @param runs the job's run records (at least `slot`, `outcome`, `reason`, `scheduledTime`, `finishedAtMs`).
 */
export function lastOccurrenceRun(
  src: SlotSource,
  runs: readonly Record<string, unknown>[],
  nowMs: number,
): Record<string, unknown> | undefined {
  const occurrences = new Map<string, number>();
  for (const s of iterateSlots(src, nowMs - JOBS_LOOKBACK_MS - 2 * DAY_MS, nowMs + MAX_SLOT_AHEAD_MS))
    occurrences.set(s.id, s.scheduledTimeMs);
  const onSchedule = runs.filter((r) => r.reason !== Reason.NotOnSchedule);
  let newest: { slot: string; atMs: number } | undefined;
  for (const r of onSchedule) {
    const slot = String(r.slot);
    const atMs = occurrences.get(slot) ?? Date.parse(String(r.scheduledTime ?? ''));
    if (Number.isNaN(atMs)) continue;
    if (!newest || atMs > newest.atMs || (atMs === newest.atMs && slot > newest.slot))
      newest = { slot, atMs };
  }
  if (!newest) return undefined;
  const attempts = onSchedule
    .filter((r) => String(r.slot) === newest.slot)
    .sort((a, b) => Number(a.finishedAtMs ?? 0) - Number(b.finishedAtMs ?? 0));
  return attempts.find((r) => r.outcome === Outcome.Succeeded) ?? attempts[attempts.length - 1];
}

/**
 * Build a job's row from its lease item, run records and problem count (pure).
 * @param problems7d the job's problem records in the last 7 days (from the `problems` index).
 */
export function jobRow(
  handler: JobHandler,
  lease: LeaseItem | undefined,
  runs: readonly Record<string, unknown>[],
  nowMs: number,
  problems7d: number,
): JobRow {
  const def = handler.job;
  const pause = pauseInForce(lease, nowMs);
  const src = { ...def, schedule: handler.expression, startMs: def.rateAnchorMs ?? 0 };
  const next = iterateSlots(src, nowMs, nowMs + 400 * 86_400_000).next().value;
  const lastRun = lastOccurrenceRun(src, runs, nowMs);
  const held = lease?.holderState === 'running' && (lease.leaseUntilMs ?? 0) > nowMs;
  return {
    job: def.name,
    schedule: def.schedule,
    timeZone: def.timeZone,
    shards: def.shards,
    overlap: overlapLabel(overlapOfJob(def, handler.expression, nowMs)),
    paused: pause
      ? {
          by: pause.by,
          since: iso(pause.atMs),
          note: pause.note,
          ...(pause.untilMs !== undefined && { until: iso(pause.untilMs) }),
        }
      : null,
    next: next
      ? { slot: next.id, local: `${next.localTime} ${def.timeZone}`, utc: iso(next.scheduledTimeMs) }
      : null,
    last: lastRun
      ? {
          slot: String(lastRun.slot),
          scheduledTime: String(lastRun.scheduledTime ?? ''),
          outcome: String(lastRun.outcome),
          ...(lastRun.reason !== undefined && { reason: String(lastRun.reason) }),
          trigger: String(lastRun.trigger),
          runId: String(lastRun.runId),
        }
      : null,
    holder:
      held && lease?.owner
        ? {
            runId: lease.owner,
            slot: String(lease.slot),
            fence: Number(lease.fence),
            leaseUntil: iso(lease.leaseUntilMs),
          }
        : null,
    waiting: [...(lease?.buffered ?? [])].map(slotIdOfDoneKey).sort(),
    problems7d,
  };
}

/**
 * Every job's row: per job ONE GetItem (its lease) and ONE Query (its run records of the last 8
 * days), jobs in parallel; the problem counts from ONE Query per run partition of the `problems`
 * index (problemAtMs within {@link JOBS_LOOKBACK_MS}), shared by all jobs — the query
 * `cronfence runs --failed` runs, so the two always agree. @throws StoreError / the SDK's error
 */
export async function jobRows(
  doc: DynamoDBDocumentClient,
  tableName: string,
  handlers: readonly JobHandler[],
  nowMs: number,
): Promise<JobRow[]> {
  const leases = new DynamoPauseStore(doc, tableName);
  const problems = queryProblems(doc, tableName, {
    problems: RUN_PROBLEM_PARTITIONS,
    sinceMs: nowMs - JOBS_LOOKBACK_MS,
    limit: Number.POSITIVE_INFINITY,
  }).then((items) => {
    const byJob = new Map<string, number>();
    for (const i of items) byJob.set(String(i.job), (byJob.get(String(i.job)) ?? 0) + 1);
    return byJob;
  });
  return Promise.all(
    handlers.map(async (h) => {
      const [lease, runs, counts] = await Promise.all([
        leases.lease(h.job.name),
        runsOf(doc, tableName, h.job.name, nowMs),
        problems,
      ]);
      return jobRow(h, lease, runs, nowMs, counts.get(h.job.name) ?? 0);
    }),
  );
}
