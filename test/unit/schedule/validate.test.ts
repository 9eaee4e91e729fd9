import { describe, expect, it } from 'vitest';
import { dstWarnings } from '../../../lib/core/schedule/dst-warnings.js';
import { parseScheduleExpression } from '../../../lib/core/schedule/expression.js';
import { schedulePeriodMs, validateCatchUp, validateSchedule } from '../../../lib/core/schedule/validate.js';
import { InvalidJobDefinitionError, InvalidScheduleError } from '../../../lib/errors.js';

const at = (iso: string): number => Date.parse(iso);
const NOW = at('2026-01-15T12:00Z');
const HOUR = 3_600_000;

describe('dstWarnings', () => {
  it('names every gap and overlap date of a Berlin 02:30 job in the next 3 years', () => {
    const warnings = dstWarnings({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' }, NOW);
    expect(warnings.map((w) => `${w.date} ${w.kind} ${w.localTimes.join(',')}`)).toEqual([
      '2026-03-29 nonexistent 02:30',
      '2026-10-25 repeated 02:30',
      '2027-03-28 nonexistent 02:30',
      '2027-10-31 repeated 02:30',
      '2028-03-26 nonexistent 02:30',
      '2028-10-29 repeated 02:30',
    ]);
    expect(warnings[0]?.message).toBe(
      '2026-03-29: local time 02:30 in Europe/Berlin do not exist (DST gap): Scheduler does not invoke them',
    );
  });

  it.each([
    ['cron(0 12 * * ? *)', 'Europe/Berlin', []],
    ['cron(30 2 * * ? *)', 'Asia/Shanghai', []],
    ['cron(30 2 * * ? *)', 'UTC', []],
    ['rate(1 hour)', 'Europe/Berlin', []],
    ['cron(30 2 ? * MON-FRI *)', 'Europe/Berlin', []],
    ['cron(30 2 ? * SUN *)', 'America/New_York', ['2026-03-08 nonexistent']],
    ['cron(30 1 ? * SUN *)', 'America/New_York', ['2026-11-01 repeated']],
    ['at(2026-03-29T02:30:00)', 'Europe/Berlin', ['2026-03-29 nonexistent']],
  ])('for %s in %s (first year) warns %j', (schedule, timeZone, expected) => {
    const warnings = dstWarnings({ schedule, timeZone }, NOW, 1);
    expect(warnings.map((w) => `${w.date} ${w.kind}`)).toEqual(expected);
  });

  it('lists all affected times of a sub-daily cron on one line per date and kind', () => {
    const [overlap, gap] = dstWarnings(
      { schedule: 'cron(0/30 * * * ? *)', timeZone: 'Australia/Sydney' },
      NOW,
      1,
    );
    expect(overlap).toMatchObject({ date: '2026-04-05', kind: 'repeated', localTimes: ['02:00', '02:30'] });
    expect(gap).toMatchObject({ date: '2026-10-04', kind: 'nonexistent', localTimes: ['02:00', '02:30'] });
  });
});

describe('validateSchedule', () => {
  it('returns the parsed expression', () => {
    expect(validateSchedule({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' }, NOW).kind).toBe(
      'cron',
    );
  });

  it.each([
    [{ schedule: 'cron(30 2 * * *)', timeZone: 'Europe/Berlin' }, InvalidScheduleError, 'fields'],
    [{ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Nowhere' }, InvalidJobDefinitionError, 'timeZone'],
    [{ schedule: 'cron(30 2 * * ? *)', timeZone: 'CET' }, InvalidJobDefinitionError, 'timeZone'],
    [
      { schedule: 'at(2026-01-15T12:59:00)', timeZone: 'Europe/Berlin' },
      InvalidJobDefinitionError,
      'schedule',
    ],
  ])('rejects %j', (job, error, field) => {
    expect(() => validateSchedule(job, NOW)).toThrow(error);
    try {
      validateSchedule(job, NOW);
    } catch (e) {
      expect((e as { field?: string; part?: string }).field ?? (e as { part?: string }).part).toBe(field);
    }
  });

  it('accepts an at() in the future', () => {
    expect(
      validateSchedule({ schedule: 'at(2026-01-15T13:01:00)', timeZone: 'Europe/Berlin' }, NOW).kind,
    ).toBe('at');
  });
});

describe('schedulePeriodMs', () => {
  it.each([
    ['rate(5 minutes)', 5 * 60_000],
    ['cron(30 2 * * ? *)', 24 * HOUR],
    ['cron(0/30 * * * ? *)', HOUR / 2],
    ['cron(0 9,17 * * ? *)', 16 * HOUR],
    ['cron(0 12 ? * SUN *)', 7 * 24 * HOUR],
    ['cron(0/5 8-17 ? * MON-FRI *)', (2 * 24 + 14) * HOUR + 5 * 60_000],
    ['cron(0 0 1 * ? *)', 31 * 24 * HOUR],
    ['cron(0 0 29 FEB ? *)', 4 * 365 * 24 * HOUR + 24 * HOUR],
    ['cron(0 0 1 1 ? 2026)', undefined],
    ['at(2026-03-29T02:30:00)', undefined],
  ])('of %s is %s ms', (schedule, expected) => {
    expect(schedulePeriodMs(parseScheduleExpression(schedule), NOW)).toBe(expected);
  });
});

describe('validateCatchUp', () => {
  const job = { schedule: parseScheduleExpression('cron(30 2 * * ? *)'), runRetentionDays: 30 };

  it('accepts a sane configuration', () => {
    expect(() =>
      validateCatchUp({ mode: 'all', windowHours: 72, maxSlotsPerSweep: 3 }, job, NOW),
    ).not.toThrow();
  });

  it.each([
    [{ mode: 'some', windowHours: 72, maxSlotsPerSweep: 3 }, job, 'catchUp.mode'],
    [{ mode: 'all', windowHours: 72, maxSlotsPerSweep: 0 }, job, 'catchUp.maxSlotsPerSweep'],
    [{ mode: 'all', windowHours: 72, maxSlotsPerSweep: -1 }, job, 'catchUp.maxSlotsPerSweep'],
    [{ mode: 'all', windowHours: 72, maxSlotsPerSweep: 1.5 }, job, 'catchUp.maxSlotsPerSweep'],
    [{ mode: 'all', windowHours: 0, maxSlotsPerSweep: 3 }, job, 'catchUp.windowHours'],
    [{ mode: 'all', windowHours: 31 * 24, maxSlotsPerSweep: 3 }, job, 'catchUp.windowHours'],
    [{ mode: 'latest', windowHours: 12, maxSlotsPerSweep: 3 }, job, 'catchUp.windowHours'],
    [
      { mode: 'all', windowHours: 48, maxSlotsPerSweep: 3 },
      { schedule: parseScheduleExpression('cron(0 12 ? * SUN *)'), runRetentionDays: 30 },
      'catchUp.windowHours',
    ],
  ])('rejects %j', (catchUp, jobDef, field) => {
    let thrown: unknown;
    try {
      validateCatchUp(catchUp as Parameters<typeof validateCatchUp>[0], jobDef, NOW);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(InvalidJobDefinitionError);
    expect(thrown).toMatchObject({ field });
  });
});
