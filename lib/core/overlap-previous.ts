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
