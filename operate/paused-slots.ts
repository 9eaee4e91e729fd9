/**
 * The occurrences that fell in a pause, and what the job's catch-up rule (none / latest / all) will
 * do with each once the job is resumed: the same plan the sweeper makes (lib/core/schedule/catch-up.ts),
 * so `resume` tells the operator in advance what will run.
 */
import { Outcome, Reason } from '../lib/core/outcomes.js';
import type { RunStore } from '../lib/core/ports.js';
import { planCatchUp, sweepWindow } from '../lib/core/schedule/catch-up.js';
import { enumerateSlots } from '../lib/core/schedule/enumerate.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { DEFAULT_CATCH_UP } from '../lib/runtime/sweeper.js';
import { iso } from './input.js';

/** One occurrence in the pause. */
export interface PausedSlot {
  readonly slot: string;
  readonly scheduledTime: string;
  /** Deliveries of it recorded `skipped / paused`. */
  readonly pausedSkips: number;
  /**
   * What catch-up does: `runs at the next sweep`, `superseded` (latest: a newer one runs),
   * `not caught up` (none), `later sweep` (all: over maxSlotsPerSweep), `outside the catch-up window`.
   */
  readonly catchUp: string;
}

/**
 * The job's occurrences in [`fromMs`, `toMs`] that did not succeed, with the catch-up plan for them.
 * One run-record query. @throws StoreError
 */
export async function pausedSlots(
  handler: JobHandler,
  runs: Pick<RunStore, 'slotRecords'>,
  range: { fromMs: number; toMs: number; nowMs: number },
): Promise<PausedSlot[]> {
  const def = handler.job;
  const source = { ...def, schedule: handler.expression, startMs: def.rateAnchorMs ?? 0 };
  const inPause = enumerateSlots(source, range.fromMs, range.toMs);
  const first = inPause[0];
  const last = inPause[inPause.length - 1];
  if (!first || !last) return [];
  const records = await runs.slotRecords(def.name, first.id, last.id);
  const succeeded = new Set(records.filter((r) => r.outcome === Outcome.Succeeded).map((r) => r.slot));
  const catchUp = def.catchUp ?? DEFAULT_CATCH_UP;
  const window = sweepWindow(range.nowMs, catchUp.windowHours, 0);
  const expected = enumerateSlots(source, window.fromMs, range.nowMs);
  const plan = planCatchUp({
    expected,
    succeededIds: new Set([
      ...succeeded,
      ...expected.filter((s) => s.scheduledTimeMs < range.fromMs).map((s) => s.id),
    ]),
    mode: catchUp.mode,
    maxSlotsPerSweep: catchUp.maxSlotsPerSweep,
  });
  const action = new Map<string, string>();
  for (const s of plan.trigger) action.set(s.id, 'runs at the next sweep');
  for (const { slot, reason } of plan.skipped)
    action.set(
      slot.id,
      reason === 'superseded' ? 'superseded (latest runs instead)' : 'later sweep (catch-up limit)',
    );
  for (const s of plan.ignored) action.set(s.id, 'not caught up (catchUp none)');
  return inPause
    .filter((s) => !succeeded.has(s.id))
    .map((s) => ({
      slot: s.id,
      scheduledTime: iso(s.scheduledTimeMs),
      pausedSkips: records.filter((r) => r.slot === s.id && r.reason === Reason.Paused).length,
      catchUp: action.get(s.id) ?? 'outside the catch-up window',
    }));
}
