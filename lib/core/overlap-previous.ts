/**
 * The previous occurrence of a slot (overlap `after-previous`, lib/core/overlap.ts): the slot its
 * claim waits for. Pure: searched back from the slot over growing windows of the schedule.
 */
import type { JobDefinition } from './job-definition.js';
import { enumerateSlots } from './schedule/enumerate.js';
import type { ScheduleExpression } from './schedule/expression.js';
import type { Slot } from './schedule/slot.js';

const HOUR_MS = 3_600_000;
/** Windows searched back for the previous occurrence, ms: an hour, a day, 32 days, 400 days. */
const WINDOWS_MS = [HOUR_MS, 24 * HOUR_MS, 32 * 24 * HOUR_MS, 400 * 24 * HOUR_MS];

/**
 * The occurrence of the job's schedule just before `slot`, or `undefined` when there is none the job
 * owns: none within 400 days, or it lies before `catchUp.sinceMs` (the job's first instant).
 * @example previousSlot(def, parseScheduleExpression('cron(0 * * * ? *)'), slotAt10).id; // '…T09:00'
 */
export function previousSlot(
  definition: Pick<JobDefinition, 'timeZone' | 'businessDate' | 'dstGap' | 'rateAnchorMs' | 'catchUp'>,
  expression: ScheduleExpression,
  slot: Slot,
): Slot | undefined {
  const source = {
    schedule: expression,
    timeZone: definition.timeZone,
    businessDate: definition.businessDate,
    ...(definition.dstGap !== undefined && { dstGap: definition.dstGap }),
    ...(expression.kind === 'rate' && { startMs: definition.rateAnchorMs ?? 0 }),
  };
  for (const windowMs of WINDOWS_MS) {
    const before = enumerateSlots(source, slot.scheduledTimeMs - windowMs, slot.scheduledTimeMs).filter(
      (s) => s.id !== slot.id && (s.scheduledTimeMs < slot.scheduledTimeMs || s.id < slot.id),
    );
    const prev = before[before.length - 1];
    if (prev === undefined) continue;
    const sinceMs = definition.catchUp?.sinceMs;
    return sinceMs !== undefined && prev.scheduledTimeMs < sinceMs ? undefined : prev;
  }
  return undefined;
}

/** What an `after-previous` claim of a slot waits for. */
export interface Predecessor {
  /** The previous occurrence's slot id; none for the job's first slot (no occurrence it owns before). */
  readonly id?: string;
  /**
   * The job declares its first instant (`catchUp.since`): the chain starts at its first slot, so
   * "nothing succeeded yet" does not let a later slot claim (otherwise the chain starts at the job's
   * first success, and a slot before that success never runs after it).
   */
  readonly fromFirstSlot: boolean;
}

/**
 * What an `after-previous` claim of `slot` waits for: its previous occurrence ({@link previousSlot};
 * none when `slot` is the job's first), and where the job's chain starts.
 */
export function predecessorOf(
  definition: Parameters<typeof previousSlot>[0],
  expression: ScheduleExpression,
  slot: Slot,
): Predecessor {
  const prev = previousSlot(definition, expression, slot);
  const fromFirstSlot = definition.catchUp?.sinceMs !== undefined;
  return prev === undefined ? { fromFirstSlot } : { id: prev.id, fromFirstSlot };
}
