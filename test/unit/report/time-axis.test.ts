/**
 * The report's wall-clock axis (unit, pure): round UTC ticks at every range from seconds to weeks, the
 * job's zone beneath (across a DST change too), and instants and spans as a person reads them.
 */
import { describe, expect, it } from 'vitest';
import { axisTicks, formatInstant, formatSpan, localInstant } from '../../../harness/report/time-axis.js';

const at = (iso: string) => Date.parse(iso);

describe('report time axis', () => {
  it.each([
    [
      '30 seconds: every 5 s, with seconds',
      '2026-03-10T08:00:02Z',
      '2026-03-10T08:00:32Z',
      ['03-10 08:00:05', '08:00:10', '08:00:15', '08:00:20', '08:00:25', '08:00:30'],
    ],
    [
      '2 hours: every 15 min',
      '2026-03-10T08:00:05Z',
      '2026-03-10T10:00:00Z',
      ['03-10 08:15', '08:30', '08:45', '09:00', '09:15', '09:30', '09:45', '10:00'],
    ],
    [
      'two days: every 6 h, the date where it changes',
      '2026-03-10T08:00:05Z',
      '2026-03-12T08:00:00Z',
      ['03-10 12:00', '18:00', '03-11 00:00', '06:00', '12:00', '18:00', '03-12 00:00', '06:00'],
    ],
    [
      'two weeks: every 2 days, dates only',
      '2026-03-01T10:00:00Z',
      '2026-03-15T10:00:00Z',
      ['2026-03-02', '2026-03-04', '2026-03-06', '2026-03-08', '2026-03-10', '2026-03-12', '2026-03-14'],
    ],
  ])('labels %s in UTC', (_, from, to, labels) => {
    expect(axisTicks(at(from), at(to)).map((t) => t.utc)).toEqual(labels);
  });

  it("labels the same ticks in the job's zone, across the spring-forward change", () => {
    const ticks = axisTicks(at('2026-03-28T22:00:00Z'), at('2026-03-29T04:00:00Z'), 'Europe/Berlin');
    expect(ticks.map((t) => [t.utc, t.local])).toEqual([
      ['03-28 22:00', '03-28 23:00'],
      ['23:00', '03-29 00:00'],
      ['03-29 00:00', '01:00'],
      ['01:00', '03:00'],
      ['02:00', '04:00'],
      ['03:00', '05:00'],
      ['04:00', '06:00'],
    ]);
  });

  it('shows an instant in UTC and in the zone, with milliseconds only when it has them', () => {
    expect(formatInstant(at('2026-03-10T09:30:00Z'))).toBe('2026-03-10 09:30:00Z');
    expect(formatInstant(at('2026-03-10T08:00:05.266Z'), 'Europe/Berlin')).toBe(
      '2026-03-10 08:00:05.266Z (09:00:05 Europe/Berlin)',
    );
    expect(formatInstant(at('2026-03-10T23:30:00Z'), 'Asia/Shanghai')).toBe(
      '2026-03-10 23:30:00Z (2026-03-11 07:30:00 Asia/Shanghai)',
    );
    expect(localInstant(at('2026-03-10T23:30:00Z'), 'Asia/Shanghai')).toBe('2026-03-11 07:30:00');
  });

  it.each([
    [850, '850 ms'],
    [12_500, '12.5 s'],
    [303_000, '5 min 3 s'],
    [7_265_000, '2 h 1 min'],
    [172_795_000, '1 d 23 h'],
  ])('reads a span of %d ms as %s', (ms, text) => {
    expect(formatSpan(ms)).toBe(text);
  });
});
