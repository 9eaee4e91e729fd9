import { InvalidArgumentError } from '../input-errors.js';
import { DAY_MS, formatNaiveDate, formatNaiveMinute, MINUTE_MS, parseNaive } from './calendar.js';
import { fireInstant } from './dst-gap.js';
import type { ScheduleExpression } from './expression.js';
import { ianaZone, toNaive } from './zone.js';

/** Which local date is a slot's business date (`JobDefinition.businessDate`). */
export type BusinessDateRule = 'slot-date' | 'previous-day';

/**
 * One scheduled occurrence of a job (docs/design.md "Time").
 * @example
 * { id: '2026-03-29T02:30', scheduledTimeMs: Date.UTC(2026, 2, 29, 1), localTime: '2026-03-29T02:30',
 *   businessDate: '2026-03-29', shifted: true }
 */
export interface Slot {
  /**
   * Slot identity: for cron the local wall time `yyyy-MM-ddTHH:mm` in the job's zone (both
   * instants of a repeated local time are one slot); for rate/at the UTC instant `yyyy-MM-ddTHH:mm:ssZ`.
   */
  readonly id: string;
  /** When the slot fires (or fired), epoch ms: `<aws.scheduler.scheduled-time>`, or the gap end when `shifted`. */
  readonly scheduledTimeMs: number;
  /** The slot's nominal local wall time `yyyy-MM-ddTHH:mm` in the job's zone (nonexistent when `shifted`). */
  readonly localTime: string;
  /** Business date `yyyy-MM-dd`: the local date of `localTime`, or the day before for `previous-day`. */
  readonly businessDate: string;
  /** Set when the nominal local time does not exist (DST gap) and the slot runs at the gap's end instead. */
  readonly shifted?: true;
}

function businessDateOf(naiveLocal: number, rule: BusinessDateRule): string {
  return formatNaiveDate(rule === 'previous-day' ? naiveLocal - DAY_MS : naiveLocal);
}

/**
 * Slot id for an instant of a rate/at schedule: `yyyy-MM-ddTHH:mm:00Z`, on Scheduler's one-minute
 * grid (Scheduler invokes with 60-second precision, so two instants in one minute are one occurrence).
 */
export function instantSlotId(instantMs: number): string {
  return `${new Date(Math.floor(instantMs / MINUTE_MS) * MINUTE_MS).toISOString().slice(0, 17)}00Z`;
}

/**
 * The slot an instant belongs to — what the runtime calls with `<aws.scheduler.scheduled-time>`.
 * For cron the id is the local wall time, so a delivery carrying the second instant of a repeated
 * local time (2026-10-25T01:30Z in Berlin) is the same slot as the first (00:30Z).
 * @param scheduledTimeMs the scheduled time, epoch ms (not the invocation time).
 * @param timeZone the job's IANA zone.
 * @throws InvalidJobDefinitionError for an unknown zone; InvalidArgumentError for a non-finite time.
 * @example
 * slotFromScheduledTime(Date.UTC(2026, 9, 25, 1, 30), parseScheduleExpression('cron(30 2 * * ? *)'),
 *   'Europe/Berlin', 'slot-date').id; // '2026-10-25T02:30'
 */
export function slotFromScheduledTime(
  scheduledTimeMs: number,
  expr: ScheduleExpression,
  timeZone: string,
  businessDate: BusinessDateRule,
): Slot {
  if (!Number.isFinite(scheduledTimeMs)) {
    throw new InvalidArgumentError(
      'scheduledTimeMs',
      scheduledTimeMs,
      'must be a finite epoch-millisecond number',
    );
  }
  const naive = toNaive(ianaZone(timeZone), scheduledTimeMs);
  // One ISO text of the local time gives its minute and (slot-date) its date; in UTC, on the minute
  // grid, also the instant's id.
  const iso = new Date(naive).toISOString();
  const localTime = iso.slice(0, 16);
  const id =
    expr.kind === 'cron'
      ? localTime
      : naive === scheduledTimeMs && scheduledTimeMs % MINUTE_MS === 0
        ? `${iso.slice(0, 17)}00Z`
        : instantSlotId(scheduledTimeMs);
  return {
    id,
    scheduledTimeMs,
    localTime,
    businessDate: businessDate === 'slot-date' ? iso.slice(0, 10) : businessDateOf(naive, businessDate),
  };
}

/**
 * The slot of a nominal local wall time, which may not exist: a repeated time resolves to its
 * first instant; a nonexistent one to the first valid instant after the gap, flagged `shifted`.
 * The sweeper uses this to run a shifted cron slot under its own (nominal) identity.
 * @param localTime `yyyy-MM-ddTHH:mm` (`:ss` allowed, for at()) in the job's zone.
 * @throws InvalidArgumentError if `localTime` is malformed; InvalidJobDefinitionError for an unknown zone.
 * @example
 * slotFromLocalTime('2026-03-29T02:30', cron, 'Europe/Berlin', 'slot-date');
 * // { id: '2026-03-29T02:30', scheduledTimeMs: Date.UTC(2026, 2, 29, 1, 0), shifted: true, … }
 */
export function slotFromLocalTime(
  localTime: string,
  expr: ScheduleExpression,
  timeZone: string,
  businessDate: BusinessDateRule,
): Slot {
  const naive = parseNaive(localTime);
  if (naive === undefined) {
    throw new InvalidArgumentError(
      'localTime',
      localTime,
      'must be a real local date-time yyyy-MM-ddTHH:mm[:ss]',
    );
  }
  // 'shift' always yields an instant: the sweeper runs a shifted slot under its nominal identity.
  const fire = fireInstant(ianaZone(timeZone), naive, 'shift') as { instantMs: number; shifted: boolean };
  return makeSlot(expr, naive, fire.instantMs, businessDate, fire.shifted);
}

/**
 * Build a slot from a nominal naive local time and the instant it fires at (used by enumeration).
 * @param naive the nominal local wall time, naive ms (see `calendar.ts`).
 * @param instantMs when it fires, epoch ms (the gap end when `shifted`).
 */
export function makeSlot(
  expr: ScheduleExpression,
  naive: number,
  instantMs: number,
  businessDate: BusinessDateRule,
  shifted = false,
): Slot {
  const localTime = formatNaiveMinute(naive);
  return {
    id: expr.kind === 'cron' ? localTime : instantSlotId(instantMs),
    scheduledTimeMs: instantMs,
    localTime,
    businessDate: businessDateOf(naive, businessDate),
    ...(shifted ? { shifted: true as const } : {}),
  };
}
