import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesCron, parseNaive } from '../../../lib/core/schedule/calendar.js';
import { dstWarnings } from '../../../lib/core/schedule/dst-warnings.js';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import { parseScheduleExpression } from '../../../lib/core/schedule/expression.js';
import { slotFromScheduledTime } from '../../../lib/core/schedule/slot.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const ZONES = Intl.supportedValuesOf('timeZone');

/** Independent oracle: the wall time of an instant straight from Intl, not from the code under test. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function wallTime(zone: string, ms: number): string {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

const int = (min: number, max: number) => fc.integer({ min, max });
const listOf = (min: number, max: number) =>
  fc.uniqueArray(int(min, max), { minLength: 1, maxLength: 3 }).map((v) => v.join(','));
const minutes = fc.oneof(fc.constant('*'), fc.constant('0/15'), int(0, 59).map(String), listOf(0, 59));
const hours = fc.oneof(
  fc.constant('*'),
  int(0, 23).map(String),
  listOf(0, 23),
  fc.tuple(int(0, 11), int(12, 23)).map(([a, b]) => `${a}-${b}`),
  int(0, 5).map((a) => `${a}/3`),
);
const days = fc.oneof(
  fc.constantFrom('* ?', 'L ?', 'LW ?', '? *', '? MON-FRI', '? SUN'),
  listOf(1, 31).map((d) => `${d} ?`),
  int(1, 31).map((d) => `${d}W ?`),
  int(1, 7).map((d) => `? ${d}L`),
  fc.tuple(int(1, 7), int(1, 5)).map(([d, n]) => `? ${d}#${n}`),
);
const anyCron = fc
  .tuple(minutes, hours, days, fc.oneof(fc.constant('*'), listOf(1, 12)))
  .map(([m, h, d, mon]) => {
    const [dom, dow] = d.split(' ');
    return `cron(${m} ${h} ${dom} ${mon} ${dow} *)`;
  });
/** Every day, every hour: sure to meet a transition inside the range. */
const denseCron = minutes.map((m) => `cron(${m} * * * ? *)`);
/** A cron Scheduler would ever fire: one matching no date at all (`31 ? 2`) is refused at parse. */
const firesSometime = (schedule: string): boolean => {
  try {
    parseScheduleExpression(schedule);
    return true;
  } catch {
    return false;
  }
};
const cron = fc.oneof(anyCron, denseCron).filter(firesSometime);
/** A start instant in 2000–2037, often in a month where DST usually changes. */
const from = fc.oneof(
  fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2037, 0, 1) }),
  fc
    .tuple(int(2000, 2036), fc.constantFrom(2, 3, 8, 9, 9, 10), int(0, 30 * 24 * 60))
    .map(([y, m, mins]) => Date.UTC(y, m, 1) + mins * MINUTE),
);
const zone = fc.constantFrom(...ZONES);
const span = int(1, 2 * 24 * 60).map((mins) => mins * MINUTE);

/** The zone's UTC offset at an instant per the Intl oracle, ms. */
function oracleOffset(timeZone: string, ms: number): number {
  const t = Math.floor(ms / MINUTE) * MINUTE;
  return Date.parse(`${wallTime(timeZone, t)}Z`) - t;
}

/** The first offset change after `fromMs` within a year (minute precision), per the Intl oracle. */
function nextTransition(timeZone: string, fromMs: number): number | undefined {
  const start = oracleOffset(timeZone, fromMs);
  for (let day = fromMs + DAY; day < fromMs + 370 * DAY; day += DAY) {
    if (oracleOffset(timeZone, day) === start) continue;
    let lo = (day - DAY) / MINUTE;
    let hi = day / MINUTE;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (oracleOffset(timeZone, mid * MINUTE) === start) lo = mid;
      else hi = mid;
    }
    return hi * MINUTE;
  }
  return undefined;
}

/** Zones with DST in some year of the range (their January and July offsets differ). */
const DST_ZONES = ZONES.filter((z) =>
  [2005, 2026].some((y) => oracleOffset(z, Date.UTC(y, 0, 1)) !== oracleOffset(z, Date.UTC(y, 6, 1))),
);

/** A zone and a range; `anchored` ranges straddle one of the zone's real transitions. */
const scenario = (anchoredOnly: boolean) =>
  fc
    .tuple(
      anchoredOnly ? fc.constantFrom(...DST_ZONES) : zone,
      from,
      span,
      fc.double({ min: 0, max: 1, noNaN: true }),
      anchoredOnly ? fc.constant(true) : fc.boolean(),
    )
    .map(([timeZone, fromMs, spanMs, where, anchored]) => {
      const transition = anchored
        ? nextTransition(timeZone, Math.floor(fromMs / MINUTE) * MINUTE)
        : undefined;
      // from < transition <= from + span: the transition instant itself is inside the range.
      const start = transition === undefined ? fromMs : transition - 1 - Math.floor(where * (spanMs - 1));
      return { timeZone, fromMs: start, spanMs };
    });

describe('enumerateSlots properties (random zones, crons and ranges across transitions)', () => {
  it('yields strictly increasing instants in (from, to], unique ids, wall times matching the cron', () => {
    fc.assert(
      fc.property(cron, scenario(false), (schedule, { timeZone, fromMs, spanMs }) => {
        const fields = parseScheduleExpression(schedule);
        if (fields.kind !== 'cron') return;
        const out = enumerateSlots({ schedule, timeZone, dstGap: 'skip' }, fromMs, fromMs + spanMs);
        const ids = new Set<string>();
        let last = fromMs;
        for (const slot of out) {
          expect(slot.scheduledTimeMs).toBeGreaterThan(last);
          last = slot.scheduledTimeMs;
          expect(ids.has(slot.id)).toBe(false);
          ids.add(slot.id);
          expect(matchesCron(fields.fields, parseNaive(slot.localTime) ?? Number.NaN)).toBe(true);
          expect(wallTime(timeZone, slot.scheduledTimeMs)).toBe(slot.localTime);
          expect(slotFromScheduledTime(slot.scheduledTimeMs, fields, timeZone, 'slot-date')).toEqual(slot);
        }
        expect(last).toBeLessThanOrEqual(fromMs + spanMs);
      }),
      { numRuns: 100 },
    );
  }, 60_000); // property runs: slow on a loaded 2-core machine

  it('equals a minute-by-minute oracle: first instant of each matching wall time, gaps absent', () => {
    fc.assert(
      fc.property(cron, scenario(true), (schedule, { timeZone, fromMs, spanMs }) => {
        const expr = parseScheduleExpression(schedule);
        if (expr.kind !== 'cron') return;
        const toMs = fromMs + spanMs;
        const seen = new Set<string>();
        const expected: string[] = [];
        // Scan from a day earlier so a repeated wall time's first instant is known.
        for (let t = Math.ceil((fromMs - DAY) / MINUTE) * MINUTE; t <= toMs; t += MINUTE) {
          const local = wallTime(timeZone, t);
          if (seen.has(local)) continue;
          seen.add(local);
          if (t > fromMs && matchesCron(expr.fields, parseNaive(local) ?? Number.NaN)) {
            expected.push(`${t} ${local}`);
          }
        }
        const actual = enumerateSlots({ schedule, timeZone, dstGap: 'skip' }, fromMs, toMs);
        expect(actual.map((s) => `${s.scheduledTimeMs} ${s.id}`)).toEqual(expected);
      }),
      { numRuns: 50 },
    );
  }, 60_000); // property runs: slow on a loaded 2-core machine

  it('with shift adds only flagged slots for nonexistent wall times, at the gap end', () => {
    fc.assert(
      fc.property(denseCron, scenario(true), (schedule, { timeZone, fromMs, spanMs }) => {
        const toMs = fromMs + spanMs;
        const skipped = enumerateSlots({ schedule, timeZone, dstGap: 'skip' }, fromMs, toMs);
        const shifted = enumerateSlots({ schedule, timeZone, dstGap: 'shift' }, fromMs, toMs);
        expect(shifted.filter((s) => !s.shifted)).toEqual(skipped);
        expect(new Set(shifted.map((s) => s.id)).size).toBe(shifted.length);
        for (let i = 1; i < shifted.length; i++) {
          expect(shifted[i]?.scheduledTimeMs).toBeGreaterThanOrEqual(shifted[i - 1]?.scheduledTimeMs ?? 0);
        }
        for (const slot of shifted.filter((s) => s.shifted)) {
          // The gap end: the wall clock jumped past the nominal time right at this instant.
          expect(wallTime(timeZone, slot.scheduledTimeMs) > slot.localTime).toBe(true);
          expect(wallTime(timeZone, slot.scheduledTimeMs - MINUTE) < slot.localTime).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  }, 60_000); // property runs: sized for a loaded 2-core machine

  it('warns exactly on the dates where a daily cron meets a gap (its shifted slots)', () => {
    fc.assert(
      fc.property(zone, int(0, 23), int(0, 59), int(2000, 2035), (timeZone, h, m, year) => {
        const schedule = `cron(${m} ${h} * * ? *)`;
        const fromMs = Date.UTC(year, 0, 1);
        const startDate = wallTime(timeZone, fromMs).slice(0, 10);
        const endDate = `${Number(startDate.slice(0, 4)) + 1}${startDate.slice(4)}`;
        const warned = dstWarnings({ schedule, timeZone }, fromMs, 1)
          .filter((w) => w.kind === 'nonexistent')
          .map((w) => w.date);
        const shifted = enumerateSlots(
          { schedule, timeZone, dstGap: 'shift' },
          fromMs - 2 * DAY,
          fromMs + 368 * DAY,
        )
          .filter((s) => s.shifted)
          .map((s) => s.localTime.slice(0, 10))
          .filter((d) => d >= startDate && d < endDate);
        expect(warned).toEqual(shifted);
      }),
      { numRuns: 60 },
    );
  }, 60_000); // property runs: slow on a loaded 2-core machine
});
