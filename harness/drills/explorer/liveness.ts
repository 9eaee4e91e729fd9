/**
 * The liveness invariant and the history shapes of Lambda-model histories.
 *
 * `liveness`: every occurrence that was delivered at least once ends, before the history ends, either
 * `succeeded` (a sharded one: every shard of one shard count, under that count's definition) or with a
 * problem the alarms count — a `failed` / `stale` / `not-on-schedule` record of it, or its event in the
 * dead-letter queue. An `abandoned` mark alone does not count: it says a holder died, not that the
 * occurrence was dealt with. And it does so within {@link LIVENESS_BOUND_MS} of its first hand-off to
 * Lambda (docs/design.md "When is a slot done": the bound per delivery path). The history ends at most
 * three sweeper periods (45 min) after Lambda's last attempt of its last event.
 */

import { PROBLEM_REASONS } from '../../../lib/core/outcomes.js';
import { MAX_CATCH_UP_ATTEMPTS, OFF_SCHEDULE_RUN_ID } from '../../../lib/runtime/sweeper.js';
import { type Check, check } from '../checks.js';
import type { HistorySpec } from './history.js';
import { SLOT_MINUTES } from './jobs.js';
import { EXPLORER_REMEMBER_SLOTS } from './lambda-jobs.js';
import { LAMBDA_MAX_EVENT_AGE_MS, LAMBDA_RETRY_DELAYS_MS, SWEEP_PERIOD_MS } from './lambda-model.js';
import { LAMBDA_SHAPES, lambdaShapesOf } from './lambda-shapes.js';
import { OVERLAP_SHAPES, OVERLAP_TIMEOUT_SECONDS, overlapShapesOf } from './overlap-shape.js';
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
  ...LAMBDA_SHAPES,
  ...OVERLAP_SHAPES,
] as const;

/** The explorer jobs' function timeout, ms (lambda-jobs.ts). */
const TIMEOUT_MS = 120_000;
/** Lambda's attempts of one event: three runs up to the timeout, and the 1 + 2 min between them. */
const LAMBDA_ATTEMPTS_MS = 3 * TIMEOUT_MS + LAMBDA_RETRY_DELAYS_MS[0] + LAMBDA_RETRY_DELAYS_MS[1];
/**
 * How long after its first hand-off to Lambda an occurrence may take to end (succeeded, or a problem
 * record, or a dead letter): waiting in Lambda's queue up to its maximum event age (6 h), Lambda's
 * attempts (9 min), the sweeper's 10 min grace, then up to {@link MAX_CATCH_UP_ATTEMPTS} + 1 sweeps
 * a period apart, each catch-up an event with Lambda's attempts (4 x 24 min): 7 h 55 min.
 */
export const LIVENESS_BOUND_MS =
  LAMBDA_MAX_EVENT_AGE_MS +
  LAMBDA_ATTEMPTS_MS +
  600_000 +
  (MAX_CATCH_UP_ATTEMPTS + 1) * (SWEEP_PERIOD_MS + LAMBDA_ATTEMPTS_MS);
/** Earlier occurrences one may wait behind: the history's slots. */
const OVERLAP_CHAIN = 12;
/**
 * The bound under an overlap policy: the settle job's deadline is 900 s (Lambda's attempts take up to
 * 48 min), and an occurrence may wait behind up to {@link OVERLAP_CHAIN} earlier ones (buffered in slot
 * order, or after-previous), each of which may take a sweep and Lambda's attempts.
 */
export const OVERLAP_LIVENESS_BOUND_MS =
  LIVENESS_BOUND_MS +
  (MAX_CATCH_UP_ATTEMPTS + 2) * 3 * (OVERLAP_TIMEOUT_SECONDS * 1000 - TIMEOUT_MS) +
  OVERLAP_CHAIN *
    (SWEEP_PERIOD_MS +
      3 * OVERLAP_TIMEOUT_SECONDS * 1000 +
      LAMBDA_RETRY_DELAYS_MS[0] +
      LAMBDA_RETRY_DELAYS_MS[1]);
/** Clock error a record's `finishedAtMs` may carry (skews, frozen clocks of pause faults), ms. */
const CLOCK_TOLERANCE_MS = 300_000;
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
  out.push(...lambdaShapesOf(spec.lambdaShapes, o.lambda?.timeouts ?? 0));
  out.push(...overlapShapesOf(spec.overlap, o.records));
  return out;
}

/** Check liveness on a Lambda-model history (a legacy history: vacuously true). */
export function checkLiveness(o: HistoryOutcome): Check {
  const l = o.lambda;
  if (!l) return check(LIVENESS, true, 'not a Lambda-model history');
  const iso = (ms: number) => new Date(ms).toISOString();
  const bound = o.overlap === undefined ? LIVENESS_BOUND_MS : OVERLAP_LIVENESS_BOUND_MS;
  const lost: string[] = [];
  const late: string[] = [];
  const seen = new Set<string>();
  const firstHandOff = new Map<string, number>();
  for (const d of l.delivered) {
    const k = `${d.job}|${d.scheduledTimeMs}`;
    firstHandOff.set(k, Math.min(firstHandOff.get(k) ?? Number.POSITIVE_INFINITY, d.handOffMs));
  }
  for (const d of l.delivered) {
    const k = `${d.job}|${d.scheduledTimeMs}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const mine = o.records.filter((r) => r.job === d.job && r.scheduledTime === iso(d.scheduledTimeMs));
    const letters = l.deadLetters.filter((x) => x.job === d.job && x.scheduledTimeMs === d.scheduledTimeMs);
    // failed / stale, or a skip the SlotNotRun alarm counts (not-on-schedule, buffer-full, waiting-too-long, ...)
    const isProblem = (r: Record<string, unknown>) =>
      PROBLEMS.includes(String(r.outcome)) || PROBLEM_REASONS.includes(String(r.reason));
    const problem = mine.some(isProblem) || letters.length > 0;
    // When it ended: its first success or problem record, or its first dead letter.
    const endedAt = Math.min(
      ...mine.filter((r) => r.outcome === 'succeeded' || isProblem(r)).map((r) => Number(r.finishedAtMs)),
      ...letters.map((x) => x.atMs),
    );
    const handOff = firstHandOff.get(k) ?? d.handOffMs;
    if (Number.isFinite(endedAt) && endedAt - CLOCK_TOLERANCE_MS > handOff + bound)
      late.push(
        `${d.job} ${iso(d.scheduledTimeMs)} ended ${Math.round((endedAt - handOff) / 60_000)} min after its hand-off`,
      );
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
    lost.length === 0 && late.length === 0,
    lost.length || late.length
      ? [
          lost.length ? `silently lost: ${lost.slice(0, 3).join('; ')}` : '',
          late.length ? `past the bound (${bound / 60_000} min): ${late.slice(0, 3).join('; ')}` : '',
        ]
          .filter(Boolean)
          .join(' / ')
      : `${seen.size} delivered occurrences: each succeeded or left a problem record (${l.deadLetters.length} dead letters), history ended at +${Math.round(l.endMs / 60_000)} min`,
  );
}
