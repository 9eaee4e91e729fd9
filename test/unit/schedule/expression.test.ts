import { describe, expect, it } from 'vitest';
import { type CronFields, parseScheduleExpression } from '../../../lib/core/schedule/expression.js';
import { InvalidScheduleError } from '../../../lib/errors.js';

function cron(expression: string): CronFields {
  const parsed = parseScheduleExpression(expression);
  if (parsed.kind !== 'cron') throw new Error(`not a cron: ${expression}`);
  return parsed.fields;
}

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

describe('parseScheduleExpression: cron', () => {
  it.each([
    ['cron(30 2 * * ? *)', 'minutes', [30]],
    ['cron(30 2 * * ? *)', 'hours', [2]],
    ['cron(0/30 * * * ? *)', 'minutes', [0, 30]],
    ['cron(*/15 * * * ? *)', 'minutes', [0, 15, 30, 45]],
    ['cron(1/10 * * * ? *)', 'minutes', [1, 11, 21, 31, 41, 51]],
    ['cron(5-20/5 * * * ? *)', 'minutes', [5, 10, 15, 20]],
    ['cron(0,15,45,15 * * * ? *)', 'minutes', [0, 15, 45]],
    ['cron(0 8-17 ? * MON-FRI *)', 'hours', range(8, 17)],
    ['cron(0 0/6 * * ? *)', 'hours', [0, 6, 12, 18]],
    ['cron(0 10 * JAN,MAR,DEC ? *)', 'months', [1, 3, 12]],
    ['cron(0 10 * jan-mar ? *)', 'months', [1, 2, 3]],
    ['cron(0 10 * 1/4 ? *)', 'months', [1, 5, 9]],
    ['cron(0 10 * * ? 2026)', 'years', [2026]],
    ['cron(0 10 * * ? 2026-2028)', 'years', [2026, 2027, 2028]],
    ['cron(0 10 * * ? 2026/100)', 'years', [2026, 2126]],
    ['cron(0 10 * * ? *)', 'years', range(1970, 2199)],
    ['cron(0 10 * * ? *)', 'minutes', [0]],
    ['cron(* * * * ? *)', 'minutes', range(0, 59)],
  ] as const)('parses %s: %s = %j', (expression, field, expected) => {
    expect(cron(expression)[field]).toEqual(expected);
  });

  it.each([
    ['cron(30 2 * * ? *)', { kind: 'days', days: range(1, 31) }],
    ['cron(0 0 1,15 * ? *)', { kind: 'days', days: [1, 15] }],
    ['cron(0 0 1/10 * ? *)', { kind: 'days', days: [1, 11, 21, 31] }],
    ['cron(0 0 L * ? *)', { kind: 'last' }],
    ['cron(0 0 LW * ? *)', { kind: 'last-weekday' }],
    ['cron(0 0 15W * ? *)', { kind: 'nearest-weekday', day: 15 }],
    ['cron(0 0 ? * MON *)', { kind: 'any' }],
  ] as const)('parses the day-of-month of %s', (expression, expected) => {
    expect(cron(expression).daysOfMonth).toEqual(expected);
  });

  it.each([
    ['cron(0 12 ? * SUN *)', { kind: 'days', days: [1] }],
    ['cron(0 12 ? * 1 *)', { kind: 'days', days: [1] }],
    ['cron(0 12 ? * SAT *)', { kind: 'days', days: [7] }],
    ['cron(0 12 ? * MON-FRI *)', { kind: 'days', days: [2, 3, 4, 5, 6] }],
    ['cron(0 12 ? * 2,4,6 *)', { kind: 'days', days: [2, 4, 6] }],
    ['cron(0 12 ? * * *)', { kind: 'days', days: range(1, 7) }],
    ['cron(0 12 ? * L *)', { kind: 'days', days: [7] }],
    ['cron(0 12 ? * 6L *)', { kind: 'last-of-month', day: 6 }],
    ['cron(0 12 ? * FRIL *)', { kind: 'last-of-month', day: 6 }],
    ['cron(0 12 ? * 3#2 *)', { kind: 'nth-of-month', day: 3, nth: 2 }],
    ['cron(0 12 ? * MON#1 *)', { kind: 'nth-of-month', day: 2, nth: 1 }],
    ['cron(0 12 1 * ? *)', { kind: 'any' }],
  ] as const)('parses the day-of-week of %s', (expression, expected) => {
    expect(cron(expression).daysOfWeek).toEqual(expected);
  });

  it('keeps the original text', () => {
    expect(parseScheduleExpression('cron(30 2 * * ? *)')).toMatchObject({
      kind: 'cron',
      expression: 'cron(30 2 * * ? *)',
    });
  });
});

describe('parseScheduleExpression: rate and at', () => {
  it.each([
    ['rate(1 minute)', 1, 'minutes', 60_000],
    ['rate(5 minutes)', 5, 'minutes', 300_000],
    ['rate(1 hour)', 1, 'hours', 3_600_000],
    ['rate(12 hours)', 12, 'hours', 43_200_000],
    ['rate(1 day)', 1, 'days', 86_400_000],
    ['rate(7 days)', 7, 'days', 604_800_000],
  ] as const)('parses %s as %d %s (%d ms)', (expression, value, unit, periodMs) => {
    expect(parseScheduleExpression(expression)).toEqual({ kind: 'rate', expression, value, unit, periodMs });
  });

  it.each([
    ['at(2026-03-29T02:30:00)', '2026-03-29T02:30:00'],
    ['at(2028-02-29T23:59:59)', '2028-02-29T23:59:59'],
  ])('parses %s', (expression, localDateTime) => {
    expect(parseScheduleExpression(expression)).toEqual({ kind: 'at', expression, localDateTime });
  });
});

describe('parseScheduleExpression rejects what Scheduler rejects, naming the part', () => {
  it.each([
    ['', 'expression'],
    ['30 2 * * ? *', 'expression'],
    ['cron 30 2 * * ? *', 'expression'],
    ['every(5 minutes)', 'expression'],
    ['CRON(30 2 * * ? *)', 'expression'],
    ['cron(30 2 * * ?)', 'fields'],
    ['cron(30 2 * * *)', 'fields'],
    ['cron(0 30 2 * * ? *)', 'fields'],
    ['cron()', 'fields'],
    ['cron(60 2 * * ? *)', 'minutes'],
    ['cron(-1 2 * * ? *)', 'minutes'],
    ['cron(a 2 * * ? *)', 'minutes'],
    ['cron(? 2 * * ? *)', 'minutes'],
    ['cron(0/0 2 * * ? *)', 'minutes'],
    ['cron(0/60 2 * * ? *)', 'minutes'],
    ['cron(0/ 2 * * ? *)', 'minutes'],
    ['cron(1,,2 2 * * ? *)', 'minutes'],
    ['cron(20-10 2 * * ? *)', 'minutes'],
    ['cron(1-2-3 2 * * ? *)', 'minutes'],
    ['cron(0 24 * * ? *)', 'hours'],
    ['cron(0 L * * ? *)', 'hours'],
    ['cron(0 0 0 * ? *)', 'day-of-month'],
    ['cron(0 0 32 * ? *)', 'day-of-month'],
    ['cron(0 0 1,L * ? *)', 'day-of-month'],
    ['cron(0 0 1-5W * ? *)', 'day-of-month'],
    ['cron(0 0 32W * ? *)', 'day-of-month'],
    ['cron(0 0 MON * ? *)', 'day-of-month'],
    ['cron(0 0 * 0 ? *)', 'month'],
    ['cron(0 0 * 13 ? *)', 'month'],
    ['cron(0 0 * JANUARY ? *)', 'month'],
    ['cron(0 0 * ? * *)', 'month'],
    ['cron(0 0 ? * 0 *)', 'day-of-week'],
    ['cron(0 0 ? * 8 *)', 'day-of-week'],
    ['cron(0 0 ? * 1/2 *)', 'day-of-week'],
    ['cron(0 0 ? * 3#6 *)', 'day-of-week'],
    ['cron(0 0 ? * 3#0 *)', 'day-of-week'],
    ['cron(0 0 ? * 3#1,6#3 *)', 'day-of-week'],
    ['cron(0 0 ? * 2,6L *)', 'day-of-week'],
    ['cron(0 0 ? * FRI-MON *)', 'day-of-week'],
    ['cron(0 0 * * ? 1969)', 'year'],
    ['cron(0 0 * * ? 2200)', 'year'],
    ['cron(0 0 * * ? ?)', 'year'],
    ['cron(30 2 * * * *)', 'day-of-month/day-of-week'],
    ['cron(30 2 ? * ? *)', 'day-of-month/day-of-week'],
    ['cron(30 2 1 * MON *)', 'day-of-month/day-of-week'],
    ['cron(30 2 L * 6L *)', 'day-of-month/day-of-week'],
    ['rate(0 minutes)', 'rate value'],
    ['rate(05 minutes)', 'rate value'],
    ['rate(99999999999 minutes)', 'rate value'],
    ['rate(1 minutes)', 'rate unit'],
    ['rate(1 hours)', 'rate unit'],
    ['rate(5 minute)', 'rate unit'],
    ['rate(2 day)', 'rate unit'],
    ['rate(5 seconds)', 'rate unit'],
    ['rate(1 week)', 'rate unit'],
    ['rate(-5 minutes)', 'rate'],
    ['rate(1.5 hours)', 'rate'],
    ['rate(5)', 'rate'],
    ['rate(minutes)', 'rate'],
    ['at(2026-03-29 02:30:00)', 'at'],
    ['at(2026-03-29T02:30)', 'at'],
    ['at(2026-03-29T02:30:00Z)', 'at'],
    ['at(2026-02-29T02:30:00)', 'at date'],
    ['at(2026-13-01T02:30:00)', 'at date'],
    ['at(2026-04-31T02:30:00)', 'at date'],
    ['at(2026-03-29T24:00:00)', 'at time'],
    ['at(2026-03-29T02:60:00)', 'at time'],
  ])('rejects %j in part %s', (expression, part) => {
    let thrown: unknown;
    try {
      parseScheduleExpression(expression);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidScheduleError);
    expect(thrown).toMatchObject({ code: 'INVALID_SCHEDULE', expression, part });
    expect((thrown as Error).message).toContain(part);
  });
});

describe('a rate value out of range', () => {
  it('states the range it must be in (a positive integer that is too large is not "not positive")', () => {
    expect(() => parseScheduleExpression('rate(99999999999 minutes)')).toThrow(
      'invalid schedule "rate(99999999999 minutes)": rate value: 99999999999 must be a whole number from 1 to 999999999',
    );
  });
});
