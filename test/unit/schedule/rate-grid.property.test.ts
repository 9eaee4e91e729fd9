/**
 * Unit (no network): rate slots against an independent oracle of EventBridge Scheduler's rule. A
 * rate schedule runs at its StartDate and every period after it (Scheduler user guide, "Rate-based
 * schedules"); synth deploys as StartDate the first instant of the job's rate grid at or after the
 * deploy — counted back from `rateAnchor` when the anchor is later. The oracle finds that instant by
 * stepping the grid one period at a time (no division, nothing from the code under test) and lists
 * what Scheduler then delivers; the product's enumeration from the deploy on must list the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schedulerStartDate } from '../../../cdk/constructs/schedule-check.js';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import { parseScheduleExpression } from '../../../lib/core/schedule/expression.js';

const MINUTE = 60_000;
const ZONES = Intl.supportedValuesOf('timeZone');

/** Scheduler's StartDate as synth must deploy it: the first grid instant at or after `deployMs`, by stepping. */
function oracleStartDate(anchorMs: number, periodMs: number, deployMs: number): number {
  let t = anchorMs;
  while (t < deployMs) t += periodMs;
  while (t - periodMs >= deployMs) t -= periodMs;
  return t;
}

/** What Scheduler delivers in (fromMs, toMs]: StartDate, StartDate + period, … (never before StartDate). */
function oracleDeliveries(startDateMs: number, periodMs: number, fromMs: number, toMs: number): number[] {
  const out: number[] = [];
  for (let t = startDateMs; t <= toMs; t += periodMs) if (t > fromMs) out.push(t);
  return out;
}

const units = fc.oneof(
  fc.integer({ min: 1, max: 180 }).map((n) => `rate(${n} minute${n === 1 ? '' : 's'})`),
  fc.integer({ min: 1, max: 30 }).map((n) => `rate(${n} hour${n === 1 ? '' : 's'})`),
  fc.integer({ min: 1, max: 3 }).map((n) => `rate(${n} day${n === 1 ? '' : 's'})`),
);
const wholeMinute = (min: number, max: number) =>
  fc.integer({ min: min / MINUTE, max: max / MINUTE }).map((m) => m * MINUTE);
const deploy = wholeMinute(Date.UTC(2026, 0, 1), Date.UTC(2026, 11, 1)).chain((d) =>
  fc.tuple(
    fc.constant(d),
    fc.integer({ min: 0, max: 59_999 }).map((ms) => d + ms),
  ),
);

describe('rate slots against an oracle of Scheduler (random zones, rates, anchors before and after the deploy)', () => {
  it('lists exactly what Scheduler delivers from the synthesized StartDate, anchor later or earlier than the deploy', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        units,
        deploy,
        fc.integer({ min: -400, max: 400 }),
        fc.integer({ min: 0, max: 3 * 24 * 60 }),
        fc.integer({ min: 1, max: 4 * 24 * 60 }),
        (timeZone, schedule, [, deployMs], anchorSteps, lookbackMin, spanMin) => {
          const expr = parseScheduleExpression(schedule);
          if (expr.kind !== 'rate') throw new Error('not a rate');
          const anchorMs = Math.ceil(deployMs / MINUTE) * MINUTE + anchorSteps * expr.periodMs;
          const startDateMs = oracleStartDate(anchorMs, expr.periodMs, deployMs);
          // Synth deploys the oracle's StartDate.
          expect(
            schedulerStartDate(
              { name: 'j', rateAnchorMs: anchorMs },
              expr,
              undefined,
              new Date(deployMs),
            )?.getTime(),
          ).toBe(startDateMs);
          const fromMs = deployMs - lookbackMin * MINUTE;
          const toMs = deployMs + spanMin * MINUTE;
          const delivered = oracleDeliveries(startDateMs, expr.periodMs, fromMs, toMs);
          // The product's slots from the deployed start on (its catch-up floor is the deploy instant).
          const slots = enumerateSlots(
            { schedule: expr, timeZone, startMs: anchorMs },
            Math.max(fromMs, deployMs - 1),
            toMs,
          );
          expect(slots.map((s) => s.scheduledTimeMs)).toEqual(delivered);
          expect(slots.map((s) => s.id)).toEqual(
            delivered.map((ms) => new Date(ms).toISOString().replace('.000Z', 'Z')),
          );
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000); // property runs: sized for a loaded 2-core machine

  it('keeps the example: rate(1 hour) anchored 18:00, deployed 14:10 → Scheduler and the slots both start 15:00', () => {
    const expr = parseScheduleExpression('rate(1 hour)');
    const anchorMs = Date.parse('2026-11-01T18:00:00Z');
    const deployMs = Date.parse('2026-11-01T14:10:00Z');
    const start = schedulerStartDate(
      { name: 'j', rateAnchorMs: anchorMs },
      expr,
      undefined,
      new Date(deployMs),
    );
    expect(start?.toISOString()).toBe('2026-11-01T15:00:00.000Z');
    const ids = enumerateSlots(
      { schedule: expr, timeZone: 'Europe/Berlin', startMs: anchorMs },
      deployMs,
      Date.parse('2026-11-01T19:00:00Z'),
    ).map((s) => s.id);
    expect(ids).toEqual([
      '2026-11-01T15:00:00Z',
      '2026-11-01T16:00:00Z',
      '2026-11-01T17:00:00Z',
      '2026-11-01T18:00:00Z',
      '2026-11-01T19:00:00Z',
    ]);
  });
});
