import { InvalidJobDefinitionError } from '../input-errors.js';
import { validateTimeZone } from '../job-definition.js';
import { MINUTE_MS, matchingDates, naiveDate, naiveMs, parseNaive } from './calendar.js';
import type { CatchUpMode } from './catch-up.js';
import { fireInstant } from './dst-gap.js';
import { parseScheduleExpression, type ScheduleExpression } from './expression.js';
import { ianaZone } from './zone.js';

const HOUR_MS = 3_600_000;
const CATCH_UP_MODES: readonly CatchUpMode[] = ['none', 'latest', 'all'];

/**
 * Validate a job's schedule and zone at definition time.
 * @param nowMs the definition-time clock, epoch ms; an `at()` not after it is rejected (a new
 *   one-time job in the past would never run). Omit to skip that check.
 * @returns the parsed expression.
 * @throws InvalidScheduleError (expression parts), InvalidJobDefinitionError (`timeZone`, or `schedule` for a past at()).
 * @example
 * validateSchedule({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' }, nowMs);
 */
export function validateSchedule(
  job: { schedule: string; timeZone: string },
  nowMs?: number,
): ScheduleExpression {
  const expr = parseScheduleExpression(job.schedule);
  validateTimeZone(job.timeZone);
  if (expr.kind === 'at' && nowMs !== undefined) {
    const naive = parseNaive(expr.localDateTime) ?? Number.NaN;
    const fire = fireInstant(ianaZone(job.timeZone), naive, 'shift');
    if ((fire?.instantMs ?? Number.NaN) <= nowMs) {
      throw new InvalidJobDefinitionError('schedule', job.schedule, `at() is in the past in ${job.timeZone}`);
    }
  }
  return expr;
}

/**
 * The longest interval between consecutive nominal occurrences (DST ignored), in ms:
 * `periodMs` for rate; for cron, measured over the nine calendar years from the UTC date of
 * `fromMs` (enough for leap days and month lengths); `undefined` for at() or a cron with fewer
 * than two occurrences in that span.
 * @example schedulePeriodMs(parseScheduleExpression('cron(0 12 ? * SUN *)'), nowMs); // 604800000
 */
export function schedulePeriodMs(expr: ScheduleExpression, fromMs: number): number | undefined {
  if (expr.kind === 'rate') return expr.periodMs;
  if (expr.kind === 'at') return undefined;
  const times = expr.fields.hours.flatMap((h) => expr.fields.minutes.map((m) => h * HOUR_MS + m * MINUTE_MS));
  const first = times[0] ?? 0;
  const last = times[times.length - 1] ?? 0;
  let maxGap = 0;
  for (let i = 1; i < times.length; i++) maxGap = Math.max(maxGap, (times[i] ?? 0) - (times[i - 1] ?? 0));
  const from = naiveDate(fromMs);
  const to = { year: from.year + 9, month: from.month, day: Math.min(from.day, 28) };
  let previousDay: number | undefined;
  let days = 0;
  for (const date of matchingDates(expr.fields, from, to)) {
    const day = naiveMs(date);
    if (previousDay !== undefined) maxGap = Math.max(maxGap, day - previousDay + first - last);
    previousDay = day;
    days++;
  }
  if (days === 0 || (days === 1 && times.length < 2)) return undefined;
  return maxGap;
}

/**
 * Validate a job's catch-up options against its schedule and run-record retention.
 * @param catchUp the options (`mode`, `windowHours`, `maxSlotsPerSweep`).
 * @param job the parsed `schedule` (from {@link validateSchedule}) and `runRetentionDays`.
 * @param nowMs definition-time clock, epoch ms (where a cron's period is measured from).
 * @throws InvalidJobDefinitionError naming `catchUp.mode`, `catchUp.maxSlotsPerSweep` (≤ 0 or not an
 *   integer) or `catchUp.windowHours` (≤ 0, longer than run-record retention, or shorter than the
 *   schedule's period, which would let a missed slot fall out of the window unseen).
 */
export function validateCatchUp(
  catchUp: { mode: CatchUpMode; windowHours: number; maxSlotsPerSweep: number },
  job: { schedule: ScheduleExpression; runRetentionDays: number },
  nowMs: number,
): void {
  if (!CATCH_UP_MODES.includes(catchUp.mode)) {
    throw new InvalidJobDefinitionError(
      'catchUp.mode',
      catchUp.mode,
      `must be one of ${CATCH_UP_MODES.join(', ')}`,
    );
  }
  const cap = catchUp.maxSlotsPerSweep;
  if (!Number.isInteger(cap) || cap <= 0) {
    throw new InvalidJobDefinitionError('catchUp.maxSlotsPerSweep', cap, 'must be an integer ≥ 1');
  }
  const hours = catchUp.windowHours;
  if (typeof hours !== 'number' || !Number.isFinite(hours) || hours <= 0) {
    throw new InvalidJobDefinitionError('catchUp.windowHours', hours, 'must be a positive number of hours');
  }
  if (hours > job.runRetentionDays * 24) {
    throw new InvalidJobDefinitionError(
      'catchUp.windowHours',
      hours,
      `is longer than run-record retention (${job.runRetentionDays} days = ${job.runRetentionDays * 24} h): ` +
        'reaped successes would look missed and run again',
    );
  }
  const periodMs = schedulePeriodMs(job.schedule, nowMs);
  if (catchUp.mode !== 'none' && periodMs !== undefined && hours * HOUR_MS < periodMs) {
    throw new InvalidJobDefinitionError(
      'catchUp.windowHours',
      hours,
      `is shorter than the schedule's period (${periodMs / HOUR_MS} h): a missed slot could leave the window unseen`,
    );
  }
}
