import { describe, expect, it } from 'vitest';
import { InvalidJobDefinitionError, InvalidScheduleError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';

const ok = {
  name: 'nightly',
  schedule: 'cron(30 2 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 30 },
  run: async () => undefined,
};

describe('defineJob validation at definition time', () => {
  it('returns a handler carrying the validated definition with defaults', () => {
    const h = defineJob(ok);
    expect(h.job).toEqual({
      name: 'nightly',
      schedule: 'cron(30 2 * * ? *)',
      timeZone: 'Europe/Berlin',
      lease: { durationSeconds: 30, renewFraction: 1 / 3 },
      timeoutSeconds: 60,
      runtime: 'lambda',
      businessDate: 'slot-date',
      shards: 1,
      runRetentionDays: 30,
      rememberSlots: 32,
    });
    expect(h.expression.kind).toBe('cron');
  });

  it.each([
    ['a name with a space', { name: 'daily report' }, 'name', 'daily report'],
    ['a name longer than 64', { name: `a${'b'.repeat(64)}` }, 'name', `a${'b'.repeat(64)}`],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'timeZone', 'Mars/Olympus'],
    ['a zone abbreviation', { timeZone: 'CET' }, 'timeZone', 'CET'],
    ['a lease of 0 s', { lease: { durationSeconds: 0 } }, 'lease.durationSeconds', 0],
    [
      'a lease longer than the function timeout',
      { lease: { durationSeconds: 120 }, timeoutSeconds: 60 },
      'lease.durationSeconds',
      120,
    ],
    ['a timeout above 900 s', { timeoutSeconds: 901 }, 'timeoutSeconds', 901],
    ['0 shards', { shards: 0 }, 'shards', 0],
  ])('rejects %s, naming the field and value', (_what, patch, field, value) => {
    let caught: unknown;
    try {
      defineJob({ ...ok, ...patch });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidJobDefinitionError);
    expect((caught as InvalidJobDefinitionError).field).toBe(field);
    expect((caught as InvalidJobDefinitionError).value).toEqual(value);
  });

  it('rejects an observe that is not a function, naming the field and value', () => {
    let caught: unknown;
    try {
      defineJob({ ...ok, observe: 'yes' as never });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidJobDefinitionError);
    expect((caught as Error).message).toBe(
      'job "nightly": invalid job definition: "observe" = "yes": must be a function returning an observer, e.g. createObserver from cronfence/observability',
    );
  });

  it('rejects a 5-field cron, naming the expression', () => {
    expect(() => defineJob({ ...ok, schedule: 'cron(30 2 * * ?)' })).toThrow(InvalidScheduleError);
    expect(() => defineJob({ ...ok, schedule: 'cron(30 2 * * ?)' })).toThrow(/cron\(30 2 \* \* \?\)/);
  });
});
