/**
 * The sweeper (DESIGN.md "Time": missed-run detection, which Scheduler lacks): for every job, list
 * the expected slots in the recent window, compare them with what succeeded (the lease item's done
 * set and succeeded run records), and re-trigger the missing ones through the normal path with
 * trigger `catch-up`. Every decision lands in a run record (`catch-up-limit`) or a log line; every
 * problem record it writes is in the report's `problems`, which the sweeper handler turns into the
 * metrics the job's alarms count. Each job is swept on its own, in the named steps of `sweepJob`.
 */

import { jobKeyOf } from '../core/job-definition.js';
import { definitionId } from '../core/liveness.js';
import { Outcome, Reason, Trigger } from '../core/outcomes.js';
import { pauseInForce } from '../core/pause.js';
import { sweepOverlap } from './sweep-overlap.js';
import {
  CatchUpInvokeError,
  catchUpMissed,
  catchUpUnfinished,
  endOffSchedule,
  type JobView,
  markDeadHolders,
  readJob,
  type Sweep,
} from './sweep-phases.js';
import type { SweepDeps, SweepReport, SweepTarget } from './sweep-types.js';

export { catchUpPayload } from './sweep-phases.js';
export {
  DEFAULT_CATCH_UP,
  MAX_CATCH_UP_ATTEMPTS,
  OFF_SCHEDULE_RUN_ID,
  type SweepDecision,
  type SweepDeps,
  type SweepProblem,
  type SweepReport,
  type SweepTarget,
} from './sweep-types.js';

/** The run id of the sweeper's `failed / sweep-failed` record of a sweep at `nowMs`. */
export function sweepFailedRunId(nowMs: number): string {
  return `sweeper-failed-${new Date(nowMs).toISOString()}`;
}

/**
 * A job whose sweep failed: record `failed / sweep-failed` under the slot it was catching up (a
 * refused invoke), else under the sweep's UTC minute (`2026-05-01T03:15Z`), with the error; the
 * `SweepFailed` metric counts it even when the record cannot be written (DynamoDB down).
 */
async function recordSweepFailure(s: Sweep, t: SweepTarget, err: unknown): Promise<void> {
  const job = t.definition.name;
  const slot = err instanceof CatchUpInvokeError ? err.slot : undefined;
  const slotId = slot?.id ?? `${new Date(s.nowMs).toISOString().slice(0, 16)}Z`;
  const atMs = slot?.scheduledTimeMs ?? s.nowMs;
  const error = { name: (err as Error)?.name ?? 'Error', message: (err as Error)?.message ?? String(err) };
  s.problem({ job, slot: slotId, outcome: Outcome.Failed, reason: Reason.SweepFailed, error: error.message });
  s.decide({ job, slot: slotId, action: 'failed', reason: `${Reason.SweepFailed}: ${error.message}` });
  try {
    await s.deps.runs.put(
      {
        job: jobKeyOf(t.definition),
        slot: slotId,
        scheduledTime: new Date(atMs).toISOString(),
        businessDate: slotId.slice(0, 10),
        runId: sweepFailedRunId(s.nowMs),
        trigger: Trigger.CatchUp,
        requestedBy: 'sweeper',
        outcome: Outcome.Failed,
        reason: Reason.SweepFailed,
        startedAtMs: s.nowMs,
        finishedAtMs: s.nowMs,
        durationMs: 0,
        error,
        details: { phase: slot ? 'invoke' : 'read-or-record' },
        def: definitionId(t.definition),
      },
      t.definition.runRetentionDays,
    );
  } catch (recordErr) {
    s.deps.log?.({ message: 'sweep failure not recorded', job, error: String(recordErr) });
  }
}

/**
 * Count the job's expected slots and those not done into the report; a job that has run here before
 * (its lease item exists) with a due slot not done is `overdue`: its "no successful run" alarm gets a
 * data point even when nothing ran at all.
 */
function countSlots(s: Sweep, v: JobView): void {
  const missing = v.statuses.filter((st) => !st.done).length;
  s.report.jobs.push({
    job: v.job,
    expected: v.expected.length,
    succeeded: v.expected.length - missing,
    missing,
  });
  if (missing > 0 && v.leases.get(undefined) !== undefined) s.report.overdue.push(v.job);
}

/**
 * A paused job (docs/design.md "Pause") is counted with nothing missing and a `skipped` decision:
 * nothing is triggered (a claim would only record skipped/paused); after resume the missed slots are
 * this job's catch-up rule's, as if Scheduler never delivered them. @returns true when paused.
 */
function skipIfPaused(s: Sweep, v: JobView): boolean {
  const paused = pauseInForce(v.leases.get(undefined), s.nowMs);
  if (!paused) return false;
  s.report.jobs.push({ job: v.job, expected: v.expected.length, succeeded: 0, missing: 0 });
  s.decide({ job: v.job, slot: '*', action: 'skipped', reason: `paused by ${paused.by}: ${paused.note}` });
  return true;
}

/**
 * Sweep one job, step by step (each step is documented in sweep-phases.ts under its number):
 * 1. read its lease items and run records over the window (`readJob`);
 * 2. record the runs of holders that died without releasing `abandoned` (`markDeadHolders`) — a
 *    paused job stops after this step (`skipIfPaused`);
 * 3. count its expected and missing slots into the report (`countSlots`);
 * 4. start what the job's overlap policy starts itself, in slot order (`sweepOverlap`), then
 *    re-trigger the other slots a run claimed but never finished (`catchUpUnfinished`);
 * 5. end runs of slots the schedule no longer has (`endOffSchedule`);
 * 6. re-trigger the slots Scheduler never delivered, by the job's catch-up rule (`catchUpMissed`).
 */
async function sweepJob(s: Sweep, t: SweepTarget, graceMs: number, notBeforeMs: number): Promise<void> {
  const v = await readJob(s, t, graceMs, notBeforeMs);
  await markDeadHolders(s, v);
  if (skipIfPaused(s, v)) return;
  countSlots(s, v);
  const heldBack = await sweepOverlap(s, v);
  await catchUpUnfinished(s, v, heldBack);
  await endOffSchedule(s, v);
  await catchUpMissed(s, v, heldBack);
}

/**
 * Sweep every target once, each job on its own: a job whose sweep fails (a read, a record or a
 * catch-up invoke refused) is recorded `failed / sweep-failed` and the next job proceeds.
 * @param graceMs leave slots younger than this to Scheduler and Lambda's own retries, ms. @default 600_000
 * @param notBeforeMs ignore slots at or before this instant (the emulator's range start), epoch ms. @default none
 * @returns what it found and did, with the problem records it wrote (for metrics: publishSweepMetrics).
 */
export async function sweep(
  deps: SweepDeps,
  targets: readonly SweepTarget[],
  graceMs = 600_000,
  notBeforeMs = Number.NEGATIVE_INFINITY,
): Promise<SweepReport> {
  const nowMs = deps.clock.now();
  const log = deps.log ?? ((l) => console.log(JSON.stringify(l)));
  const report: SweepReport = { nowMs, jobs: [], decisions: [], problems: [], overdue: [] };
  const s: Sweep = {
    deps,
    nowMs,
    report,
    decide: (d) => {
      report.decisions.push(d);
      log({ message: 'sweep decision', ...d });
    },
    problem: (p) => report.problems.push(p),
  };
  for (const t of targets) {
    try {
      await sweepJob(s, t, graceMs, notBeforeMs);
    } catch (err) {
      await recordSweepFailure(s, t, err);
    }
  }
  return report;
}
