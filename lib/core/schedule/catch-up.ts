import { Reason } from '../outcomes.js';
import { compareSlots } from './enumerate.js';
import type { Slot } from './slot.js';

/** Catch-up policy for missed slots: none, only the most recent, or all (capped per sweep). */
export type CatchUpMode = 'none' | 'latest' | 'all';

/** Why the sweeper did not re-trigger a missing slot. */
export const CatchUpSkipReason = {
  /** More missing slots than `maxSlotsPerSweep`; a later sweep may take it. */
  CatchUpLimit: Reason.CatchUpLimit,
  /** `latest` mode: a newer slot is (or will be) run instead. */
  Superseded: 'superseded',
} as const;
/** Union of {@link CatchUpSkipReason} values. */
export type CatchUpSkipReason = (typeof CatchUpSkipReason)[keyof typeof CatchUpSkipReason];

/** Input of {@link planCatchUp}. */
export interface CatchUpInput {
  /** The job's expected slots in the sweep window (from `enumerateSlots`), any order. */
  readonly expected: readonly Slot[];
  /** Ids of slots that already succeeded (lease done set ∪ succeeded run records). */
  readonly succeededIds: ReadonlySet<string>;
  readonly mode: CatchUpMode;
  /** At most this many missed (non-shifted) slots are triggered per sweep; must be ≥ 1. */
  readonly maxSlotsPerSweep: number;
  /**
   * The job's catch-up floor, epoch ms ({@link catchUpFloorMs}): a missing slot before it is never
   * triggered, shifted or not — it is listed in `beforeStart`. @default none
   */
  readonly floorMs?: number;
}

/** What one sweep does for one job. */
export interface CatchUpPlan {
  /** Slots to invoke now with trigger `catch-up`, oldest first. */
  readonly trigger: readonly Slot[];
  /** Missing slots deliberately not invoked, each to be recorded with its reason. */
  readonly skipped: readonly { readonly slot: Slot; readonly reason: CatchUpSkipReason }[];
  /** Missing slots left alone because the mode is `none` (log them; no run record). */
  readonly ignored: readonly Slot[];
  /** Missing slots before the job's catch-up floor: not this job's to run (log them; no run record). */
  readonly beforeStart: readonly Slot[];
}

/** The reason the sweeper logs for a slot before the job's catch-up floor. */
export const BEFORE_START = 'before-start';

/**
 * The earliest instant a job's catch-up may reach, epoch ms: its declared `catchUp.sinceMs` (the first
 * instant the job owns: what came before may have been paid by another scheduler, or by this job under
 * another identity), else `undefined` (no floor: the whole window).
 * @example catchUpFloorMs({ sinceMs: Date.parse('2026-11-04T14:00:00Z') }); // 1793800800000
 */
export function catchUpFloorMs(catchUp: { readonly sinceMs?: number } | undefined): number | undefined {
  return catchUp?.sinceMs;
}

/**
 * The operator API's option that lets an operator run a slot before the job's start, having checked it
 * was not paid (the CLI's `--before-start`).
 */
export const BEFORE_START_OPTION = 'beforeStart';

/** Why an operator's manual run (`trigger`, `backfill`) of a slot is refused: the slot is before the job's start. */
export interface BeforeStartRefusal {
  /** The first refused slot's id. */
  readonly slotId: string;
  /** How many of the requested slots are before the job's start. */
  readonly count: number;
  /** The job's start, epoch ms ({@link catchUpFloorMs}). */
  readonly sinceMs: number;
  /** The refusal as one sentence, naming the slot, `catchUp.since` and the override flag. */
  readonly message: string;
}

/**
 * Whether an operator may run these slots by hand (pure): a slot before the job's start
 * ({@link catchUpFloorMs}, the declared `catchUp.since`) may have been paid by the scheduler this job
 * replaced (or by the job under another identity), so a manual run of it is refused unless the operator,
 * having checked, passes {@link BEFORE_START_OPTION} (`allowBeforeStart`). The same rule as the sweeper's
 * `beforeStart` in {@link planCatchUp}: `scheduledTimeMs < sinceMs`.
 * @param catchUp the job's `catchUp` (no `sinceMs`: no floor, never refused).
 * @param slots the slots the operator asked for, any order.
 * @param options `allowBeforeStart`: the operator passed {@link BEFORE_START_OPTION}. @default false
 * @returns `undefined` when every slot may run, else the refusal (nothing may be invoked).
 * @example
 * beforeStartRefusal({ sinceMs: Date.parse('2026-01-06T00:00:00Z') },
 *   [{ id: '2026-01-05T00:00:00Z', scheduledTimeMs: Date.parse('2026-01-05T00:00:00Z') }]);
 * // { slotId: '2026-01-05T00:00:00Z', count: 1, sinceMs: 1767657600000, message: 'slot 2026-01-05T00:00:00Z is before ...' }
 */
export function beforeStartRefusal(
  catchUp: { readonly sinceMs?: number } | undefined,
  slots: readonly Pick<Slot, 'id' | 'scheduledTimeMs'>[],
  { allowBeforeStart = false }: { readonly allowBeforeStart?: boolean } = {},
): BeforeStartRefusal | undefined {
  const sinceMs = catchUpFloorMs(catchUp);
  if (sinceMs === undefined || allowBeforeStart) return undefined;
  const before = slots
    .filter((s) => s.scheduledTimeMs < sinceMs)
    .sort((a, b) => a.scheduledTimeMs - b.scheduledTimeMs);
  const first = before[0];
  if (!first) return undefined;
  const since = `${new Date(sinceMs).toISOString().slice(0, 19)}Z`;
  const others = before.length > 1 ? ` (and ${before.length - 1} more slot(s) before it)` : '';
  return {
    slotId: first.id,
    count: before.length,
    sinceMs,
    message:
      `slot ${first.id}${others} is before the job's start (catchUp.since ${since}): it may have been paid by the scheduler this job replaced; ` +
      `nothing invoked; check it was not paid, then pass \`${BEFORE_START_OPTION}: true\` to run it`,
  };
}

/**
 * Decide which missing slots a sweep re-triggers (pure).
 * - Slots before `floorMs` (the job's deployed start or declared `since`) are `beforeStart`, never triggered.
 * - Shifted slots (`dstGap: 'shift'`, the local time fell in a DST gap) are the schedule's own
 *   runs that Scheduler can never deliver: always triggered, whatever the mode, outside the cap.
 * - `none`: other missing slots are `ignored`.
 * - `latest`: only the newest expected slot is triggered if missing; older missing ones are `superseded`.
 * - `all`: missing slots oldest first, at most `maxSlotsPerSweep`; the rest `catch-up-limit`
 *   (oldest first, so later sweeps make progress).
 * @example
 * planCatchUp({ expected, succeededIds: new Set(['2026-03-28T02:30']), mode: 'all', maxSlotsPerSweep: 2 });
 */
export function planCatchUp(input: CatchUpInput): CatchUpPlan {
  const seen = new Set<string>();
  const ordered = [...input.expected].sort(compareSlots).filter((slot) => {
    if (seen.has(slot.id)) return false;
    seen.add(slot.id);
    return true;
  });
  const trigger: Slot[] = [];
  const skipped: { slot: Slot; reason: CatchUpSkipReason }[] = [];
  const ignored: Slot[] = [];
  const beforeStart: Slot[] = [];
  const floorMs = input.floorMs ?? Number.NEGATIVE_INFINITY;
  const regular = ordered.filter((slot) => !slot.shifted && slot.scheduledTimeMs >= floorMs);
  const newestId = regular[regular.length - 1]?.id;
  let budget = Math.max(0, Math.floor(input.maxSlotsPerSweep));
  for (const slot of ordered) {
    if (input.succeededIds.has(slot.id)) continue;
    if (slot.scheduledTimeMs < floorMs) {
      beforeStart.push(slot);
    } else if (slot.shifted) {
      trigger.push(slot);
    } else if (input.mode === 'none') {
      ignored.push(slot);
    } else if (input.mode === 'latest' && slot.id !== newestId) {
      skipped.push({ slot, reason: CatchUpSkipReason.Superseded });
    } else if (budget > 0) {
      trigger.push(slot);
      budget--;
    } else {
      skipped.push({ slot, reason: CatchUpSkipReason.CatchUpLimit });
    }
  }
  return { trigger, skipped, ignored, beforeStart };
}

/**
 * The interval a sweep examines: **(nowMs − windowHours, nowMs − graceMs]**, for `enumerateSlots`.
 * The grace keeps the sweeper away from slots Scheduler and Lambda may still be delivering
 * (Scheduler's 60-second precision, a flexible window, Lambda's async retries).
 * @param nowMs the sweep's clock, epoch ms.
 * @param windowHours how far back to look, hours.
 * @param graceMs how recent a slot may be and still be left alone, ms. @default 600_000 (10 min)
 */
export function sweepWindow(
  nowMs: number,
  windowHours: number,
  graceMs = 600_000,
): { fromMs: number; toMs: number } {
  return { fromMs: nowMs - windowHours * 3_600_000, toMs: nowMs - graceMs };
}
