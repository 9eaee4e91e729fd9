/** unit: what a backfill plan says about the slots later today than now (a `--to` date of today). */
import { describe, expect, it } from 'vitest';
import { laterTodayNote, planBackfill } from '../../../operate/backfill-plan.js';
import { hourly } from '../../helpers/hourly-job.js';

const plan = (to: string, now: string) =>
  planBackfill(hourly.job, hourly.expression, { from: '2026-11-30', to }, Date.parse(now));

describe('the later-slots-today count of a backfill plan', () => {
  it('counts the slots of today after now: 11 at 12:34 (13:00..23:00)', () => {
    const p = plan('2026-11-30', '2026-11-30T12:34:56Z');
    expect([p.slots.length, p.laterToday, laterTodayNote(p)]).toEqual([
      13,
      11,
      ' (11 later slot(s) today not included)',
    ]);
  });

  it('prints 0 when the range reaches now and no slot of today is left', () => {
    const p = plan('2026-11-30', '2026-11-30T23:30:00Z');
    expect([p.slots.length, p.laterToday, laterTodayNote(p)]).toEqual([
      24,
      0,
      ' (0 later slot(s) today not included)',
    ]);
  });

  it('says nothing for a range that ends before now', () => {
    const p = plan('2026-11-30', '2026-12-02T08:00:00Z');
    expect([p.slots.length, p.laterToday, laterTodayNote(p)]).toEqual([24, 0, '']);
  });
});
