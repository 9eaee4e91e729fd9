/**
 * Unit (in-memory store, virtual time): a job body may take its context apart — `run: async ({ slot,
 * fence, fencedPut, insertOnce, setDetail, nowMs, remainingTimeMs, throwIfAborted, signal }) => ...` —
 * and every method works unbound: the fenced row carries the run's fence, the insert-once row its status,
 * the detail lands on the run record. A spread of the context (`{ ...ctx }`, as a middleware that wraps
 * it does) keeps every field and method.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDeps } from '../../harness/drills/memory-deps.js';
import { Stage } from '../../harness/drills/stage.js';
import { MemoryDb } from '../../harness/memory/index.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import type { JobContext } from '../../lib/runtime/job-context.js';

const T0 = Date.parse('2026-03-28T01:30:05Z');
const SLOT = Date.parse('2026-03-28T01:30:00Z');

describe('a destructured job context', () => {
  it('writes under the run’s fence with methods taken off the context', async () => {
    let db: MemoryDb | undefined;
    const stage = new Stage(T0, (p) =>
      createMemoryDeps({ db: db as MemoryDb, clock: p.clock, faults: p.faults, pausePoint: p.pausePoint }),
    );
    db = new MemoryDb(() => stage.time.nowMs);
    const seen: Record<string, unknown> = {};
    let spread: string[] = [];
    const job = defineJob({
      name: 'apart',
      schedule: 'cron(30 1 * * ? *)',
      lease: { durationSeconds: 60 },
      timeoutSeconds: 120,
      run: async (ctx: JobContext) => {
        spread = Object.keys({ ...ctx }).sort();
        const {
          slot,
          fence,
          businessDate,
          fencedPut,
          insertOnce,
          setDetail,
          nowMs,
          remainingTimeMs,
          throwIfAborted,
          signal,
        } = ctx;
        throwIfAborted();
        seen.aborted = signal.aborted;
        seen.now = nowMs();
        seen.remainingPositive = remainingTimeMs() > 0;
        await fencedPut('reports', { reportDate: businessDate }, { slot: slot.id, body: 'daily' });
        const once = await insertOnce('payouts', { payoutId: `p#${businessDate}` }, { amountCents: 100 });
        seen.once = once.status;
        setDetail('fence', fence);
      },
    });
    const r = stage.deliver({
      worker: stage.worker('A'),
      handler: job,
      job: 'apart',
      scheduledTimeMs: SLOT,
      label: 'A',
    });
    await stage.run();
    const { summary } = await r;
    expect(summary?.outcome).toBe('succeeded');
    expect(seen).toEqual({ aborted: false, now: T0, remainingPositive: true, once: 'inserted' });
    expect(spread).toEqual([
      'businessDate',
      'effect',
      'fence',
      'fencedPut',
      'insertOnce',
      'job',
      'nowMs',
      'remainingTimeMs',
      'runId',
      'setDetail',
      'signal',
      'slot',
      'throwIfAborted',
      'trigger',
    ]);
    const report = db.scan('reports')[0];
    expect(report).toMatchObject({ reportDate: '2026-03-28', body: 'daily', 'cronfence:fence': 1 });
    const payout = db.scan('payouts')[0];
    expect(payout).toMatchObject({
      payoutId: 'p#2026-03-28',
      amountCents: 100,
      'cronfence:status': 'succeeded',
    });
    const record = db.scan('cronfence').find((i) => String(i.sk).startsWith('RUN#'));
    expect(record?.details).toEqual({ fence: 1 });
  });
});
