import { describe, expect, it } from 'vitest';
import { parseInvocationEvent } from '../../lib/core/event.js';
import { InvalidEventError } from '../../lib/errors.js';

const scheduler = {
  job: 'daily-report',
  scheduledTime: '2026-03-28T01:30:00Z',
  scheduleArn: 'arn:aws:scheduler:eu-central-1:123456789012:schedule/cronfence/daily-report',
  executionId: 'c4b0a2d6-1111-2222-3333-444455556666',
  attemptNumber: '1',
};

describe('parseInvocationEvent', () => {
  it('reads the payload a cronfence schedule sends, taking the slot from scheduledTime', () => {
    expect(parseInvocationEvent(scheduler)).toEqual({
      job: 'daily-report',
      scheduledTimeMs: Date.UTC(2026, 2, 28, 1, 30),
      trigger: 'schedule',
      scheduleArn: scheduler.scheduleArn,
      executionId: scheduler.executionId,
      attemptNumber: 1,
    });
  });

  it('calls a Scheduler re-delivery (attempt 2) a retry', () => {
    expect(parseInvocationEvent({ ...scheduler, attemptNumber: '2' }).trigger).toBe('retry');
  });

  it('reads the manual form with who asked and why', () => {
    const e = parseInvocationEvent({
      job: 'daily-report',
      scheduledTime: '2026-03-28T01:30:00Z',
      trigger: 'manual',
      requestedBy: 'ops@example.com',
      reason: 'rerun',
    });
    expect(e).toMatchObject({ trigger: 'manual', requestedBy: 'ops@example.com', reason: 'rerun' });
  });

  it('accepts the event as a JSON string', () => {
    expect(parseInvocationEvent(JSON.stringify(scheduler)).job).toBe('daily-report');
  });

  it.each([
    ['a missing scheduledTime', { job: 'daily-report' }, 'scheduledTime', undefined],
    [
      'a scheduledTime that is not ISO-8601',
      { job: 'daily-report', scheduledTime: '28/03/2026 01:30' },
      'scheduledTime',
      '28/03/2026 01:30',
    ],
    [
      'a scheduledTime without a zone',
      { job: 'daily-report', scheduledTime: '2026-03-28T01:30:00' },
      'scheduledTime',
      '2026-03-28T01:30:00',
    ],
    [
      'an impossible date',
      { job: 'daily-report', scheduledTime: '2026-02-31T01:30:00Z' },
      'scheduledTime',
      '2026-02-31T01:30:00Z',
    ],
    ['a missing job', { scheduledTime: '2026-03-28T01:30:00Z' }, 'job', undefined],
    ['an unknown trigger', { ...scheduler, trigger: 'cron' }, 'trigger', 'cron'],
    ['a manual run without requestedBy', { ...scheduler, trigger: 'manual' }, 'requestedBy', undefined],
    ['attempt number 0', { ...scheduler, attemptNumber: '0' }, 'attemptNumber', '0'],
    // Past Scheduler's 185 retries: bad input, not a DynamoDB error when the run record is written.
    ['attempt number 1e308', { ...scheduler, attemptNumber: 1e308 }, 'attemptNumber', 1e308],
    ['shard 1e308', { ...scheduler, shard: 1e308, shards: 2 }, 'shard', 1e308],
    ['shards 5000', { ...scheduler, shard: 0, shards: 5000 }, 'shards', 5000],
    [
      'a nominal slot on a scheduled delivery',
      { ...scheduler, slot: '2026-03-29T02:30' },
      'slot',
      '2026-03-29T02:30',
    ],
    // Shaped like a local minute but not a real one: named as `slot` here, not as an internal
    // argument of the slot arithmetic deeper in the run.
    [
      'a catch-up slot in month 13 at 99:99',
      { ...scheduler, trigger: 'catch-up', requestedBy: 'sweeper', slot: '2026-13-45T99:99' },
      'slot',
      '2026-13-45T99:99',
    ],
    [
      'a manual slot on February 30',
      { ...scheduler, trigger: 'manual', requestedBy: 'ops', slot: '2026-02-30T02:30' },
      'slot',
      '2026-02-30T02:30',
    ],
  ])('rejects %s, naming the field and value', (_what, event, field, value) => {
    let caught: unknown;
    try {
      parseInvocationEvent(event);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidEventError);
    expect((caught as InvalidEventError).field).toBe(field);
    expect((caught as InvalidEventError).value).toBe(value);
    expect((caught as Error).message).toContain(`"${field}"`);
  });

  it.each([
    ['null', null],
    ['an array', [1]],
    ['a non-JSON string', 'hello'],
  ])('rejects %s as the event', (_what, event) => {
    expect(() => parseInvocationEvent(event)).toThrow(InvalidEventError);
  });

  const error = (event: unknown) => {
    try {
      parseInvocationEvent(event);
    } catch (err) {
      return [(err as Error).name, (err as InvalidEventError).field, (err as Error).message];
    }
    return 'accepted';
  };

  // <aws.scheduler.attempt-number> renders as a decimal string: Number() would take more than that.
  it.each([['0x2'], ['1e2'], [' 2 '], [''], ['+2'], ['2.0']])(
    'refuses attemptNumber %j (not decimal digits)',
    (attemptNumber) => {
      expect(error({ ...scheduler, attemptNumber })).toEqual([
        'InvalidEventError',
        'attemptNumber',
        `invalid event: field "attemptNumber" = ${JSON.stringify(attemptNumber)}: must be a whole number in decimal digits, e.g. "1"`,
      ]);
    },
  );

  it.each([
    ['"2"', '2', 2],
    ['2 (a number)', 2, 2],
    ['"186"', '186', 186],
  ])('takes attemptNumber %s', (_what, attemptNumber, expected) => {
    expect(parseInvocationEvent({ ...scheduler, attemptNumber }).attemptNumber).toBe(expected);
  });

  it('refuses an attemptNumber of another type, and a fractional number', () => {
    expect([
      error({ ...scheduler, attemptNumber: true }),
      error({ ...scheduler, attemptNumber: 1.5 }),
    ]).toEqual([
      [
        'InvalidEventError',
        'attemptNumber',
        'invalid event: field "attemptNumber" = true: must be a whole number or a string of decimal digits, e.g. "1"',
      ],
      [
        'InvalidEventError',
        'attemptNumber',
        'invalid event: field "attemptNumber" = 1.5: must be a whole number',
      ],
    ]);
  });

  it.each([
    ['an empty event {}', {}],
    ['an event whose job is undefined', { job: undefined, scheduledTime: '2026-03-28T01:30:00Z' }],
    ['the empty JSON string "{}"', '{}'],
  ])('names the missing job in %s (not valibot\'s generic "Invalid key")', (_what, event) => {
    expect(error(event)).toEqual([
      'InvalidEventError',
      'job',
      'invalid event: field "job" = undefined: is required: the name of the job the event is for (the schedule Input\'s "job")',
    ]);
  });

  it('names a missing scheduledTime and says where it comes from', () => {
    expect(error({ job: 'daily-report' })).toEqual([
      'InvalidEventError',
      'scheduledTime',
      'invalid event: field "scheduledTime" = undefined: is required: the slot comes from <aws.scheduler.scheduled-time>, never from "now"',
    ]);
  });

  it.each([
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['an array', [1], '[1]'],
    ['a number', 42, '42'],
  ])('says %s is not a JSON object', (_what, event, shown) => {
    expect(error(event)).toEqual([
      'InvalidEventError',
      '(event)',
      `invalid event: field "(event)" = ${shown}: is not a JSON object (expected { "job", "scheduledTime", ... })`,
    ]);
  });
});
