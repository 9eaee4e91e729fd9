/**
 * Operator backfills and triggers under the overlap policies (integ: DynamoDB Local; the operator API's
 * `backfill` / `trigger` with `local: true` run the job's handler in this process; one virtual clock,
 * vitest's fake `Date`, read by the operator, the handler's deps and the holder's worker alike). A
 * backfill arriving while a holder is stuck queues behind it under `buffer-*` (and the buffered slot
 * runs once, after the holder), displaces it under `replace` when a slot asked for is newer, and is
 * refused, nothing invoked, when the policy would only skip it (after-previous: overlap-backfill-order).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OverlapOption } from '../../lib/core/overlap.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  operatorScenario,
  operatorSweepTarget,
  ops,
  reportRows as rowsOfReports,
  summaryRows,
  sweepDeps,
} from '../helpers/overlap-operator.js';
import { heldFor, ID, leaseOf, rows, T } from '../helpers/overlap-scenario.js';
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

function scenario(name: string, overlap: OverlapOption) {
  const s = operatorScenario(stack, name, overlap);
  op = s.op;
  return s;
}

const reportRows = () => rowsOfReports(stack);

describe('overlap: a backfill while the holder is stuck', () => {
  it('buffer-one: buffers the first slot, refuses the rest (and a trigger) buffer-full, a duplicate is not buffered twice, the buffered slot runs once after the holder', async () => {
    vi.setSystemTime(T('10:00'));
    const s = scenario('ov-bf-buf1', 'buffer-one');
    // The holder's invocation has most of its time left when it releases: it runs the buffered slot itself.
    const holder = s.deliver('10:00', () => 890_000);
    await heldFor(stack, 'ov-bf-buf1', ID('10:00'));
    vi.setSystemTime(T('10:10'));
    const range = { from: ID('10:03'), to: ID('10:09') };
    const first = await s.handle().backfill({ ...range, ...ops });
    expect(first.counts).toEqual({ buffered: 1, skipped: 2 });
    expect(summaryRows(first)).toEqual([
      `${ID('10:03')} buffered/overlap -`,
      `${ID('10:06')} skipped/buffer-full -`,
      `${ID('10:09')} skipped/buffer-full -`,
    ]);
    // The same backfill delivered again: 10:03 already waits (no second place), the rest stay refused.
    vi.setSystemTime(T('10:11'));
    const again = await s.handle().backfill({ ...range, ...ops });
    expect(summaryRows(again)).toEqual([
      `${ID('10:03')} skipped/lease-held -`,
      `${ID('10:06')} skipped/buffer-full -`,
      `${ID('10:09')} skipped/buffer-full -`,
    ]);
    expect((await leaseOf(stack, 'ov-bf-buf1'))?.buffered).toEqual(new Set(['0hn0grz']));
    // A trigger goes the same way: not refused by the lease check, refused buffer-full by the policy.
    const trigger = await s.handle().trigger({ ...ops, slot: ID('10:09') });
    expect(trigger.records.map((r) => `${r.slot} ${r.trigger} ${r.outcome}/${r.reason}`)).toEqual([
      `${ID('10:09')} manual skipped/buffer-full`,
    ]);
    expect(trigger.succeeded).toBe(false);
    vi.setSystemTime(T('10:12'));
    s.open();
    expect(await holder).toMatchObject({ outcome: 'succeeded', fence: 1, nextBuffered: ID('10:03') });
    expect(s.calls).toEqual([ID('10:00'), ID('10:03')]);
    expect(await rows(stack, 'ov-bf-buf1')).toEqual([
      `${ID('10:00')} schedule succeeded/- 1`,
      `${ID('10:03')} manual buffered/overlap -`,
      `${ID('10:03')} manual skipped/lease-held -`,
      `${ID('10:03')} catch-up succeeded/- 2`,
      `${ID('10:06')} manual skipped/buffer-full -`,
      `${ID('10:06')} manual skipped/buffer-full -`,
      `${ID('10:09')} manual skipped/buffer-full -`,
      `${ID('10:09')} manual skipped/buffer-full -`,
      `${ID('10:09')} manual skipped/buffer-full -`,
    ]);
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03')]);
    expect(await leaseOf(stack, 'ov-bf-buf1')).toMatchObject({ fence: 2, holderState: 'released' });
  });

  it('buffer-all: buffers maxBuffered slots of the range; the sweeper starts the first, the rest follow in slot order, each once', async () => {
    vi.setSystemTime(T('10:00'));
    const s = scenario('ov-bf-bufall', { policy: 'buffer-all', maxBuffered: 2 });
    // The holder releases with too little time left to run the buffered slots itself.
    let remainingMs = 890_000;
    const holder = s.deliver('10:00', () => remainingMs);
    await heldFor(stack, 'ov-bf-bufall', ID('10:00'));
    vi.setSystemTime(T('10:10'));
    const result = await s.handle().backfill({ from: ID('10:03'), to: ID('10:09'), ...ops });
    expect(summaryRows(result)).toEqual([
      `${ID('10:03')} buffered/overlap -`,
      `${ID('10:06')} buffered/overlap -`,
      `${ID('10:09')} skipped/buffer-full -`,
    ]);
    vi.setSystemTime(T('10:12'));
    remainingMs = 300_000;
    s.open();
    expect(await holder).toMatchObject({ outcome: 'succeeded', nextBuffered: ID('10:03') });
    expect(s.calls).toEqual([ID('10:00')]);
    const invoked: string[] = [];
    vi.setSystemTime(T('10:30'));
    const report = await sweep(sweepDeps(s.w), [operatorSweepTarget(s, invoked)]);
    expect(report.decisions.filter((d) => d.action !== 'ignored')).toEqual([
      { job: 'ov-bf-bufall', slot: ID('10:03'), action: 'triggered', reason: 'buffered' },
    ]);
    expect(invoked).toEqual(['10:03']);
    expect(s.calls).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    const ran = (await stack.runRecords('ov-bf-bufall'))
      .filter((r) => r.outcome === 'succeeded')
      .sort((a, b) => Number(a.fence) - Number(b.fence))
      .map((r) => `${r.slot} ${r.trigger} ${r.requestedBy} ${r.fence}`);
    expect(ran).toEqual([
      `${ID('10:00')} schedule undefined 1`,
      `${ID('10:03')} catch-up sweeper 2`,
      `${ID('10:06')} catch-up release 3`,
    ]);
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    expect((await leaseOf(stack, 'ov-bf-bufall'))?.buffered).toBeUndefined();
  });

  it('replace: the backfill’s newer slot displaces the stuck holder, recorded stale / replaced; its slot is caught up once; a range not newer than the holder is refused', async () => {
    vi.setSystemTime(T('10:00'));
    const s = scenario('ov-bf-replace', 'replace');
    const holder = s.deliver('10:00');
    await heldFor(stack, 'ov-bf-replace', ID('10:00'));
    vi.setSystemTime(T('10:10'));
    // 09:57 is older than the holder's slot: replace would not displace it, so nothing is invoked.
    const refused = await rejection(s.handle().backfill({ from: ID('09:57'), to: ID('09:57'), ...ops }));
    expect([refused.name, refused.message]).toEqual([
      'LeaseBusyError',
      `job ov-bf-replace: lease JOB#ov-bf-replace is held by run ${String((await leaseOf(stack, 'ov-bf-replace'))?.owner)} (slot ${ID('10:00')}, fence 1) until 2026-05-01T10:15:00Z: nothing invoked (a manual run now would only be recorded skipped / overlap (overlap replace displaces a holder of an older slot only)); wait until that run records its outcome or its lease ends (cronfence lease ov-bf-replace), then retry`,
    ]);
    expect(await rows(stack, 'ov-bf-replace')).toEqual([]);
    const result = await s.handle().backfill({ from: ID('10:03'), to: ID('10:06'), ...ops });
    expect(summaryRows(result)).toEqual([`${ID('10:03')} succeeded/- 2`, `${ID('10:06')} succeeded/- 3`]);
    vi.setSystemTime(T('10:11'));
    s.open();
    expect(await holder).toMatchObject({ outcome: 'stale', reason: 'replaced', fence: 1 });
    expect(await rows(stack, 'ov-bf-replace')).toEqual([
      `${ID('10:00')} schedule stale/replaced 1`,
      `${ID('10:03')} manual succeeded/- 2`,
      `${ID('10:06')} manual succeeded/- 3`,
    ]);
    expect(s.calls).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    // The displaced run had not learned of its displacement (no renewal was due yet): its insert-once of
    // its own slot's row, a key no successor writes, was refused by the lease check in its transaction.
    expect(await reportRows()).toEqual([ID('10:03'), ID('10:06')]);
    expect(await leaseOf(stack, 'ov-bf-replace')).toMatchObject({ fence: 3, holderState: 'released' });
    // The sweeper catches the replaced slot up: it writes that row, once.
    vi.setSystemTime(T('10:30'));
    const invoked: string[] = [];
    const report = await sweep(sweepDeps(s.w), [operatorSweepTarget(s, invoked)]);
    expect(report.decisions.filter((d) => d.action === 'triggered').map((d) => d.slot)).toEqual([
      ID('10:00'),
    ]);
    expect(invoked).toEqual(['10:00']);
    expect(await rows(stack, 'ov-bf-replace')).toEqual([
      `${ID('10:00')} schedule stale/replaced 1`,
      `${ID('10:00')} catch-up succeeded/- 4`,
      `${ID('10:03')} manual succeeded/- 2`,
      `${ID('10:06')} manual succeeded/- 3`,
    ]);
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
  });
});
