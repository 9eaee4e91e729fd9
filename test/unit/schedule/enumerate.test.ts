import { describe, expect, it } from 'vitest';
import { defaultDstGap } from '../../../lib/core/schedule/dst-gap.js';
import { enumerateSlots, iterateSlots, type SlotSource } from '../../../lib/core/schedule/enumerate.js';
import { parseScheduleExpression } from '../../../lib/core/schedule/expression.js';
import type { Slot } from '../../../lib/core/schedule/slot.js';
import { InvalidArgumentError } from '../../../lib/errors.js';

const at = (iso: string): number => Date.parse(iso);
/** `instant local-id business-date [shifted]` per slot: one readable line each. */
const lines = (slots: readonly Slot[]): string[] =>
  slots.map(
    (s) =>
      `${new Date(s.scheduledTimeMs).toISOString().slice(0, 16)}Z ${s.id} ${s.businessDate}${s.shifted ? ' shifted' : ''}`,
  );
const slots = (source: SlotSource, from: string, to: string): string[] =>
  lines(enumerateSlots(source, at(from), at(to)));

const berlin = { schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' };
const newYork = { schedule: 'cron(30 2 * * ? *)', timeZone: 'America/New_York' };
const sydney = { schedule: 'cron(0/30 * * * ? *)', timeZone: 'Australia/Sydney' };

describe('enumerateSlots: Scheduler DST rules (instants checked against the IANA data)', () => {
  it.each([
    [
      'Berlin 02:30 daily, skip: nothing on 2026-03-29 (02:30 does not exist)',
      { ...berlin, dstGap: 'skip' },
      '2026-03-27T12:00Z',
      '2026-03-30T12:00Z',
      ['2026-03-28T01:30Z 2026-03-28T02:30 2026-03-28', '2026-03-30T00:30Z 2026-03-30T02:30 2026-03-30'],
    ],
    [
      'Berlin 02:30 daily, shift (the default): 2026-03-29 once, at 03:00 CEST, and 03-30 still its own',
      berlin,
      '2026-03-27T12:00Z',
      '2026-03-30T12:00Z',
      [
        '2026-03-28T01:30Z 2026-03-28T02:30 2026-03-28',
        '2026-03-29T01:00Z 2026-03-29T02:30 2026-03-29 shifted',
        '2026-03-30T00:30Z 2026-03-30T02:30 2026-03-30',
      ],
    ],
    [
      'Berlin 02:30 daily on 2026-10-25: one slot, at the first of its two instants',
      berlin,
      '2026-10-24T12:00Z',
      '2026-10-26T12:00Z',
      ['2026-10-25T00:30Z 2026-10-25T02:30 2026-10-25', '2026-10-26T01:30Z 2026-10-26T02:30 2026-10-26'],
    ],
    [
      'New York 02:30 daily, skip: nothing on 2026-03-08; 03-09 at 06:30Z',
      { ...newYork, dstGap: 'skip' },
      '2026-03-07T00:00Z',
      '2026-03-09T12:00Z',
      ['2026-03-07T07:30Z 2026-03-07T02:30 2026-03-07', '2026-03-09T06:30Z 2026-03-09T02:30 2026-03-09'],
    ],
    [
      'New York 02:30 daily, shift: one run for business date 2026-03-08 at 03:00 EDT',
      newYork,
      '2026-03-07T00:00Z',
      '2026-03-09T12:00Z',
      [
        '2026-03-07T07:30Z 2026-03-07T02:30 2026-03-07',
        '2026-03-08T07:00Z 2026-03-08T02:30 2026-03-08 shifted',
        '2026-03-09T06:30Z 2026-03-09T02:30 2026-03-09',
      ],
    ],
    [
      'New York 01:30 daily on 2026-11-01: once, at 05:30Z (01:30 EDT)',
      { schedule: 'cron(30 1 * * ? *)', timeZone: 'America/New_York' },
      '2026-10-31T12:00Z',
      '2026-11-02T12:00Z',
      ['2026-11-01T05:30Z 2026-11-01T01:30 2026-11-01', '2026-11-02T06:30Z 2026-11-02T01:30 2026-11-02'],
    ],
    [
      'Sydney every 30 min on 2026-04-05 (03:00 AEDT -> 02:00 AEST at 16:00Z): 02:00 and 02:30 once, at their AEDT instants',
      sydney,
      '2026-04-04T14:00Z',
      '2026-04-04T17:30Z',
      [
        '2026-04-04T14:30Z 2026-04-05T01:30 2026-04-05',
        '2026-04-04T15:00Z 2026-04-05T02:00 2026-04-05',
        '2026-04-04T15:30Z 2026-04-05T02:30 2026-04-05',
        '2026-04-04T17:00Z 2026-04-05T03:00 2026-04-05',
        '2026-04-04T17:30Z 2026-04-05T03:30 2026-04-05',
      ],
    ],
    [
      'Sydney every 30 min on 2026-10-04 (02:00-02:59 does not exist): 15:30Z -> 16:00Z, nothing invented',
      sydney,
      '2026-10-03T15:00Z',
      '2026-10-03T16:30Z',
      [
        '2026-10-03T15:30Z 2026-10-04T01:30 2026-10-04',
        '2026-10-03T16:00Z 2026-10-04T03:00 2026-10-04',
        '2026-10-03T16:30Z 2026-10-04T03:30 2026-10-04',
      ],
    ],
    [
      'weekly Sunday noon in Berlin: the first after 2026-03-24 is 2026-03-29T10:00Z (already CEST)',
      { schedule: 'cron(0 12 ? * SUN *)', timeZone: 'Europe/Berlin' },
      '2026-03-24T00:00Z',
      '2026-04-05T23:00Z',
      ['2026-03-29T10:00Z 2026-03-29T12:00 2026-03-29', '2026-04-05T10:00Z 2026-04-05T12:00 2026-04-05'],
    ],
    [
      'every minute in New York across the 2026-03-08 gap: 7 slots, 01:59 EST then 03:00 EDT',
      { schedule: 'cron(* * * * ? *)', timeZone: 'America/New_York' },
      '2026-03-08T06:58Z',
      '2026-03-08T07:05Z',
      [
        '2026-03-08T06:59Z 2026-03-08T01:59 2026-03-08',
        '2026-03-08T07:00Z 2026-03-08T03:00 2026-03-08',
        '2026-03-08T07:01Z 2026-03-08T03:01 2026-03-08',
        '2026-03-08T07:02Z 2026-03-08T03:02 2026-03-08',
        '2026-03-08T07:03Z 2026-03-08T03:03 2026-03-08',
        '2026-03-08T07:04Z 2026-03-08T03:04 2026-03-08',
        '2026-03-08T07:05Z 2026-03-08T03:05 2026-03-08',
      ],
    ],
    [
      'Berlin 02:30 daily after the last success 2026-03-28T01:30Z until 2026-03-31T06:00Z: 03-29, 03-30, 03-31 once each',
      berlin,
      '2026-03-28T01:30Z',
      '2026-03-31T06:00Z',
      [
        '2026-03-29T01:00Z 2026-03-29T02:30 2026-03-29 shifted',
        '2026-03-30T00:30Z 2026-03-30T02:30 2026-03-30',
        '2026-03-31T00:30Z 2026-03-31T02:30 2026-03-31',
      ],
    ],
    [
      'previous-day business date (Shanghai settlement at 00:30)',
      { schedule: 'cron(30 0 * * ? *)', timeZone: 'Asia/Shanghai', businessDate: 'previous-day' },
      '2026-03-01T00:00Z',
      '2026-03-02T00:00Z',
      ['2026-03-01T16:30Z 2026-03-02T00:30 2026-03-01'],
    ],
  ] as const)('%s', (_name, source, from, to, expected) => {
    expect(slots(source, from, to)).toEqual(expected);
  });
});

describe('enumerateSlots: interval and special days', () => {
  it('covers (from, to]: an occurrence at `from` is excluded, one at `to` included', () => {
    const from = at('2026-03-28T01:30Z');
    const out = enumerateSlots(berlin, from, at('2026-03-30T00:30Z'));
    expect(out.map((s) => s.scheduledTimeMs)).toEqual([at('2026-03-29T01:00Z'), at('2026-03-30T00:30Z')]);
  });

  it('returns nothing for an empty or reversed interval', () => {
    expect(enumerateSlots(berlin, at('2026-03-30T00:30Z'), at('2026-03-30T00:30Z'))).toEqual([]);
    expect(enumerateSlots(berlin, at('2026-03-31T00:00Z'), at('2026-03-30T00:00Z'))).toEqual([]);
  });

  it.each([
    ['cron(0 9 L * ? *)', ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']],
    ['cron(0 9 LW * ? *)', ['2026-01-30', '2026-02-27', '2026-03-31', '2026-04-30']],
    ['cron(0 9 1W * ? *)', ['2026-01-01', '2026-02-02', '2026-03-02', '2026-04-01']],
    ['cron(0 9 31W * ? *)', ['2026-01-30', '2026-03-31']],
    ['cron(0 9 ? * 6L *)', ['2026-01-30', '2026-02-27', '2026-03-27', '2026-04-24']],
    ['cron(0 9 ? * 3#2 *)', ['2026-01-13', '2026-02-10', '2026-03-10', '2026-04-14']],
    ['cron(0 9 ? * MON#5 *)', ['2026-03-30']],
    ['cron(0 9 29 FEB ? 2026-2029)', []],
    ['cron(0 9 ? * SAT,SUN 2026)', ['2026-01-03', '2026-01-04', '2026-01-10', '2026-01-11']],
  ])('%s fires on %j (UTC, first four months of 2026)', (schedule, dates) => {
    const out = enumerateSlots(
      { schedule, timeZone: 'UTC' },
      at('2026-01-01T00:00Z'),
      at('2026-04-30T23:59Z'),
    );
    expect(out.map((s) => s.businessDate).slice(0, 4)).toEqual(dates.slice(0, 4));
  });

  it('streams lazily past any finite end (the emulator)', () => {
    const it5 = iterateSlots(
      { schedule: 'cron(0 0 1 1 ? *)', timeZone: 'UTC' },
      at('2026-06-01T00:00Z'),
      Infinity,
    );
    const first = [it5.next().value?.id, it5.next().value?.id];
    expect(first).toEqual(['2027-01-01T00:00', '2028-01-01T00:00']);
  });

  it('stops after the last year the cron allows', () => {
    expect(enumerateSlots({ schedule: 'cron(0 0 1 1 ? 2199)', timeZone: 'UTC' }, 0, 8e12)).toHaveLength(1);
  });
});

describe('enumerateSlots: rate and at', () => {
  const rate = { schedule: 'rate(6 hours)', timeZone: 'Europe/Berlin', startMs: at('2026-03-28T22:00Z') };

  it('counts rate occurrences on the grid both ways from its anchor, identified by UTC instant, ignoring DST', () => {
    expect(slots(rate, '2026-03-28T00:00Z', '2026-03-29T12:00Z')).toEqual([
      '2026-03-28T04:00Z 2026-03-28T04:00:00Z 2026-03-28',
      '2026-03-28T10:00Z 2026-03-28T10:00:00Z 2026-03-28',
      '2026-03-28T16:00Z 2026-03-28T16:00:00Z 2026-03-28',
      '2026-03-28T22:00Z 2026-03-28T22:00:00Z 2026-03-28',
      '2026-03-29T04:00Z 2026-03-29T04:00:00Z 2026-03-29',
      '2026-03-29T10:00Z 2026-03-29T10:00:00Z 2026-03-29',
    ]);
  });

  it('starts a rate window after `from` on the next multiple of the period', () => {
    expect(slots(rate, '2026-03-29T04:00Z', '2026-03-29T10:00Z')).toEqual([
      '2026-03-29T10:00Z 2026-03-29T10:00:00Z 2026-03-29',
    ]);
  });

  it('yields the occurrences between a deploy and a later anchor that Scheduler delivers from the synthesized StartDate', () => {
    // rate(1 hour) anchored at 18:00, deployed 14:10: synth deploys StartDate 15:00 (counted back).
    const anchored = { schedule: 'rate(1 hour)', timeZone: 'UTC', startMs: at('2026-11-01T18:00Z') };
    expect(slots(anchored, '2026-11-01T14:10Z', '2026-11-01T18:00Z').map((l) => l.split(' ')[1])).toEqual([
      '2026-11-01T15:00:00Z',
      '2026-11-01T16:00:00Z',
      '2026-11-01T17:00:00Z',
      '2026-11-01T18:00:00Z',
    ]);
  });

  it('refuses a rate range without a finite start, naming fromMs', () => {
    expect(() =>
      enumerateSlots(
        { schedule: 'rate(5 minutes)', timeZone: 'UTC', startMs: 0 },
        Number.NEGATIVE_INFINITY,
        1e6,
      ),
    ).toThrow(/fromMs/);
  });

  it('refuses a rate schedule without its start instant', () => {
    expect(() => enumerateSlots({ schedule: 'rate(5 minutes)', timeZone: 'UTC' }, 0, 1e6)).toThrow(
      InvalidArgumentError,
    );
  });

  it.each([
    ['at(2026-05-01T09:15:30)', 'Europe/Berlin', ['2026-05-01T07:15Z 2026-05-01T07:15:00Z 2026-05-01']],
    [
      'at(2026-03-29T02:30:00)',
      'Europe/Berlin',
      ['2026-03-29T01:00Z 2026-03-29T01:00:00Z 2026-03-29 shifted'],
    ],
    ['at(2026-10-25T02:30:00)', 'Europe/Berlin', ['2026-10-25T00:30Z 2026-10-25T00:30:00Z 2026-10-25']],
  ])('fires %s in %s once', (schedule, timeZone, expected) => {
    expect(slots({ schedule, timeZone }, '2026-01-01T00:00Z', '2026-12-31T00:00Z')).toEqual(expected);
  });

  it('skips an at() in a gap when dstGap is skip', () => {
    expect(
      slots(
        { schedule: 'at(2026-03-29T02:30:00)', timeZone: 'Europe/Berlin', dstGap: 'skip' },
        '2026-01-01T00:00Z',
        '2026-12-31T00:00Z',
      ),
    ).toEqual([]);
  });
});

describe('defaultDstGap', () => {
  it.each([
    ['cron(30 2 * * ? *)', 'shift'],
    ['cron(0 12 ? * SUN *)', 'shift'],
    ['cron(0 0 L * ? *)', 'shift'],
    ['cron(0 2,14 * * ? *)', 'skip'],
    ['cron(0/30 * * * ? *)', 'skip'],
    ['cron(* * * * ? *)', 'skip'],
    ['rate(1 day)', 'skip'],
    ['at(2026-03-29T02:30:00)', 'shift'],
  ])('is %s -> %s', (schedule, expected) => {
    expect(defaultDstGap(parseScheduleExpression(schedule))).toBe(expected);
  });
});
