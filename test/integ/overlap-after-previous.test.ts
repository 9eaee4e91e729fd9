/**
 * Overlap policy after-previous (integ: DynamoDB Local; in-process handler calls on a frozen test
 * clock): occurrence N claims only once N−1 succeeded. A failed N−1 holds N and N+1 back (recorded
 * `skipped / waiting-for-previous`, a problem once past the bound); the sweeper catches N−1 up and then
 * starts the waiting slots one per sweep, in slot order; a manual run honours the policy too.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { frozenClock, ID, invoke, overlapJob, rows, sweepTargetOf, T } from '../helpers/overlap-scenario.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

describe('overlap: after-previous', () => {
  it('waits for a failed predecessor, which succeeds through catch-up; then the waiting slots run in slot order', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const calls: string[] = [];
    let ledgerUp = true;
    const job = overlapJob('ov-after', 'after-previous', calls, new Map(), async (ctx) => {
      if (!ledgerUp && ctx.slot.id === ID('10:00')) throw new Error('ledger down');
      await ctx.insertOnce(stack.reports, { reportDate: ctx.slot.id }, { by: ctx.runId });
    }).withDeps(() => w.deps);
    expect(job.job.overlap).toEqual({ policy: 'after-previous', waitingProblemAfterSeconds: 360 });
    expect(await invoke(job, clock, '09:57')).toMatchObject({ outcome: 'succeeded' });
    ledgerUp = false;
    // The body's error is rethrown for Lambda's retry; the run is recorded failed / error.
    await expect(invoke(job, clock, '10:00')).rejects.toThrow('ledger down');
    ledgerUp = true;
    const waiting = [await invoke(job, clock, '10:03'), await invoke(job, clock, '10:06')];
    expect(waiting.map((r) => `${r.outcome}/${r.reason}`)).toEqual([
      'skipped/waiting-for-previous',
      'skipped/waiting-for-previous',
    ]);
    const invoked: string[] = [];
    const target = sweepTargetOf(job, invoked, (t) => t.slice(11, 16));
    const deps = { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined };
    clock.setTo(T('10:30'));
    const first = await sweep(deps, [target]);
    expect(invoked).toEqual(['10:00']);
    // 10:03 and 10:06 have waited longer than two periods (360 s): counted once each.
    expect(first.problems).toEqual([
      { job: 'ov-after', slot: ID('10:03'), outcome: 'skipped', reason: 'waiting-too-long' },
      { job: 'ov-after', slot: ID('10:06'), outcome: 'skipped', reason: 'waiting-too-long' },
    ]);
    // Each problem record names the slot it waits for (`cronfence why` prints it).
    expect(
      (await stack.runRecords('ov-after'))
        .filter((r) => r.reason === 'waiting-too-long')
        .map((r) => `${r.slot} waits for ${String((r.details as { waitingFor?: string }).waitingFor)}`)
        .sort(),
    ).toEqual([`${ID('10:03')} waits for ${ID('10:00')}`, `${ID('10:06')} waits for ${ID('10:03')}`]);
    // A manual run of 10:09 honours the policy: 10:06 has not succeeded yet.
    clock.setTo(T('10:31'));
    const manual = {
      job: 'ov-after',
      scheduledTime: '2026-05-01T10:09:00Z',
      trigger: 'manual',
      requestedBy: 'ops',
    };
    expect(await job(manual, lambdaContext('ov-after', 900))).toMatchObject({
      outcome: 'skipped',
      reason: 'waiting-for-previous',
      trigger: 'manual',
    });
    for (const hhmm of ['10:32', '10:33', '10:34', '10:35']) {
      clock.setTo(T(hhmm));
      const again = await sweep(deps, [target]);
      expect(again.problems.filter((p) => p.reason === 'waiting-too-long').map((p) => p.slot)).toEqual(
        hhmm === '10:32' ? [ID('10:09')] : [],
      );
    }
    expect(invoked).toEqual(['10:00', '10:03', '10:06', '10:09']);
    expect(calls).toEqual([ID('09:57'), ID('10:00'), ID('10:00'), ID('10:03'), ID('10:06'), ID('10:09')]);
    const succeeded = (await stack.runRecords('ov-after'))
      .filter((r) => r.outcome === 'succeeded')
      .sort((a, b) => Number(a.finishedAtMs) - Number(b.finishedAtMs))
      .map((r) => r.slot);
    expect(succeeded).toEqual([ID('09:57'), ID('10:00'), ID('10:03'), ID('10:06'), ID('10:09')]);
    expect(await rows(stack, 'ov-after')).toEqual([
      `${ID('09:57')} schedule succeeded/- 1`,
      `${ID('10:00')} schedule failed/error 2`,
      `${ID('10:00')} catch-up succeeded/- 3`,
      `${ID('10:03')} schedule skipped/waiting-for-previous -`,
      `${ID('10:03')} catch-up skipped/waiting-too-long -`,
      `${ID('10:03')} catch-up succeeded/- 4`,
      `${ID('10:06')} schedule skipped/waiting-for-previous -`,
      `${ID('10:06')} catch-up skipped/waiting-too-long -`,
      `${ID('10:06')} catch-up succeeded/- 5`,
      `${ID('10:09')} manual skipped/waiting-for-previous -`,
      `${ID('10:09')} catch-up skipped/waiting-too-long -`,
      `${ID('10:09')} catch-up succeeded/- 6`,
    ]);
  });

  it('catches up a never-delivered predecessor first, with catchUp all: slots run in slot order, one per sweep', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const calls: string[] = [];
    const job = overlapJob('ov-after-missed', 'after-previous', calls, new Map(), undefined, {
      catchUp: { mode: 'all', windowHours: 1, maxSlotsPerSweep: 50 },
    }).withDeps(() => w.deps);
    expect(await invoke(job, clock, '09:57')).toMatchObject({ outcome: 'succeeded' });
    // 10:00 is never delivered; 10:03 arrives and waits for it.
    expect(await invoke(job, clock, '10:03')).toMatchObject({ reason: 'waiting-for-previous' });
    const invoked: string[] = [];
    const target = sweepTargetOf(job, invoked, (t) => t.slice(11, 16));
    const deps = { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined };
    for (const hhmm of ['10:12', '10:13', '10:14']) {
      clock.setTo(T(hhmm));
      await sweep(deps, [target], 120_000);
    }
    expect(invoked).toEqual(['10:00', '10:03', '10:06']);
    expect(calls).toEqual([ID('09:57'), ID('10:00'), ID('10:03'), ID('10:06')]);
  });

  it('counts a slot waiting behind a predecessor that keeps failing, also for a definition built without defineJob', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const job = overlapJob('ov-after-stuck', 'after-previous', [], new Map(), async (ctx) => {
      if (ctx.slot.id === ID('10:00')) throw new Error('ledger down');
    }).withDeps(() => w.deps);
    await invoke(job, clock, '09:57');
    await expect(invoke(job, clock, '10:00')).rejects.toThrow('ledger down');
    expect(await invoke(job, clock, '10:03')).toMatchObject({ reason: 'waiting-for-previous' });
    // No bound on the definition: the sweeper takes two periods (360 s).
    const definition = { ...job.job, overlap: { policy: 'after-previous' as const } };
    const invoked: string[] = [];
    const target = {
      definition,
      expression: job.expression,
      startMs: 0,
      invoke: async (p: Record<string, unknown>) => void invoked.push(String(p.scheduledTime).slice(11, 16)),
    };
    const deps = { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined };
    clock.setTo(T('10:08'));
    const early = await sweep(deps, [target], 60_000);
    expect(early.problems).toEqual([]);
    clock.setTo(T('10:10'));
    const late = await sweep(deps, [target], 60_000);
    expect(late.problems).toEqual([
      { job: 'ov-after-stuck', slot: ID('10:03'), outcome: 'skipped', reason: 'waiting-too-long' },
    ]);
    expect(invoked).toEqual(['10:00', '10:00']);
  });
});
