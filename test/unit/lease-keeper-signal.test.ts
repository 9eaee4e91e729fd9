/**
 * The lease keeper's signal and race (unit, a clock whose timers never fire): the signal's controller
 * is made when the signal is first read, so a run that never reads it makes none and its finish
 * dispatches nothing; whenever the signal is read — before the finish or after it — it carries the same
 * reason the run stopped with, and the body's race settles as the body does or rejects with the abort
 * reason, never after the body has settled.
 */
import { describe, expect, it } from 'vitest';
import type { Clock, LeaseStore } from '../../lib/core/ports.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { createJobContext, raceAbort } from '../../lib/runtime/job-context.js';
import { LeaseKeeper } from '../../lib/runtime/lease-keeper.js';
import { LeaseLostError } from '../../lib/store/errors.js';

const START_MS = Date.parse('2026-12-05T10:00:00Z');

function keeper() {
  const clock: Clock = { now: () => START_MS, setTimer: () => () => undefined };
  const k = new LeaseKeeper({
    leases: {} as LeaseStore,
    clock,
    ref: { job: 'nightly', runId: 'r1', fence: 0 },
    leaseMs: 60_000,
    renewFraction: 1 / 3,
    leaseUntilMs: START_MS + 60_000,
    remainingTimeMs: () => 600_000,
  });
  k.start({ fence: 4, leaseUntilMs: START_MS + 60_000 });
  return k;
}

describe("the lease keeper's signal", () => {
  it('read only after a finish: already aborted with RunFinishedError, the same reason assertHeld throws', () => {
    const k = keeper();
    k.finish();
    expect(k.aborted).toBe(true);
    expect(() => k.assertHeld()).toThrow(expect.objectContaining({ name: 'RunFinishedError' }));
    const signal = k.signal;
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe('RunFinishedError');
    expect(k.signal).toBe(signal);
    let thrown: unknown;
    try {
      k.assertHeld();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBe(signal.reason);
  });

  it('read before the finish: the finish aborts it once, with RunFinishedError', () => {
    const k = keeper();
    const reasons: string[] = [];
    k.signal.addEventListener('abort', () => reasons.push((k.signal.reason as Error).name));
    expect(k.signal.aborted).toBe(false);
    k.finish();
    k.finish();
    expect(reasons).toEqual(['RunFinishedError']);
  });

  it('a lost lease aborts the signal read later with the LeaseLostError, and a finish keeps that reason', () => {
    const k = keeper();
    const lost = new LeaseLostError('lease of nightly taken by r2');
    k.abort(lost);
    k.finish();
    expect(k.signal.reason).toBe(lost);
    expect(() => k.assertHeld()).toThrow(lost);
  });
});

describe("the lease keeper's race", () => {
  it('settles as the body does: its value, or its own error', async () => {
    const k = keeper();
    await expect(k.race(Promise.resolve(7))).resolves.toBe(7);
    const own = new Error('the body failed');
    await expect(k.race(Promise.reject(own))).rejects.toBe(own);
  });

  it('rejects with the abort reason when the run is aborted while the body runs', async () => {
    const k = keeper();
    const lost = new LeaseLostError('lease of nightly taken by r2');
    const body = new Promise<number>((resolve) => setTimeout(() => resolve(1), 50));
    const raced = k.race(body);
    k.abort(lost);
    await expect(raced).rejects.toBe(lost);
  });

  it('rejects at once when the run was aborted before the race began', async () => {
    const k = keeper();
    const lost = new LeaseLostError('lease of nightly taken by r2');
    k.abort(lost);
    await expect(k.race(new Promise<number>(() => undefined))).rejects.toBe(lost);
  });

  it('a finish after the body settled rejects nothing and makes no controller', async () => {
    const k = keeper();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await k.race(Promise.resolve('done'));
      k.finish();
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
      // Nothing had read the signal: the finish made no controller; read now, the signal is aborted.
      expect(k.signal.aborted).toBe(true);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe("the lease keeper's race, at the edges", () => {
  it('takes a body that returned no promise (a plain function) and settles with its value', async () => {
    const k = keeper();
    await expect(k.race(undefined)).resolves.toBeUndefined();
    await expect(k.race(5)).resolves.toBe(5);
  });

  it('a body that settled before an abort in the same turn decides the race', async () => {
    const k = keeper();
    const body = Promise.resolve(7);
    await body;
    const raced = k.race(body);
    k.abort(new LeaseLostError('lease of nightly taken by r2'));
    await expect(raced).resolves.toBe(7);
  });
});

describe('raceAbort on a job context', () => {
  function context(k: LeaseKeeper) {
    const deps = { clock: { now: () => START_MS } } as unknown as RuntimeDeps;
    return createJobContext({
      deps,
      job: 'nightly',
      slot: {
        id: '2026-12-05T10:00',
        scheduledTimeMs: START_MS,
        localTime: '2026-12-05T10:00',
        businessDate: '2026-12-05',
      },
      trigger: 'schedule' as never,
      runId: 'r1',
      fence: 4,
      abort: k,
      run: { remainingTimeMs: () => 600_000, pause: async () => undefined, emit: () => undefined },
      details: {},
    });
  }

  it('races a wrapped context (a Proxy, Object.create) through its signal: aborted with the lost lease', async () => {
    for (const wrap of [(c: object) => new Proxy(c, {}), (c: object) => Object.create(c)]) {
      const k = keeper();
      const ctx = wrap(context(k)) as ReturnType<typeof context>;
      const lost = new LeaseLostError('lease of nightly taken by r2');
      const raced = raceAbort(ctx, new Promise<number>(() => undefined));
      k.abort(lost);
      await expect(raced).rejects.toBe(lost);
    }
  });

  it('the context itself races through its keeper: no signal made when the body never reads it', async () => {
    const k = keeper();
    const ctx = context(k);
    await expect(raceAbort(ctx, Promise.resolve('done'))).resolves.toBe('done');
    const read = Object.getOwnPropertyDescriptor(ctx, 'signal');
    expect(typeof read?.get).toBe('function');
    expect(Object.keys({ ...ctx })).toContain('signal');
  });
});
