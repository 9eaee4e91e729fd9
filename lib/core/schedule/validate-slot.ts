/**
 * Is an invocation's slot one the job's schedule really has? (Scheduler only ever delivers real
 * occurrences; a hand-written, mistyped or far-future time must not mint a slot id of its own,
 * or one business date could run under two ids, and a far-future id would squat the lease's
 * bounded done set.) Pure: `nowMs` is passed in.
 */
import { InvalidEventError } from '../input-errors.js';
import { matchesCron, parseNaive } from './calendar.js';
import type { ScheduleExpression } from './expression.js';
import type { Slot } from './slot.js';

/** How far ahead of the caller's clock a slot may be, ms (clock skew between invoker and runner). */
export const MAX_SLOT_AHEAD_MS = 5 * 60_000;

/** Earliest slot year Scheduler's cron year field accepts; an event's `scheduledTime` before it is refused. */
export const MIN_SLOT_YEAR = 1970;

/**
 * Check a slot against the job's schedule and the clock.
 * @param scheduledTimeMs the event's `scheduledTime`, epoch ms.
 * @param nominal true when the event named the slot by its local time (catch-up / manual `slot` field).
 * @throws InvalidEventError naming `scheduledTime` (future, before 1970, not an occurrence of the cron,
 *   not the at() instant) or `slot` (not an occurrence, or its instant contradicts `scheduledTime`).
 */
export function validateSlot(
  expr: ScheduleExpression,
  slot: Slot,
  scheduledTimeMs: number,
  nominal: boolean,
  nowMs: number,
): void {
  const field = nominal ? 'slot' : 'scheduledTime';
  if (scheduledTimeMs > nowMs + MAX_SLOT_AHEAD_MS) {
    throw new InvalidEventError(
      'scheduledTime',
      new Date(scheduledTimeMs).toISOString(),
      `is in the future (now ${new Date(nowMs).toISOString()}): a slot runs at or after its time`,
    );
  }
  if (new Date(scheduledTimeMs).getUTCFullYear() < MIN_SLOT_YEAR) {
    throw new InvalidEventError(
      'scheduledTime',
      new Date(scheduledTimeMs).toISOString(),
      `is before ${MIN_SLOT_YEAR}`,
    );
  }
  if (expr.kind === 'cron') {
    const naive = parseNaive(slot.localTime);
    if (naive === undefined || !matchesCron(expr.fields, naive)) {
      throw new InvalidEventError(
        field,
        shownValue(nominal, slot, scheduledTimeMs),
        `is not an occurrence of ${expr.expression} (local ${slot.localTime})`,
      );
    }
    if (nominal && slot.scheduledTimeMs !== scheduledTimeMs) {
      throw new InvalidEventError(
        'slot',
        slot.localTime,
        `runs at ${new Date(slot.scheduledTimeMs).toISOString()}, not at scheduledTime ${new Date(scheduledTimeMs).toISOString()}`,
      );
    }
  } else if (expr.kind === 'at' && slot.localTime !== expr.localDateTime.slice(0, 16)) {
    throw new InvalidEventError(
      field,
      shownValue(nominal, slot, scheduledTimeMs),
      `is not the one-time slot of ${expr.expression}`,
    );
  }
  // rate(): occurrences depend on the schedule's StartDate, which the function does not know.
}

/**
 * The event's value a refusal shows: the nominal local time, or the scheduled instant. Built only for
 * a refusal, never on the path of a valid slot.
 */
function shownValue(nominal: boolean, slot: Slot, scheduledTimeMs: number): string {
  return nominal ? slot.localTime : new Date(scheduledTimeMs).toISOString();
}
