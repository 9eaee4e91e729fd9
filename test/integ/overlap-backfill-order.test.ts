/**
 * Operator backfills under overlap `after-previous` (integ: DynamoDB Local; the operator API's `backfill`
 * and `trigger` with `local: true`; one virtual clock, vitest's fake `Date`): a backfill runs its slots in
 * slot order, each only once its predecessor succeeded — a range that starts at the failed slot runs it
 * and then the slots waiting behind it; a range that leaves the failed slot out waits, and the sweeper
 * then runs the chain in slot order, one slot per sweep. While a holder is live the backfill is refused
 * (nothing invoked): every run would only wait.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sweep } from '../../lib/runtime/sweeper.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  operatorScenario,
  operatorSweepTarget,
  ops,
  reportRows,
  summaryRows,
  sweepDeps,
} from '../helpers/overlap-operator.js';
import { heldFor, ID, rows, T } from '../helpers/overlap-scenario.js';
import { rejection } from './operate-harness.js';

let stack: LocalStack;
let op: Operator | undefined;
beforeEach(async () => {
  stack = await localStack();
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  op?.close();
  op = undefined;
  vi.useRealTimers();
});

/**
 * `name` under after-previous with 09:57 succeeded, 10:00 failed (the ledger was down) and 10:03, 10:06
 * waiting for it; the ledger is back afterwards.
 */
async function failedPredecessor(name: string) {
  let ledgerDown = false;
  const s = operatorScenario(stack, name, 'after-previous', (slot) => ledgerDown && slot === ID('10:00'), {
    catchUp: { mode: 'all', windowHours: 1, maxSlotsPerSweep: 50 },
  });
  op = s.op;
  s.open();
  vi.setSystemTime(T('09:57'));
  expect(await s.deliver('09:57')).toMatchObject({ outcome: 'succeeded', fence: 1 });
  ledgerDown = true;
  vi.setSystemTime(T('10:00'));
  await expect(s.deliver('10:00')).rejects.toThrow('ledger down');
  ledgerDown = false;
  for (const hhmm of ['10:03', '10:06']) {
    vi.setSystemTime(T(hhmm));
    expect(await s.deliver(hhmm)).toMatchObject({ outcome: 'skipped', reason: 'waiting-for-previous' });
  }
  return s;
}

const before = [`${ID('09:57')} schedule succeeded/- 1`, `${ID('10:00')} schedule failed/error 2`];

describe('overlap after-previous: backfill in slot order', () => {
  it('runs a range that starts at the failed slot in slot order, each after its predecessor', async () => {
    const s = await failedPredecessor('ov-bf-after');
    vi.setSystemTime(T('10:07'));
    const result = await s.handle().backfill({ from: ID('10:00'), to: ID('10:06'), ...ops });
    expect(result.succeeded).toBe(true);
    expect(summaryRows(result)).toEqual([
      `${ID('10:00')} succeeded/- 3`,
      `${ID('10:03')} succeeded/- 4`,
      `${ID('10:06')} succeeded/- 5`,
    ]);
    expect(s.calls).toEqual([ID('09:57'), ID('10:00'), ID('10:00'), ID('10:03'), ID('10:06')]);
    expect(await rows(stack, 'ov-bf-after')).toEqual([
      ...before,
      `${ID('10:00')} manual succeeded/- 3`,
      `${ID('10:03')} schedule skipped/waiting-for-previous -`,
      `${ID('10:03')} manual succeeded/- 4`,
      `${ID('10:06')} schedule skipped/waiting-for-previous -`,
      `${ID('10:06')} manual succeeded/- 5`,
    ]);
    expect(await reportRows(stack)).toEqual([ID('09:57'), ID('10:00'), ID('10:03'), ID('10:06')]);
  });

  it('leaves a range past the failed slot waiting; the sweeper runs the chain in slot order, one slot per sweep', async () => {
    const s = await failedPredecessor('ov-bf-after-wait');
    vi.setSystemTime(T('10:07'));
    const result = await s.handle().backfill({ from: ID('10:03'), to: ID('10:06'), ...ops });
    expect(summaryRows(result)).toEqual([
      `${ID('10:03')} skipped/waiting-for-previous -`,
      `${ID('10:06')} skipped/waiting-for-previous -`,
    ]);
    expect(s.calls).toEqual([ID('09:57'), ID('10:00')]);
    const invoked: string[] = [];
    const target = operatorSweepTarget(s, invoked);
    const order: string[][] = [];
    for (const hhmm of ['10:08', '10:09', '10:10', '10:11']) {
      vi.setSystemTime(T(hhmm));
      const report = await sweep(sweepDeps(s.w), [target], 60_000);
      order.push(report.decisions.filter((d) => d.action === 'triggered').map((d) => d.slot.slice(11, 16)));
    }
    // Each sweep starts the earliest slot not done; 10:09 (due meanwhile) follows 10:06.
    expect(order).toEqual([['10:00'], ['10:03'], ['10:06'], ['10:09']]);
    expect(invoked).toEqual(['10:00', '10:03', '10:06', '10:09']);
    const succeeded = (await stack.runRecords('ov-bf-after-wait'))
      .filter((r) => r.outcome === 'succeeded')
      .sort((a, b) => Number(a.fence) - Number(b.fence))
      .map((r) => `${String(r.slot).slice(11, 16)} ${r.trigger} ${r.fence}`);
    expect(succeeded).toEqual([
      '09:57 schedule 1',
      '10:00 catch-up 3',
      '10:03 catch-up 4',
      '10:06 catch-up 5',
      '10:09 catch-up 6',
    ]);
    expect(await reportRows(stack)).toEqual([
      ID('09:57'),
      ID('10:00'),
      ID('10:03'),
      ID('10:06'),
      ID('10:09'),
    ]);
  });

  it('refuses a backfill and a trigger while a holder is live (each run would only wait); nothing invoked', async () => {
    vi.setSystemTime(T('10:00'));
    const s = operatorScenario(stack, 'ov-bf-after-held', 'after-previous');
    op = s.op;
    const holder = s.deliver('10:00');
    await heldFor(stack, 'ov-bf-after-held', ID('10:00'));
    vi.setSystemTime(T('10:05'));
    const owner = String(
      (await stack.scan(stack.tableName)).find((i) => i.pk === 'JOB#ov-bf-after-held' && i.sk === 'LEASE')
        ?.owner,
    );
    const refusal = `job ov-bf-after-held: lease JOB#ov-bf-after-held is held by run ${owner} (slot ${ID('10:00')}, fence 1) until 2026-05-01T10:15:00Z: nothing invoked (a manual run now would only be recorded skipped / waiting-for-previous (overlap after-previous)); wait until that run records its outcome or its lease ends (cronfence lease ov-bf-after-held), then retry`;
    const b = await rejection(s.handle().backfill({ from: ID('10:03'), to: ID('10:03'), ...ops }));
    expect([b.name, b.message]).toEqual(['LeaseBusyError', refusal]);
    const t = await rejection(s.handle().trigger({ ...ops, slot: ID('10:03') }));
    expect([t.name, t.message]).toEqual(['LeaseBusyError', refusal]);
    s.open();
    expect(await holder).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(await rows(stack, 'ov-bf-after-held')).toEqual([`${ID('10:00')} schedule succeeded/- 1`]);
    expect(s.calls).toEqual([ID('10:00')]);
  });
});
