/**
 * Overlap policies skip, buffer-one and buffer-all with a holder stuck past several periods (integ:
 * DynamoDB Local; the Lambda invocations are in-process handler calls on a frozen test clock): the
 * records per invocation, which slot ran when, the lease item's buffered slots, the sweeper's starts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../harness/local/scheduler-emulator.js';
import type { OverlapOption } from '../../lib/core/overlap.js';
import { bufferedEvent } from '../../lib/runtime/overlap-start.js';
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

/** A job whose 10:00 run is stuck at its gate, on one worker and clock. */
function stuck(name: string, overlap: OverlapOption | undefined) {
  const clock = frozenClock();
  const w = stack.worker({ clock });
  const calls: string[] = [];
  const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
  const job = overlapJob(name, overlap, calls, gates, async (ctx) => {
    await ctx.insertOnce(stack.reports, { reportDate: ctx.slot.id }, { by: ctx.runId });
  }).withDeps(() => w.deps);
  return { clock, w, calls, job, release: () => gates.get(ID('10:00'))?.open() };
}

async function reportRows(): Promise<string[]> {
  return (await stack.scan(stack.reports)).map((r) => String(r.reportDate)).sort();
}

describe('overlap: skip (the default)', () => {
  it('records every arrival under the stuck holder skipped/overlap and runs only the holder', async () => {
    const s = stuck('ov-skip', undefined);
    const holder = invoke(s.job, s.clock, '10:00');
    await heldFor(stack, 'ov-skip', ID('10:00'));
    const arrivals = [];
    for (const hhmm of ['10:03', '10:06', '10:09']) arrivals.push(await invoke(s.job, s.clock, hhmm));
    expect(arrivals.map((a) => `${a.outcome}/${a.reason}`)).toEqual([
      'skipped/overlap',
      'skipped/overlap',
      'skipped/overlap',
    ]);
    s.clock.setTo(T('10:12'));
    s.release();
    expect(await holder).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(s.calls).toEqual([ID('10:00')]);
    expect(await rows(stack, 'ov-skip')).toEqual([
      `${ID('10:00')} schedule succeeded/- 1`,
      `${ID('10:03')} schedule skipped/overlap -`,
      `${ID('10:06')} schedule skipped/overlap -`,
      `${ID('10:09')} schedule skipped/overlap -`,
    ]);
    expect((await leaseOf(stack, 'ov-skip'))?.buffered).toBeUndefined();
  });
});

describe('overlap: buffer-one', () => {
  it('buffers one arrival, refuses the others buffer-full, ignores a duplicate, and the release runs the buffered slot once', async () => {
    const s = stuck('ov-buf1', 'buffer-one');
    const holder = invoke(s.job, s.clock, '10:00');
    await heldFor(stack, 'ov-buf1', ID('10:00'));
    const buffered = await invoke(s.job, s.clock, '10:03');
    expect(buffered).toMatchObject({ outcome: 'buffered', reason: 'overlap' });
    expect((await leaseOf(stack, 'ov-buf1'))?.buffered).toEqual(new Set(['0hn0grz']));
    // A Scheduler retry of the buffered occurrence: not buffered twice (no write), not run twice.
    const duplicate = await invoke(s.job, s.clock, '10:03', { clockAt: T('10:04'), attempt: 2 });
    expect(duplicate).toMatchObject({ outcome: 'skipped', reason: 'lease-held' });
    const full = [await invoke(s.job, s.clock, '10:06'), await invoke(s.job, s.clock, '10:09')];
    expect(full.map((a) => `${a.outcome}/${a.reason}`)).toEqual([
      'skipped/buffer-full',
      'skipped/buffer-full',
    ]);
    s.clock.setTo(T('10:12'));
    s.release();
    expect(await holder).toMatchObject({ outcome: 'succeeded', fence: 1, nextBuffered: ID('10:03') });
    expect(s.calls).toEqual([ID('10:00'), ID('10:03')]);
    expect(await rows(stack, 'ov-buf1')).toEqual([
      `${ID('10:00')} schedule succeeded/- 1`,
      `${ID('10:03')} schedule buffered/overlap -`,
      `${ID('10:03')} retry skipped/lease-held -`,
      `${ID('10:03')} catch-up succeeded/- 2`,
      `${ID('10:06')} schedule skipped/buffer-full -`,
      `${ID('10:09')} schedule skipped/buffer-full -`,
    ]);
    const ran = (await stack.runRecords('ov-buf1')).find((r) => r.trigger === 'catch-up');
    expect(ran).toMatchObject({ requestedBy: 'release', requestReason: 'buffered' });
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03')]);
    const item = await leaseOf(stack, 'ov-buf1');
    expect(item?.buffered).toBeUndefined();
    expect(item).toMatchObject({ fence: 2, holderState: 'released', lastSucceeded: ID('10:03') });
    // The sweeper finds nothing buffered: it starts nothing (buffer-full slots follow catch-up: none).
    const invoked: string[] = [];
    s.clock.setTo(T('10:40'));
    const report = await sweep(
      { leases: s.w.deps.leases, runs: s.w.deps.runs, clock: s.clock, log: () => undefined },
      [
        {
          definition: s.job.job,
          expression: s.job.expression,
          startMs: 0,
          invoke: async (p) => void invoked.push(String(p.scheduledTime)),
        },
      ],
    );
    expect(invoked).toEqual([]);
    expect(report.decisions.filter((d) => d.action !== 'ignored')).toEqual([]);
  });
});

describe('overlap: buffer-one, the holder dies', () => {
  it('a retry of the dead holder’s occurrence runs it first; its release runs the buffered slot', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const calls: string[] = [];
    const dead = gate();
    let first = true;
    // The first run of 10:00 stops renewing and never gets further (a process that died mid-run).
    const leases = new Proxy(w.deps.leases, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        if (prop !== 'renew') return v.bind(target);
        return (req: { slotId?: string }, ...rest: unknown[]) =>
          first ? new Promise(() => undefined) : v.call(target, req, ...rest);
      },
    });
    const job = overlapJob('ov-buf-dead', 'buffer-one', calls, new Map(), async (ctx) => {
      if (first) {
        first = false;
        await dead.promise;
      }
      await ctx.insertOnce(stack.reports, { reportDate: ctx.slot.id }, { by: ctx.runId });
    }).withDeps(() => ({ ...w.deps, leases }));
    void invoke(job, clock, '10:00');
    await heldFor(stack, 'ov-buf-dead', ID('10:00'));
    expect(await invoke(job, clock, '10:03')).toMatchObject({ outcome: 'buffered', reason: 'overlap' });
    // Lambda's retry of 10:00 after the dead holder's lease (900 s) ended: it claims, not lease-held.
    const retry = await invoke(job, clock, '10:00', { clockAt: T('10:16'), attempt: 2 });
    expect(retry).toMatchObject({ outcome: 'succeeded', fence: 2, nextBuffered: ID('10:03') });
    expect(calls).toEqual([ID('10:00'), ID('10:00'), ID('10:03')]);
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03')]);
    expect(await rows(stack, 'ov-buf-dead')).toEqual([
      `${ID('10:00')} schedule abandoned/not-released 1`,
      `${ID('10:00')} retry succeeded/- 2`,
      `${ID('10:03')} schedule buffered/overlap -`,
      `${ID('10:03')} catch-up succeeded/- 3`,
    ]);
    expect(await leaseOf(stack, 'ov-buf-dead')).toMatchObject({ fence: 3, lastSucceeded: ID('10:03') });
    expect((await leaseOf(stack, 'ov-buf-dead'))?.buffered).toBeUndefined();
  });
});

describe('overlap: buffer-all', () => {
  it('buffers maxBuffered arrivals, and the sweeper starts the first once the holder released without time to; they run in slot order', async () => {
    const s = stuck('ov-bufall', { policy: 'buffer-all', maxBuffered: 2 });
    // The holder's invocation is down to 300 s left when it releases: under half the timeout (450 s), so
    // its release runs nothing and leaves the buffered slots to the sweeper.
    let remainingMs = 890_000;
    const holder = invoke(s.job, s.clock, '10:00', { remainingMs: () => remainingMs });
    await heldFor(stack, 'ov-bufall', ID('10:00'));
    const arrivals = [];
    for (const hhmm of ['10:03', '10:06', '10:09', '10:12'])
      arrivals.push(await invoke(s.job, s.clock, hhmm));
    expect(arrivals.map((a) => `${a.outcome}/${a.reason}`)).toEqual([
      'buffered/overlap',
      'buffered/overlap',
      'skipped/buffer-full',
      'skipped/buffer-full',
    ]);
    s.clock.setTo(T('10:13'));
    remainingMs = 300_000;
    s.release();
    expect(await holder).toMatchObject({ outcome: 'succeeded', fence: 1, nextBuffered: ID('10:03') });
    expect(s.calls).toEqual([ID('10:00')]);
    expect((await leaseOf(stack, 'ov-bufall'))?.buffered).toEqual(new Set(['0hn0grz', '0hn0guz']));
    const invoked: string[] = [];
    const target = sweepTargetOf(s.job, invoked);
    const deps = { leases: s.w.deps.leases, runs: s.w.deps.runs, clock: s.clock, log: () => undefined };
    s.clock.setTo(T('10:30'));
    const first = await sweep(deps, [target]);
    expect(first.decisions.filter((d) => d.action !== 'ignored')).toEqual([
      { job: 'ov-bufall', slot: ID('10:03'), action: 'triggered', reason: 'buffered' },
    ]);
    // The first buffered run's release found 10:06 waiting and ran it in the same invocation.
    expect(invoked).toEqual(['2026-05-01T10:03:00Z']);
    expect(s.calls).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    // A late second start of 10:03 (the release path and the sweeper both starting it): the done set
    // refuses it, nothing runs twice. A minute later by the clock, so the records' start order is its own.
    s.clock.setTo(T('10:31'));
    const late = await s.job(
      bufferedEvent(s.job.job, s.job.expression, ID('10:03')),
      lambdaContext('ov-bufall', 900),
    );
    expect(late).toMatchObject({ outcome: 'skipped', reason: 'already-succeeded', trigger: 'catch-up' });
    expect(s.calls).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    s.clock.setTo(T('10:35'));
    const second = await sweep(deps, [target]);
    expect(second.decisions.filter((d) => d.action !== 'ignored')).toEqual([]);
    expect(await rows(stack, 'ov-bufall')).toEqual([
      `${ID('10:00')} schedule succeeded/- 1`,
      `${ID('10:03')} schedule buffered/overlap -`,
      `${ID('10:03')} catch-up succeeded/- 2`,
      `${ID('10:03')} catch-up skipped/already-succeeded -`,
      `${ID('10:06')} schedule buffered/overlap -`,
      `${ID('10:06')} catch-up succeeded/- 3`,
      `${ID('10:09')} schedule skipped/buffer-full -`,
      `${ID('10:12')} schedule skipped/buffer-full -`,
    ]);
    expect(await reportRows()).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    expect((await leaseOf(stack, 'ov-bufall'))?.buffered).toBeUndefined();
  });
});
