/**
 * Unit (no network): the scheduled payload's direct check (`scheduledEvent`) is held to the event
 * schema (`parseBySchema`), which defines the rules: over payloads of the scheduled shape with values
 * on and around every rule's edges (lengths 0/1/max/max+1, real and unreal dates, attempt numbers as
 * numbers and strings, foreign keys), whatever the direct check accepts the schema accepts with the
 * same result, and whatever the schema accepts of the scheduled shape the direct check accepts too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBySchema, parseInvocationEvent, scheduledEvent } from '../../lib/core/event.js';
import { InvalidEventError } from '../../lib/errors.js';

const text = (max: number) =>
  fc.oneof(
    fc.constantFrom('', 'a', 'x'.repeat(max), 'x'.repeat(max + 1)),
    fc.string({ minLength: 0, maxLength: 8 }),
  );
const instant = fc.oneof(
  fc.constantFrom(
    '2026-03-28T01:30:00Z',
    '2026-02-29T01:30:00Z',
    '2028-02-29T23:59:59Z',
    '2026-04-31T00:00:00Z',
    '2026-03-28T24:00:00Z',
    '2026-03-28T01:60:00Z',
    '2026-03-28T01:30Z',
    '2026-03-28T01:30:00.123+02:00',
    '2026-03-28 01:30:00Z',
    '2026-03-28T01:30:00',
    '１０２６-03-28T01:30:00Z',
  ),
  fc
    .date({ min: new Date(0), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true })
    .map((d) => d.toISOString()),
  // Scheduler's own form (`yyyy-MM-ddTHH:mm:ssZ`, read at fixed positions), seconds past 59 too.
  fc
    .tuple(
      fc.date({ min: new Date(0), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true }),
      fc.integer({ min: 0, max: 99 }),
    )
    .map(([d, s]) => `${d.toISOString().slice(0, 17)}${String(s).padStart(2, '0')}Z`),
);
const attempt = fc.oneof(
  fc.constantFrom('1', '2', '186', '187', '0', '01', ' 2', '1e2', '0x2', '', '-1', '2.5'),
  fc.constantFrom(1, 2, 186, 187, 0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY),
  fc.integer({ min: -5, max: 300 }),
);
const payload = fc
  .tuple(
    fc.record(
      {
        job: fc.oneof(text(64), fc.constant(7)),
        scheduledTime: fc.oneof(instant, fc.constant(12)),
        scheduleArn: text(2048),
        executionId: text(256),
        attemptNumber: attempt,
      },
      { requiredKeys: ['job', 'scheduledTime'] },
    ),
    // Now and then a field of another payload form.
    fc.option(
      fc.oneof(
        fc.record({ trigger: fc.constantFrom('schedule', 'manual', 'catch-up', 'other') }),
        fc.record({ shard: fc.integer({ min: -1, max: 5 }) }),
      ),
      { freq: 5 },
    ),
  )
  .map(([scheduled, other]) => ({ ...scheduled, ...other }) as Record<string, unknown>);

/** The schema's verdict: the parsed event, or the error it throws. */
function bySchema(input: Record<string, unknown>): unknown {
  try {
    return parseBySchema(input);
  } catch (err) {
    return err;
  }
}

describe('scheduledEvent', () => {
  it('accepts exactly what the schema accepts of the scheduled shape, with the same result', () => {
    fc.assert(
      fc.property(payload, (input) => {
        const direct = scheduledEvent(input);
        const schema = bySchema(input);
        const scheduledShape = Object.keys(input).every((k) =>
          ['job', 'scheduledTime', 'scheduleArn', 'executionId', 'attemptNumber'].includes(k),
        );
        if (direct !== undefined) expect(direct).toEqual(schema);
        else if (scheduledShape) expect(schema).toBeInstanceOf(InvalidEventError);
      }),
      { numRuns: 3_000, seed: 28 },
    );
  });

  it('reads the payload a schedule sends as the schema does, a retry by its attempt number', () => {
    const input = {
      job: 'daily-report',
      scheduledTime: '2026-03-28T01:30:00Z',
      scheduleArn: 'arn:aws:scheduler:eu-central-1:123456789012:schedule/cronfence/daily-report',
      executionId: 'c4b0a2d6-1111-2222-3333-444455556666',
      attemptNumber: '3',
    };
    expect(scheduledEvent(input)).toEqual({
      job: 'daily-report',
      scheduledTimeMs: Date.UTC(2026, 2, 28, 1, 30),
      trigger: 'retry',
      scheduleArn: input.scheduleArn,
      executionId: input.executionId,
      attemptNumber: 3,
    });
    expect(parseInvocationEvent(input)).toEqual(parseBySchema(input));
  });

  it('leaves every other payload form to the schema, which names the bad field', () => {
    expect(scheduledEvent({ job: 'j', scheduledTime: '2026-03-28T01:30:00Z', trigger: 'manual' })).toBe(
      undefined,
    );
    expect(() => parseInvocationEvent({ job: 'j', scheduledTime: '2026-02-30T01:30:00Z' })).toThrow(
      'invalid event: field "scheduledTime" = "2026-02-30T01:30:00Z": is not a real date and time',
    );
  });
});
