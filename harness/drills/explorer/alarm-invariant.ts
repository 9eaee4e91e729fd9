/**
 * The invariant "every problem counted by an alarm": every run record that lands in the problems index
 * maps (problemMetric, the runtime's and the sweeper's one mapping) to a metric the alarm list watches
 * (PROBLEM_METRICS: a per-job alarm each, cdk/constructs/alarms.ts), and that metric was emitted for it:
 * by the run's own `recording` event (before the record's write: a timeout may end the run there) or
 * `finish` event, by an `abandoned-marked` event naming it, or by the sweeper's report
 * of the record it wrote. Conversely no `RunAbandoned` is emitted for a run that recorded `succeeded`.
 */
import { PROBLEM_METRICS, problemMetric, RuntimeMetric } from '../../../lib/core/metrics.js';
import { isProblemRun, type Outcome } from '../../../lib/core/outcomes.js';
import { type Check, check } from '../checks.js';
import type { HistoryOutcome } from './run-history.js';

/** The invariant's name in reports. */
export const PROBLEMS_COUNTED = 'I10 every problem record counted by an alarm';

/** Check {@link PROBLEMS_COUNTED} on one history (the sweeper's part on Lambda-model histories only). */
export function checkProblemsCounted(o: HistoryOutcome): Check {
  const emitted = new Map<string, Set<string>>();
  const emit = (runId: string, metric: string | undefined) => {
    if (!metric) return;
    const set = emitted.get(runId) ?? new Set<string>();
    set.add(metric);
    emitted.set(runId, set);
  };
  for (const e of o.entries) {
    if (e.kind !== 'runtime') continue;
    if (e.event.type === 'finish')
      emit(e.event.runId, problemMetric(e.event.summary.outcome as Outcome, e.event.summary.reason));
    if (e.event.type === 'recording')
      emit(e.event.runId, problemMetric(e.event.outcome as Outcome, e.event.reason));
    if (e.event.type === 'abandoned-marked') emit(e.event.abandonedRunId, RuntimeMetric.RunAbandoned);
  }
  const swept = new Set(
    (o.lambda?.sweepProblems ?? []).map((p) => `${p.job}|${p.slot}|${p.outcome}|${p.reason}`),
  );
  for (const p of o.lambda?.sweepProblems ?? [])
    if (p.outcome === 'abandoned') emit(`${p.job}|${p.slot}|abandoned`, RuntimeMetric.RunAbandoned);
  const bad: string[] = [];
  let problems = 0;
  for (const r of o.records) {
    const outcome = String(r.outcome) as Outcome;
    const reason = r.reason === undefined ? undefined : String(r.reason);
    const runId = String(r.runId);
    const abandonedBySweeper = emitted.get(`${r.job}|${r.slot}|abandoned`)?.has(RuntimeMetric.RunAbandoned);
    if (outcome === 'succeeded') {
      if (emitted.get(runId)?.has(RuntimeMetric.RunAbandoned))
        bad.push(`${runId} recorded succeeded and was counted RunAbandoned`);
      continue;
    }
    if (!isProblemRun(outcome, reason)) continue;
    problems++;
    const metric = problemMetric(outcome, reason);
    if (!metric || !PROBLEM_METRICS.includes(metric)) {
      bad.push(`${runId} ${outcome}/${reason}: no alarm watches ${metric}`);
      continue;
    }
    // The listed model's sweeps report no problems (no sweeper handler publishes them): its records and
    // its abandoned marks (`details.detectedBy` = `sweeper...`) are the Lambda model's to check.
    const detectedBy = String((r.details as { detectedBy?: unknown } | undefined)?.detectedBy ?? '');
    if (!o.lambda && (runId.startsWith('sweeper') || detectedBy.startsWith('sweeper'))) continue;
    const counted =
      emitted.get(runId)?.has(metric) ||
      (outcome === 'abandoned' && abandonedBySweeper) ||
      swept.has(`${r.job}|${r.slot}|${outcome}|${reason}`);
    if (!counted)
      bad.push(`${runId} ${r.job} ${r.slot} ${outcome}/${reason}: recorded, ${metric} never emitted`);
  }
  return check(
    PROBLEMS_COUNTED,
    bad.length === 0,
    bad.length
      ? bad.slice(0, 3).join('; ')
      : `${problems} problem records, each counted by its alarm's metric`,
  );
}
