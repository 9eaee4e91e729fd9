import { InvalidScheduleError } from '../input-errors.js';
import { matchingDates } from './calendar.js';
import { type CronFields, parseCronFields } from './cron-fields.js';

export type { CronFields, DayOfMonthField, DayOfWeekField } from './cron-fields.js';

/** Milliseconds per rate unit. Scheduler's `days` are 24-hour durations, not calendar days. */
const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** A rate unit, always in its plural spelling. */
export type RateUnit = keyof typeof UNIT_MS;

/**
 * A parsed EventBridge Scheduler schedule expression.
 * - `cron`: six fields evaluated in the schedule's IANA zone.
 * - `rate`: a fixed period (`periodMs`) counted from the schedule's start (creation) instant.
 * - `at`: one local date-time (`yyyy-mm-ddThh:mm:ss`) in the schedule's zone.
 */
export type ScheduleExpression =
  | { readonly kind: 'cron'; readonly expression: string; readonly fields: CronFields }
  | {
      readonly kind: 'rate';
      readonly expression: string;
      readonly value: number;
      readonly unit: RateUnit;
      readonly periodMs: number;
    }
  | { readonly kind: 'at'; readonly expression: string; readonly localDateTime: string };

const WRAPPED = /^(cron|rate|at)\((.*)\)$/s;
const RATE = /^(\d+) ([a-z]+)$/;
const AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const SINGULAR = { minute: 'minutes', hour: 'hours', day: 'days' } as const;

function parseRate(expression: string, body: string): ScheduleExpression {
  const match = RATE.exec(body.trim());
  if (!match)
    throw new InvalidScheduleError(expression, 'rate', 'expected rate(value unit), e.g. rate(5 minutes)');
  const [, valueText = '', unitText = ''] = match;
  if (!/^[1-9]\d{0,8}$/.test(valueText)) {
    throw new InvalidScheduleError(
      expression,
      'rate value',
      `${valueText} must be a whole number from 1 to 999999999`,
    );
  }
  const value = Number(valueText);
  let unit: RateUnit;
  if (unitText in SINGULAR) {
    if (value !== 1) {
      throw new InvalidScheduleError(
        expression,
        'rate unit',
        `use the plural "${SINGULAR[unitText as keyof typeof SINGULAR]}" for ${value}`,
      );
    }
    unit = SINGULAR[unitText as keyof typeof SINGULAR];
  } else if (unitText in UNIT_MS) {
    if (value === 1) {
      throw new InvalidScheduleError(
        expression,
        'rate unit',
        `use the singular "${unitText.slice(0, -1)}" for 1`,
      );
    }
    unit = unitText as RateUnit;
  } else {
    throw new InvalidScheduleError(
      expression,
      'rate unit',
      `"${unitText}" is not minute(s), hour(s) or day(s)`,
    );
  }
  return { kind: 'rate', expression, value, unit, periodMs: value * UNIT_MS[unit] };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseAt(expression: string, body: string): ScheduleExpression {
  const match = AT.exec(body);
  if (!match) throw new InvalidScheduleError(expression, 'at', 'expected at(yyyy-mm-ddThh:mm:ss)');
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new InvalidScheduleError(expression, 'at date', `${body.slice(0, 10)} is not a calendar date`);
  }
  if (hour > 23 || minute > 59 || second > 59) {
    throw new InvalidScheduleError(expression, 'at time', `${body.slice(11)} is not a time of day`);
  }
  return { kind: 'at', expression, localDateTime: body };
}

/** The years a cron's year field can name (Scheduler: 1970-2199). */
const CRON_YEARS = { first: 1970, last: 2199 } as const;

/**
 * Parse a cron's fields and refuse one that matches no calendar date at all (`cron(0 0 30 2 ? *)`,
 * `cron(0 0 31 4,6,9,11 ? *)`): Scheduler accepts it and never invokes, so the job and its
 * "no successful run" alarm would stay silent forever. Bounded: excluded years/months are jumped over.
 */
function firesSometime(expression: string, body: string): CronFields {
  const fields = parseCronFields(expression, body);
  const dates = matchingDates(
    fields,
    { year: CRON_YEARS.first, month: 1, day: 1 },
    { year: CRON_YEARS.last, month: 12, day: 31 },
  );
  if (dates.next().done) {
    throw new InvalidScheduleError(
      expression,
      'fields',
      `no date from ${CRON_YEARS.first} to ${CRON_YEARS.last} matches day-of-month, month, day-of-week and year together: the schedule would never fire`,
    );
  }
  return fields;
}

/**
 * Parse and validate an EventBridge Scheduler expression, rejecting what Scheduler rejects.
 *
 * Accepted: `cron(minutes hours day-of-month month day-of-week year)` with `, - * / ? L W #`,
 * names JAN–DEC and SUN–SAT (day-of-week 1 = SUN … 7 = SAT), exactly one day field `?`;
 * `rate(1 minute|hour|day)` and `rate(n minutes|hours|days)` for n ≥ 2; `at(yyyy-mm-ddThh:mm:ss)`.
 * Stricter than Scheduler where it is undocumented: backwards ranges (`FRI-MON`) are rejected; so is a
 * cron that matches no date at all (Scheduler accepts it and never fires).
 * @throws InvalidScheduleError naming the part (`fields`, `minutes`, `day-of-week`, `rate unit`, `at date`, …).
 * @example
 * parseScheduleExpression('cron(30 2 * * ? *)'); // { kind: 'cron', fields: { minutes: [30], hours: [2], … } }
 * parseScheduleExpression('rate(5 minutes)').periodMs; // 300000
 */
export function parseScheduleExpression(expression: string): ScheduleExpression {
  if (typeof expression !== 'string') {
    throw new InvalidScheduleError(String(expression), 'expression', 'must be a string');
  }
  const match = WRAPPED.exec(expression);
  if (!match) {
    throw new InvalidScheduleError(expression, 'expression', 'expected cron(...), rate(...) or at(...)');
  }
  const [, kind, body = ''] = match;
  if (kind === 'cron') return { kind: 'cron', expression, fields: firesSometime(expression, body) };
  if (kind === 'rate') return parseRate(expression, body);
  return parseAt(expression, body);
}
