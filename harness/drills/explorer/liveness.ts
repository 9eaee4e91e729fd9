/**
 * The liveness invariant and the history shapes of Lambda-model histories.
 *
 * `liveness`: every occurrence that was delivered at least once ends, before the history ends, either
 * `succeeded` (a sharded one: every shard of one shard count, under that count's definition) or with a
 * problem the alarms count — a `failed` / `stale` / `not-on-schedule` record of it, or its event in the
 * dead-letter queue. An `abandoned` mark alone does not count: it says a holder died, not that the
 * occurrence was dealt with. Bound: the history ends at most three sweeper periods (45 min) after
 * Lambda's last attempt (two retries within its maximum event age) of its last event.
 */
import { OFF_SCHEDULE_RUN_ID } from '../../../lib/runtime/sweeper.js';
import { type Check, check } from '../checks.js';
import type { HistorySpec } from './history.js';
import { SLOT_MINUTES } from './jobs.js';
import { EXPLORER_REMEMBER_SLOTS } from './lambda-jobs.js';
import type { HistoryOutcome } from './run-history.js';

/** The invariant's name in reports. */
export const LIVENESS = 'liveness';

/** The shapes a report counts, by name. */
export const SHAPES = [
  'lambda-delivery',
  'crash-then-retry',
  'late-beyond-done-set',
  'shard-failure',
  'reshard',
  'zone-change',
  'schedule-change',
  'off-schedule',
  'txn-conflict',
  'oversized-detail',
] as const;
/** One of {@link SHAPES}. */
export type Shape = (typeof SHAPES)[number];

const PROBLEMS = ['failed', 'stale'];

/** The shapes a history has (from its spec and what its run did). */
export function shapesOf(spec: HistorySpec, o: HistoryOutcome): Shape[] {
  if (!spec.lambda) return [];
  const out: Shape[] = ['lambda-delivery'];
  const killed = spec.faults.some((f) => f.kind === 'kill');
  if (killed && (o.lambda?.retries ?? []).some((r) => r.why.startsWith('timeout')))
    out.push('crash-then-retry');
  const slots = new Set(spec.deliveries.map((d) => d.slot)).size;
  if (
    slots > EXPLORER_REMEMBER_SLOTS &&
    spec.deliveries.some((d) => d.delayMs > (EXPLORER_REMEMBER_SLOTS + 1) * SLOT_MINUTES * 60_000)
  )
    out.push('late-beyond-done-set');
  if (spec.failShard && spec.deliveries.some((d) => d.job === 'shard')) out.push('shard-failure');
  if (spec.redeploy?.change === 'reshard') out.push('reshard');
  if (spec.redeploy?.change === 'zone') out.push('zone-change');
  if (spec.redeploy?.change === 'schedule') out.push('schedule-change');
  // a delivered, unfinished slot the redeploy took off the schedule, ended by the sweeper's record
  if (o.records.some((r) => r.runId === OFF_SCHEDULE_RUN_ID)) out.push('off-schedule');
  if (spec.faults.some((f) => f.kind === 'conflict')) out.push('txn-conflict');
  if (spec.oversized?.length && spec.deliveries.some((d) => d.job === 'settle')) out.push('oversized-detail');
  return out;
}

/** Check liveness on a Lambda-model history (a legacy history: vacuously true). */
export function checkLiveness(o: HistoryOutcome): Check {
  const l = o.lambda;
  if (!l) return check(LIVENESS, true, 'not a Lambda-model history');
  const iso = (ms: number) => new Date(ms).toISOString();
  const lost: string[] = [];
  const seen = new Set<string>();
  for (const d of l.delivered) {
    const k = `${d.job}|${d.scheduledTimeMs}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const mine = o.records.filter((r) => r.job === d.job && r.scheduledTime === iso(d.scheduledTimeMs));
    const problem =
      mine.some((r) => PROBLEMS.includes(String(r.outcome)) || r.reason === 'not-on-schedule') ||
      l.deadLetters.some((x) => x.job === d.job && x.scheduledTimeMs === d.scheduledTimeMs);
    let done: boolean;
    if (d.job === 'ex-shard') {
      done = [...l.shardDefs].some(([def, n]) =>
        Array.from({ length: n }, (_, i) => i).every((i) =>
          mine.some((r) => r.outcome === 'succeeded' && r.shard === i && r.def === def),
        ),
      );
    } else done = mine.some((r) => r.outcome === 'succeeded');
    if (!done && !problem)
      lost.push(
        `${d.job} ${iso(d.scheduledTimeMs)}: ${mine.map((r) => `${r.outcome}/${r.reason ?? ''}${r.shard === undefined ? '' : `#${String(r.shard)}`}`).join(', ') || 'no record'}`,
      );
  }
  return check(
    LIVENESS,
    lost.length === 0,
    lost.length
      ? `silently lost: ${lost.slice(0, 3).join('; ')}`
      : `${seen.size} delivered occurrences: each succeeded or left a problem record (${l.deadLetters.length} dead letters), history ended at +${Math.round(l.endMs / 60_000)} min`,
  );
}
