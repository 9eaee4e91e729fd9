/**
 * The sweeper's start of a buffered slot by its age (integ: DynamoDB Local; in-process handler calls on a
 * frozen test clock). The holder releases with too little time left to run the buffered slot itself. A
 * sweep minutes later — inside its 10-minute grace, which leaves slots Scheduler may still deliver
 * alone — starts the buffered slot (it was delivered and waits), once; a sweep after the job's catch-up
 * window (`windowHours: 1`) has passed takes it off the buffer instead, runs nothing, and says why.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { sweep } from '../../lib/runtime/sweeper.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  frozenClock,
  type Gate,
  gate,
  heldFor,
  ID,
  invoke,
  leaseOf,
  overlapJob,
  rows,
  sweepTargetOf,
  T,
} from '../helpers/overlap-scenario.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

/** `name` under buffer-one: 10:00 stuck, 10:03 buffered, then the holder releases at 10:05 with 300 s left. */
async function bufferedBehindRelease(name: string) {
  const clock = frozenClock();
  const w = stack.worker({ clock });
  const calls: string[] = [];
  const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
  const job = overlapJob(name, 'buffer-one', calls, gates, undefined, {
    catchUp: { mode: 'none', windowHours: 1, maxSlotsPerSweep: 1 },
  }).withDeps(() => w.deps);
  let remainingMs = 890_000;
  const holder = invoke(job, clock, '10:00', { remainingMs: () => remainingMs });
  await heldFor(stack, name, ID('10:00'));
  expect(await invoke(job, clock, '10:03')).toMatchObject({ outcome: 'buffered', reason: 'overlap' });
  clock.setTo(T('10:05'));
  remainingMs = 300_000;
  gates.get(ID('10:00'))?.open();
  expect(await holder).toMatchObject({ outcome: 'succeeded', nextBuffered: ID('10:03') });
  expect(calls).toEqual([ID('10:00')]);
  const invoked: string[] = [];
  const deps = { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined };
  const sweepAt = (ms: number) => {
    clock.setTo(ms);
    return sweep(deps, [sweepTargetOf(job, invoked, (t) => t.slice(11, 16))]);
  };
  return { calls, invoked, sweepAt };
}

describe('overlap buffer-one: the sweeper and a buffered slot by its age', () => {
  it('starts a buffered slot younger than its grace once the lease is free, and only once', async () => {
    const b = await bufferedBehindRelease('ov-sweep-young');
    const first = await b.sweepAt(T('10:07'));
    expect(first.decisions.filter((d) => d.action !== 'ignored')).toEqual([
      { job: 'ov-sweep-young', slot: ID('10:03'), action: 'triggered', reason: 'buffered' },
    ]);
    expect(b.invoked).toEqual(['10:03']);
    expect(b.calls).toEqual([ID('10:00'), ID('10:03')]);
    const second = await b.sweepAt(T('10:08'));
    expect(second.decisions.filter((d) => d.action !== 'ignored')).toEqual([]);
    expect(await rows(stack, 'ov-sweep-young')).toEqual([
      `${ID('10:00')} schedule succeeded/- 1`,
      `${ID('10:03')} schedule buffered/overlap -`,
      `${ID('10:03')} catch-up succeeded/- 2`,
    ]);
    expect((await leaseOf(stack, 'ov-sweep-young'))?.buffered).toBeUndefined();
  });

  it('takes a buffered slot older than the catch-up window off the buffer and runs nothing for it', async () => {
    const b = await bufferedBehindRelease('ov-sweep-old');
    expect((await leaseOf(stack, 'ov-sweep-old'))?.buffered).toEqual(new Set(['0hn0grz']));
    // 10:03 is more than windowHours (1 h) before 11:20.
    const late = await b.sweepAt(T('11:20'));
    expect(late.decisions.filter((d) => d.slot === ID('10:03'))).toEqual([
      { job: 'ov-sweep-old', slot: ID('10:03'), action: 'skipped', reason: 'buffered-outside-window' },
    ]);
    expect(b.invoked.filter((x) => x === '10:03')).toEqual([]);
    expect(b.calls.filter((x) => x === ID('10:03'))).toEqual([]);
    expect((await leaseOf(stack, 'ov-sweep-old'))?.buffered).toBeUndefined();
  });
});
