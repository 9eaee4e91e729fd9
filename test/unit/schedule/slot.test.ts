import { describe, expect, it } from 'vitest';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import { parseScheduleExpression } from '../../../lib/core/schedule/expression.js';
import { slotFromLocalTime, slotFromScheduledTime } from '../../../lib/core/schedule/slot.js';
import { InvalidArgumentError, InvalidJobDefinitionError } from '../../../lib/errors.js';

const at = (iso: string): number => Date.parse(iso);
const daily = parseScheduleExpression('cron(30 2 * * ? *)');
const rate = parseScheduleExpression('rate(5 minutes)');

describe('slotFromScheduledTime', () => {
  it.each([
    ['2026-03-28T01:30Z', 'Europe/Berlin', 'slot-date', '2026-03-28T02:30', '2026-03-28'],
    ['2026-10-25T00:30Z', 'Europe/Berlin', 'slot-date', '2026-10-25T02:30', '2026-10-25'],
    ['2026-10-25T01:30Z', 'Europe/Berlin', 'slot-date', '2026-10-25T02:30', '2026-10-25'],
    ['2026-11-01T05:30Z', 'America/New_York', 'slot-date', '2026-11-01T01:30', '2026-11-01'],
    ['2026-11-01T06:30Z', 'America/New_York', 'slot-date', '2026-11-01T01:30', '2026-11-01'],
    ['2026-03-01T16:30Z', 'Asia/Shanghai', 'previous-day', '2026-03-02T00:30', '2026-03-01'],
    ['2026-03-01T16:30Z', 'Asia/Shanghai', 'slot-date', '2026-03-02T00:30', '2026-03-02'],
    ['2026-01-01T00:30Z', 'Asia/Kolkata', 'previous-day', '2026-01-01T06:00', '2025-12-31'],
  ] as const)('maps %s in %s (%s) to slot %s, business date %s', (iso, zone, rule, id, businessDate) => {
    expect(slotFromScheduledTime(at(iso), daily, zone, rule)).toEqual({
      id,
      scheduledTimeMs: at(iso),
      localTime: id,
      businessDate,
    });
  });

  it('makes both instants of a repeated local time one cron slot (the second delivery is a duplicate)', () => {
    const first = slotFromScheduledTime(at('2026-10-25T00:30Z'), daily, 'Europe/Berlin', 'slot-date');
    const second = slotFromScheduledTime(at('2026-10-25T01:30Z'), daily, 'Europe/Berlin', 'slot-date');
    expect(second.id).toBe(first.id);
  });

  it('agrees with enumeration on every slot of a DST week (the sweeper never sees a false "missed")', () => {
    const source = { schedule: 'cron(0/30 * * * ? *)', timeZone: 'Australia/Sydney' };
    const expected = enumerateSlots(source, at('2026-04-03T00:00Z'), at('2026-04-07T00:00Z'));
    const cron = parseScheduleExpression(source.schedule);
    for (const slot of expected) {
      expect(slotFromScheduledTime(slot.scheduledTimeMs, cron, source.timeZone, 'slot-date')).toEqual(slot);
    }
  });

  it('identifies rate and at slots by UTC instant', () => {
    expect(slotFromScheduledTime(at('2026-10-25T01:30Z'), rate, 'Europe/Berlin', 'slot-date')).toEqual({
      id: '2026-10-25T01:30:00Z',
      scheduledTimeMs: at('2026-10-25T01:30Z'),
      localTime: '2026-10-25T02:30',
      businessDate: '2026-10-25',
    });
  });

  it('is independent of the process time zone', () => {
    const slot = slotFromScheduledTime(at('2026-03-29T22:30Z'), daily, 'Pacific/Auckland', 'slot-date');
    expect(slot.localTime).toBe('2026-03-30T11:30');
  });

  it.each([
    [Number.NaN, 'Europe/Berlin', InvalidArgumentError],
    [Number.POSITIVE_INFINITY, 'Europe/Berlin', InvalidArgumentError],
    [0, 'Mars/Olympus_Mons', InvalidJobDefinitionError],
  ])('rejects scheduled time %s in zone %s', (ms, zone, error) => {
    expect(() => slotFromScheduledTime(ms, daily, zone, 'slot-date')).toThrow(error);
  });
});

describe('slotFromLocalTime', () => {
  it.each([
    ['2026-03-28T02:30', 'Europe/Berlin', '2026-03-28T01:30Z', false],
    ['2026-03-29T02:30', 'Europe/Berlin', '2026-03-29T01:00Z', true],
    ['2026-10-25T02:30', 'Europe/Berlin', '2026-10-25T00:30Z', false],
    ['2026-03-08T02:30', 'America/New_York', '2026-03-08T07:00Z', true],
    ['2026-10-04T02:15', 'Australia/Sydney', '2026-10-03T16:00Z', true],
    ['2026-04-05T02:30', 'Australia/Sydney', '2026-04-04T15:30Z', false],
  ])('resolves %s in %s to %s (shifted: %s)', (localTime, zone, iso, shifted) => {
    const slot = slotFromLocalTime(localTime, daily, zone, 'slot-date');
    expect(slot.id).toBe(localTime);
    expect(slot.localTime).toBe(localTime);
    expect(slot.scheduledTimeMs).toBe(at(iso));
    expect(slot.shifted ?? false).toBe(shifted);
  });

  it('keeps the nominal date as business date for a shifted slot', () => {
    expect(slotFromLocalTime('2026-03-29T02:30', daily, 'Europe/Berlin', 'previous-day').businessDate).toBe(
      '2026-03-28',
    );
  });

  it.each(['2026-02-30T02:30', '2026-03-29 02:30', '2026-03-29T24:00', ''])(
    'rejects local time %j',
    (text) => {
      expect(() => slotFromLocalTime(text, daily, 'Europe/Berlin', 'slot-date')).toThrow(
        InvalidArgumentError,
      );
    },
  );
});
