/** unit: the previous occurrence an `after-previous` claim waits for (lib/core/overlap-previous.ts). */
import { describe, expect, it } from 'vitest';
import { parseJobDefinition } from '../../lib/core/job-definition-schema.js';
import { predecessorOf, previousSlot } from '../../lib/core/overlap-previous.js';
import { slotFromScheduledTime } from '../../lib/core/schedule/slot.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');

function slotOf(options: Record<string, unknown>, instant: string) {
  const { definition, expression } = parseJobDefinition(
    { name: 'ledger', lease: { durationSeconds: 30 }, overlap: 'after-previous', ...options },
    NOW,
  );
  const slot = slotFromScheduledTime(
    Date.parse(instant),
    expression,
    definition.timeZone,
    definition.businessDate,
  );
  return { definition, expression, slot };
}

function previousOf(options: Record<string, unknown>, instant: string): string | undefined {
  const { definition, expression, slot } = slotOf(options, instant);
  return previousSlot(definition, expression, slot)?.id;
}

function predecessor(options: Record<string, unknown>, instant: string) {
  const { definition, expression, slot } = slotOf(options, instant);
  return predecessorOf(definition, expression, slot);
}

describe('previousSlot', () => {
  it.each([
    ['an hourly cron', { schedule: 'cron(0 * * * ? *)' }, '2026-03-02T10:00:00Z', '2026-03-02T09:00'],
    [
      'a daily cron in Berlin',
      { schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' },
      '2026-03-03T01:30:00Z',
      '2026-03-02T02:30',
    ],
    [
      'a weekday cron over a weekend',
      { schedule: 'cron(0 9 ? * MON-FRI *)' },
      '2026-03-02T09:00:00Z',
      '2026-02-27T09:00',
    ],
    ['a monthly cron', { schedule: 'cron(0 0 1 * ? *)' }, '2026-03-01T00:00:00Z', '2026-02-01T00:00'],
    ['a rate', { schedule: 'rate(15 minutes)' }, '2026-03-02T10:00:00Z', '2026-03-02T09:45:00Z'],
  ])('of %s is the occurrence just before', (_l, options, instant, expected) => {
    expect(previousOf(options, instant)).toBe(expected);
  });

  it('is none before catchUp.since (the job owns nothing earlier)', () => {
    const options = {
      schedule: 'cron(0 * * * ? *)',
      catchUp: { mode: 'none', windowHours: 24, maxSlotsPerSweep: 1, since: '2026-03-02T09:30:00Z' },
    };
    expect(previousOf(options, '2026-03-02T10:00:00Z')).toBeUndefined();
    expect(previousOf(options, '2026-03-02T11:00:00Z')).toBe('2026-03-02T10:00');
  });

  it('starts the chain at the first success when the job does not declare catchUp.since', () => {
    expect(predecessor({ schedule: 'cron(0 * * * ? *)' }, '2026-03-02T10:00:00Z')).toEqual({
      id: '2026-03-02T09:00',
      fromFirstSlot: false,
    });
    // A bounded schedule's first slot has no predecessor: it runs only while nothing succeeded.
    const bounded = { schedule: 'cron(0/5 0-1 5 1 ? 2027)' };
    expect(predecessor(bounded, '2027-01-05T00:00:00Z')).toEqual({ fromFirstSlot: false });
    expect(predecessor(bounded, '2027-01-05T00:05:00Z')).toEqual({
      id: '2027-01-05T00:00',
      fromFirstSlot: false,
    });
  });

  it('starts the chain at the first slot at or after catchUp.since', () => {
    const since = {
      schedule: 'cron(0 * * * ? *)',
      catchUp: { mode: 'all', windowHours: 24, maxSlotsPerSweep: 1, since: '2026-03-02T09:30:00Z' },
    };
    expect(predecessor(since, '2026-03-02T10:00:00Z')).toEqual({ fromFirstSlot: true });
    expect(predecessor(since, '2026-03-02T11:00:00Z')).toEqual({
      id: '2026-03-02T10:00',
      fromFirstSlot: true,
    });
  });
});
