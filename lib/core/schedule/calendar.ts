import type { CronFields } from './cron-fields.js';

/**
 * Wall-clock arithmetic without a zone. A "naive" time is a local wall time encoded as if it
 * were UTC (`Date.UTC(year, month - 1, day, hour, minute)`), so adding days or formatting never
 * touches the process time zone or DST. Only `zone.ts` turns naive times into instants.
 */

/** A local calendar date. `month` is 1–12. */
export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** One day, in milliseconds. */
export const DAY_MS = 86_400_000;
/** One minute, in milliseconds. */
export const MINUTE_MS = 60_000;

/** Days of each month of a common year, January first. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days in a month (1–12) of a proleptic Gregorian year (arithmetic: no Date is made). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return MONTH_DAYS[month - 1] ?? new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The decimal number written by the `n` characters of `text` at `at`; NaN unless all are digits. */
export function digitsAt(text: string, at: number, n: number): number {
  if (text.length < at + n) return Number.NaN;
  let value = 0;
  for (let i = at; i < at + n; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The minute `text` starts with, `yyyy-MM-ddTHH:mm` read as naive wall time: minutes from
 * 1970-01-01T00:00 (negative before), or NaN unless those 16 characters are digits and separators at
 * their places and name a real calendar minute (month 1–12, a day of that month, hour ≤ 23, minute ≤ 59;
 * Date.parse would roll `02-30` or `24:00` over). What follows the 16 characters is not read. Reads fixed
 * positions: no regex, no Date object (every run reads its event's time and its slot's done key with it).
 */
export function minuteOfText(text: string): number {
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 // :
  )
    return Number.NaN;
  const y = digitsAt(text, 0, 4);
  const mo = digitsAt(text, 5, 2);
  const d = digitsAt(text, 8, 2);
  const h = digitsAt(text, 11, 2);
  const mi = digitsAt(text, 14, 2);
  if (Number.isNaN(y + mo + d + h + mi)) return Number.NaN;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59) return Number.NaN;
  return daysFromCivil(y, mo, d) * 1440 + h * 60 + mi;
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (negative before), by integer arithmetic: the
 * count `Date.UTC(year, month - 1, day) / DAY_MS` gives for years 100 and later, and for every year
 * 0–99 too (which `Date.UTC` reads as 19xx). Years counted in 400-year eras of 146 097 days, each
 * year starting in March so the leap day ends it (H. Hinnant, "chrono-Compatible Low-Level Date
 * Algorithms", `days_from_civil`).
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Naive milliseconds of a local date at `hour:minute` (wall time encoded as UTC). */
export function naiveMs(date: LocalDate, hour = 0, minute = 0): number {
  return Date.UTC(date.year, date.month - 1, date.day, hour, minute);
}

/** The local date a naive time falls on. */
export function naiveDate(naive: number): LocalDate {
  const d = new Date(naive);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `yyyy-MM-ddTHH:mm` of a naive time. */
export function formatNaiveMinute(naive: number): string {
  return new Date(naive).toISOString().slice(0, 16);
}

/** `yyyy-MM-dd` of a naive time. */
export function formatNaiveDate(naive: number): string {
  return new Date(naive).toISOString().slice(0, 10);
}

/** Parse `yyyy-MM-ddTHH:mm` (optionally `:ss`) into naive milliseconds; `undefined` if malformed or not a real date. */
export function parseNaive(text: string): number | undefined {
  const seconds =
    text.length === 16
      ? 0
      : text.length === 19 && text.charCodeAt(16) === 58
        ? digitsAt(text, 17, 2)
        : Number.NaN;
  const minute = minuteOfText(text);
  if (Number.isNaN(minute) || !(seconds <= 59)) return undefined;
  return minute * MINUTE_MS + seconds * 1_000;
}

/** Day of week as Scheduler numbers it: 1 = SUN … 7 = SAT. */
export function schedulerWeekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 1;
}

function isWeekend(weekday: number): boolean {
  return weekday === 1 || weekday === 7;
}

/** The weekday (Mon–Fri) nearest `target` within the same month (Quartz `W`); `undefined` if the month is shorter. */
function nearestWeekday(year: number, month: number, target: number): number | undefined {
  const last = daysInMonth(year, month);
  if (target > last) return undefined;
  const weekday = schedulerWeekday(year, month, target);
  if (weekday === 7) return target === 1 ? 3 : target - 1;
  if (weekday === 1) return target === last ? target - 2 : target + 1;
  return target;
}

/** Whether a local date satisfies the cron's day-of-month and day-of-week fields (not month/year). */
export function matchesDay(fields: CronFields, year: number, month: number, day: number): boolean {
  const last = daysInMonth(year, month);
  const dom = fields.daysOfMonth;
  switch (dom.kind) {
    case 'days':
      return dom.days.includes(day);
    case 'last':
      return day === last;
    case 'last-weekday': {
      let d = last;
      while (isWeekend(schedulerWeekday(year, month, d))) d--;
      return day === d;
    }
    case 'nearest-weekday':
      return nearestWeekday(year, month, dom.day) === day;
    case 'any':
      break;
  }
  const dow = fields.daysOfWeek;
  const weekday = schedulerWeekday(year, month, day);
  switch (dow.kind) {
    case 'days':
      return dow.days.includes(weekday);
    case 'last-of-month':
      return weekday === dow.day && day + 7 > last;
    case 'nth-of-month':
      return weekday === dow.day && Math.ceil(day / 7) === dow.nth;
    case 'any':
      return true;
  }
}

/**
 * The local dates in `[from, to]` (inclusive) that the cron's year, month and day fields allow,
 * ascending. Jumps by field: years and months the cron excludes are never visited day by day.
 */
export function* matchingDates(fields: CronFields, from: LocalDate, to: LocalDate): Generator<LocalDate> {
  const fromKey = naiveMs(from);
  const toKey = naiveMs(to);
  for (const year of fields.years) {
    if (year < from.year) continue;
    if (year > to.year) return;
    for (const month of fields.months) {
      if (Date.UTC(year, month, 1) <= fromKey) continue;
      if (Date.UTC(year, month - 1, 1) > toKey) return;
      const last = daysInMonth(year, month);
      for (let day = 1; day <= last; day++) {
        const key = Date.UTC(year, month - 1, day);
        if (key < fromKey) continue;
        if (key > toKey) return;
        if (matchesDay(fields, year, month, day)) yield { year, month, day };
      }
    }
  }
}

/** Whether a naive local time (minute precision) satisfies every cron field. */
export function matchesCron(fields: CronFields, naive: number): boolean {
  const d = new Date(naive);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  return (
    fields.minutes.includes(d.getUTCMinutes()) &&
    fields.hours.includes(d.getUTCHours()) &&
    fields.years.includes(year) &&
    fields.months.includes(month) &&
    matchesDay(fields, year, month, d.getUTCDate())
  );
}
