/** Expanded cron fields shared by the interim schedule and DST checks. */

/** Expanded cron fields; a day rule is a set, `any` (`?` or `*`) or `special` (L, W, #). */
export interface CronSets {
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[] | 'any' | 'special';
  readonly months: readonly number[];
  readonly daysOfWeek: readonly number[] | 'any' | 'special';
}

/** Whether a calendar day (UTC fields of `day`) matches the cron's day fields; specials count as "maybe". */
export function dayMatches(fields: CronSets, day: Date): boolean {
  if (!fields.months.includes(day.getUTCMonth() + 1)) return false;
  const dom = fields.daysOfMonth;
  const dow = fields.daysOfWeek;
  if (dom !== 'any' && dom !== 'special' && !dom.includes(day.getUTCDate())) return false;
  if (dow !== 'any' && dow !== 'special' && !dow.includes(day.getUTCDay() + 1)) return false;
  // L, W, #: roughly once a month; approximate with the first day of the month.
  if ((dom === 'special' || dow === 'special') && day.getUTCDate() !== 1) return false;
  return true;
}
