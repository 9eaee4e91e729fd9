/**
 * Lease renewal while the body runs, and abort on a refused renewal (integ: DynamoDB Local).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

const SLOT = Date.parse('2026-06-01T00:00:00Z');

describe('lease renewal', () => {
  it('keeps the lease while a body runs three times longer than the lease; a duplicate meanwhile is skipped lease-held', async () => {
    let renewedUntil = 0;
    const job = defineJob({
      name: 'long-body',
      schedule: 'cron(0 0 * * ? *)',
      lease: { durationSeconds: 1 },
      run: async (ctx) => {
        await new Promise((r) => setTimeout(r, 3_000));
        ctx.throwIfAborted();
        renewedUntil = ctx.nowMs();
      },
    });
    const w = stack.worker();
    const events: string[] = [];
    const deps = {
      ...w.deps,
      observe: (e: { type: string; ok?: boolean }) =>
        events.push(e.type === 'renew' ? `renew:${e.ok}` : e.type),
    };
    const h = job.withDeps(() => deps);
    const running = deliver(h, { job: 'long-body', scheduledTimeMs: SLOT, label: 'long' });
    await new Promise((r) => setTimeout(r, 2_000)); // past the original 1 s lease
    const dup = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'long-body', scheduledTimeMs: SLOT, label: 'dup' },
    );
    const done = await running;
    expect(dup.summary).toMatchObject({ outcome: 'skipped', reason: 'lease-held' });
    expect(done.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(renewedUntil).toBeGreaterThan(0);
    expect(events.filter((e) => e === 'renew:true').length).toBeGreaterThanOrEqual(5);
    expect(events.filter((e) => e === 'renew:false')).toEqual([]);
  });

  it('aborts the body through its AbortSignal when a renewal is refused, and records the run stale (lease-lost)', async () => {
    const sawAbort = gate();
    let abortReason = '';
    const job = defineJob({
      name: 'stolen',
      schedule: 'cron(0 0 * * ? *)',
      lease: { durationSeconds: 2 },
      run: async (ctx) => {
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            abortReason = (ctx.signal.reason as Error).name;
            sawAbort.open();
            resolve();
          });
        });
      },
    });
    const a = stack.worker();
    const running = deliver(
      job.withDeps(() => a.deps),
      { job: 'stolen', scheduledTimeMs: SLOT, label: 'A' },
    );
    await new Promise((r) => setTimeout(r, 200));
    // B's clock is 5 s fast: A's lease looks expired to it, so B takes the lease over (fence 2).
    const b = stack.worker({ clock: new ControlledClock(5_000) });
    const bRun = deliver(
      defineJob({
        name: 'stolen',
        schedule: 'cron(0 0 * * ? *)',
        lease: { durationSeconds: 2 },
        run: async () => undefined,
      }).withDeps(() => b.deps),
      { job: 'stolen', scheduledTimeMs: SLOT, label: 'B' },
    );
    await sawAbort.promise;
    const [aRes, bRes] = await Promise.all([running, bRun]);
    expect(abortReason).toBe('LeaseLostError');
    expect(aRes.summary).toMatchObject({ outcome: 'stale', reason: 'lease-lost', fence: 1 });
    expect(bRes.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    const records = await stack.runRecords('stolen');
    expect(records.map((r) => `${r.fence}:${r.outcome}:${r.reason ?? '-'}`).sort()).toEqual([
      '1:stale:lease-lost',
      '2:succeeded:-',
    ]);
  });
});
