/**
 * Unit (no network): the fixed-position readers of a minute's text (lib/core/schedule/calendar.ts
 * `minuteOfText`, `parseNaive`, `daysInMonth`) and the done key built on them (lib/core/lease.ts `doneKey`) agree
 * with Date-based references on random texts: real minutes of every century the types allow, rolled-over
 * fields (`02-30`, `24:00`, `13` months), wrong separators, non-digits, short and long texts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { doneKey, slotIdOfDoneKey } from '../../lib/core/lease.js';
import { daysInMonth, minuteOfText, parseNaive } from '../../lib/core/schedule/calendar.js';

/** Reference: a regex, then the fields must survive a round trip through a Date (no roll-over). */
function referenceMinute(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(text);
  if (!m) return Number.NaN;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, 0, 0);
  const real =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi;
  return real ? date.getTime() / 60_000 : Number.NaN;
}

/** Reference done key: the key only when its decoding gives the id back exactly. */
function referenceDoneKey(slotId: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:00Z)?$/.exec(slotId);
  if (!m) return slotId;
  const minutes = referenceMinute(slotId);
  if (!(minutes >= 0)) return slotId;
  const digits = minutes.toString(36);
  if (digits.length > 6) return slotId;
  const key = digits.padStart(6, '0') + (m[6] ? 'z' : '');
  const iso = new Date(minutes * 60_000).toISOString();
  const back = m[6] ? `${iso.slice(0, 17)}00Z` : iso.slice(0, 16);
  return back === slotId ? key : slotId;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** Texts of the minute's shape whose fields may roll over, with any tail. */
const fieldsText = fc
  .record({
    y: fc.integer({ min: 0, max: 9999 }),
    mo: fc.integer({ min: 0, max: 13 }),
    d: fc.integer({ min: 0, max: 32 }),
    h: fc.integer({ min: 0, max: 25 }),
    mi: fc.integer({ min: 0, max: 61 }),
    tail: fc.constantFrom('', ':00Z', ':30Z', ':00', ':59', ':60', 'Z', ':00.000Z', '+01:00'),
  })
  .map(
    ({ y, mo, d, h, mi, tail }) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}${tail}`,
  );
/** Real minutes of 1970–6100 (the done key's range and past it), local or UTC ids. */
const realId = fc
  .record({ minute: fc.integer({ min: 0, max: 2_176_782_336 + 100_000 }), utc: fc.boolean() })
  .map(({ minute, utc }) => {
    const iso = new Date(minute * 60_000).toISOString();
    return utc ? `${iso.slice(0, 17)}00Z` : iso.slice(0, 16);
  });
/** A real text with one character replaced by anything printable. */
const mangled = fc
  .tuple(realId, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }))
  .map(([t, i, c]) => t.slice(0, i % t.length) + c + t.slice((i % t.length) + 1));
const anyText = fc.oneof(fieldsText, realId, mangled, fc.string({ maxLength: 24 }));

describe('reading a minute from its text at fixed positions', () => {
  it('minuteOfText: the minute of a real calendar minute, NaN for any other text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(minuteOfText(text)).toBe(referenceMinute(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('parseNaive: `yyyy-MM-ddTHH:mm[:ss]` exactly, a real minute and seconds ≤ 59, as naive ms', () => {
    const reference = (text: string): number | undefined => {
      const m = /^(.{16})(?::(\d{2}))?$/.exec(text);
      const minute = m ? referenceMinute(text) : Number.NaN;
      const seconds = Number(m?.[2] ?? 0);
      return Number.isNaN(minute) || seconds > 59 ? undefined : minute * 60_000 + seconds * 1_000;
    };
    fc.assert(
      fc.property(anyText, (text) => {
        expect(parseNaive(text)).toBe(reference(text));
      }),
      { numRuns: 20_000 },
    );
    expect([
      parseNaive('2026-03-29T02:30'),
      parseNaive('2026-03-29T02:30:59'),
      parseNaive('2026-03-29T02:30:60'),
      parseNaive('2026-03-29T02:30Z'),
    ]).toEqual([Date.UTC(2026, 2, 29, 2, 30), Date.UTC(2026, 2, 29, 2, 30, 59), undefined, undefined]);
  });

  it('daysInMonth: a proleptic Gregorian month, leap years by the 4/100/400 rule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), (y, mo) => {
        const date = new Date(0);
        date.setUTCFullYear(y, mo, 0);
        expect(daysInMonth(y, mo)).toBe(date.getUTCDate());
      }),
      { numRuns: 5_000 },
    );
    expect([daysInMonth(1900, 2), daysInMonth(2000, 2), daysInMonth(2026, 2), daysInMonth(2028, 2)]).toEqual([
      28, 29, 28, 29,
    ]);
  });

  it('doneKey: the compact key exactly when it decodes to the id, else the id as it is', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const key = doneKey(text);
        expect(key).toBe(referenceDoneKey(text));
        if (key !== text) expect(slotIdOfDoneKey(key)).toBe(text);
      }),
      { numRuns: 20_000 },
    );
    expect([
      doneKey('2026-03-28T17:00'),
      doneKey('2026-03-28T17:00:00Z'),
      doneKey('2026-02-30T17:00'),
      doneKey('2026-03-28T24:00'),
      doneKey('1969-12-31T23:59'),
      doneKey('2026-03-28T17:00:30Z'),
    ]).toEqual([
      '0hlz0c',
      '0hlz0cz',
      '2026-02-30T17:00',
      '2026-03-28T24:00',
      '1969-12-31T23:59',
      '2026-03-28T17:00:30Z',
    ]);
  });
});
