import { describe, expect, it } from 'vitest';
import { catchUpFloorMs, planCatchUp, sweepWindow } from '../../../lib/core/schedule/catch-up.js';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../../lib/core/schedule/slot.js';

const at = (iso: string): number => Date.parse(iso);
const berlin = { schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' };
const ids = (slots: readonly Slot[]): string[] => slots.map((s) => s.id);

describe('planCatchUp: the 2026-03-28 … 03-31 Berlin example', () => {
  // Last success 2026-03-28T01:30Z, sweep at 2026-03-31T06:00Z; 03-29's 02:30 does not exist (shift).
  const expected = enumerateSlots(berlin, at('2026-03-28T00:00Z'), at('2026-03-31T06:00Z'));
  const succeededIds = new Set(['2026-03-28T02:30']);

  it('expects four slots, one of them shifted', () => {
    expect(expected.map((s) => `${s.businessDate}${s.shifted ? ' shifted' : ''}`)).toEqual([
      '2026-03-28',
      '2026-03-29 shifted',
      '2026-03-30',
      '2026-03-31',
    ]);
  });

  it.each([
    ['all', 10, ['2026-03-29T02:30', '2026-03-30T02:30', '2026-03-31T02:30'], [], []],
    ['all', 1, ['2026-03-29T02:30', '2026-03-30T02:30'], [['2026-03-31T02:30', 'catch-up-limit']], []],
    ['latest', 10, ['2026-03-29T02:30', '2026-03-31T02:30'], [['2026-03-30T02:30', 'superseded']], []],
    ['none', 10, ['2026-03-29T02:30'], [], ['2026-03-30T02:30', '2026-03-31T02:30']],
  ] as const)(
    'mode %s, cap %d: triggers %j, skips %j, ignores %j',
    (mode, cap, trigger, skipped, ignored) => {
      const plan = planCatchUp({ expected, succeededIds, mode, maxSlotsPerSweep: cap });
      expect(ids(plan.trigger)).toEqual(trigger);
      expect(plan.skipped.map((s) => [s.slot.id, s.reason])).toEqual(skipped);
      expect(ids(plan.ignored)).toEqual(ignored);
    },
  );

  it('triggers each business date once: 03-29, 03-30, 03-31', () => {
    const plan = planCatchUp({ expected, succeededIds, mode: 'all', maxSlotsPerSweep: 5 });
    expect(plan.trigger.map((s) => s.businessDate)).toEqual(['2026-03-29', '2026-03-30', '2026-03-31']);
  });

  it('does nothing once every slot succeeded', () => {
    const all = new Set(ids(expected));
    expect(planCatchUp({ expected, succeededIds: all, mode: 'all', maxSlotsPerSweep: 5 })).toEqual({
      trigger: [],
      skipped: [],
      ignored: [],
      beforeStart: [],
    });
  });

  it('ignores duplicate expected slots and unsorted input', () => {
    const shuffled = [...expected, ...expected].reverse();
    const plan = planCatchUp({ expected: shuffled, succeededIds, mode: 'all', maxSlotsPerSweep: 5 });
    expect(ids(plan.trigger)).toEqual(['2026-03-29T02:30', '2026-03-30T02:30', '2026-03-31T02:30']);
  });

  it('with latest mode, runs nothing old when the newest slot already succeeded', () => {
    const done = new Set(['2026-03-28T02:30', '2026-03-31T02:30']);
    const plan = planCatchUp({ expected, succeededIds: done, mode: 'latest', maxSlotsPerSweep: 1 });
    expect(ids(plan.trigger)).toEqual(['2026-03-29T02:30']);
    expect(plan.skipped.map((s) => [s.slot.id, s.reason])).toEqual([['2026-03-30T02:30', 'superseded']]);
  });
});

describe('planCatchUp: Sydney fall-back (no false "missed")', () => {
  it('finds nothing missing when every delivered instant succeeded', () => {
    const source = { schedule: 'cron(0/30 * * * ? *)', timeZone: 'Australia/Sydney' };
    const expected = enumerateSlots(source, at('2026-04-04T12:00Z'), at('2026-04-04T20:00Z'));
    const plan = planCatchUp({
      expected,
      succeededIds: new Set(ids(expected)),
      mode: 'all',
      maxSlotsPerSweep: 100,
    });
    expect(plan.trigger).toEqual([]);
    expect(expected.filter((s) => s.id.startsWith('2026-04-05T02:')).map((s) => s.scheduledTimeMs)).toEqual([
      at('2026-04-04T15:00Z'),
      at('2026-04-04T15:30Z'),
    ]);
  });
});

describe('sweepWindow', () => {
  it('looks back windowHours and leaves the grace period alone', () => {
    expect(sweepWindow(at('2026-03-31T06:00Z'), 72, 600_000)).toEqual({
      fromMs: at('2026-03-28T06:00Z'),
      toMs: at('2026-03-31T05:50Z'),
    });
  });
});

describe('planCatchUp: the catch-up floor (catchUp.since)', () => {
  const daily = { schedule: 'cron(0 1 * * ? *)', timeZone: 'UTC' };
  const expected = enumerateSlots(
    daily,
    Date.parse('2026-11-01T14:00:00Z'),
    Date.parse('2026-11-05T14:00:00Z'),
  );
  const floorMs = catchUpFloorMs({ sinceMs: Date.parse('2026-11-04T14:00:00Z') });

  it('never triggers a slot before the floor, in mode all: the three days before a 14:00 deploy are beforeStart', () => {
    const plan = planCatchUp({
      expected,
      succeededIds: new Set(),
      mode: 'all',
      maxSlotsPerSweep: 5,
      ...(floorMs !== undefined && { floorMs }),
    });
    expect(plan.beforeStart.map((s) => s.id)).toEqual([
      '2026-11-02T01:00',
      '2026-11-03T01:00',
      '2026-11-04T01:00',
    ]);
    expect(plan.trigger.map((s) => s.id)).toEqual(['2026-11-05T01:00']);
    expect(plan.skipped).toEqual([]);
  });

  it('latest picks the newest slot at or after the floor; with none after it, nothing is triggered', () => {
    const before = expected.filter((s) => s.scheduledTimeMs < (floorMs ?? 0));
    const plan = planCatchUp({
      expected: before,
      succeededIds: new Set(),
      mode: 'latest',
      maxSlotsPerSweep: 1,
      floorMs: floorMs ?? 0,
    });
    expect(plan.trigger).toEqual([]);
    expect(plan.skipped).toEqual([]);
    expect(plan.beforeStart.map((s) => s.id)).toEqual([
      '2026-11-02T01:00',
      '2026-11-03T01:00',
      '2026-11-04T01:00',
    ]);
  });

  it('has no floor without since', () => {
    expect(catchUpFloorMs(undefined)).toBeUndefined();
    expect(catchUpFloorMs({})).toBeUndefined();
    expect(floorMs).toBe(Date.parse('2026-11-04T14:00:00Z'));
  });
});
