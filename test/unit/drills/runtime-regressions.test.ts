/**
 * Regression tests for the violations the drills found (unit: in-memory store, virtual time). Each was
 * observed first as a FAILing drill on DynamoDB Local; see test/integ/drills.test.ts.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryDeps } from '../../../harness/drills/memory-deps.js';
import { Stage } from '../../../harness/drills/stage.js';
import { on, throttlingError } from '../../../harness/faults/sdk-faults.js';
import { MemoryDb } from '../../../harness/memory/index.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { FINISH_MARGIN_MS } from '../../../lib/runtime/run-session.js';

const T0 = Date.parse('2026-03-28T01:30:05Z');
const SLOT = Date.parse('2026-03-28T01:30:00Z');

const job = defineJob({
  name: 'regress',
  schedule: 'cron(30 1 * * ? *)',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async (ctx) => {
    for (const n of [1, 2, 3]) {
      ctx.throwIfAborted();
      await ctx.insertOnce('rows', { id: `${ctx.businessDate}#${n}` }, { n });
    }
  },
});

let db: MemoryDb;
let stage: Stage;
beforeEach(() => {
  stage = new Stage(T0, (p) =>
    createMemoryDeps({
      db,
      clock: p.clock,
      faults: p.faults,
      pausePoint: p.pausePoint,
      observe: p.observe,
      sleep: (ms) => p.clock.sleep(ms),
    }),
  );
  db = new MemoryDb(() => stage.time.nowMs);
});

const deliver = (worker: ReturnType<Stage['worker']>, delayMs = 0) =>
  stage.deliver({ worker, handler: job, job: 'regress', scheduledTimeMs: SLOT, label: worker.name }, delayMs);
const rowsBy = (runId: string | undefined) => db.scan('rows').filter((r) => r['cronfence:runId'] === runId);
const lease = () => db.scan('cronfence').find((i) => i.sk === 'LEASE');
const recordOf = (runId: string | undefined) =>
  db.scan('cronfence').find((i) => i.runId === runId && i.sk !== 'LEASE');

describe('a run that was paused or ran out of time', () => {
  it('does not send its write after its lease lapsed during a GC pause, even when nobody took over', async () => {
    const a = stage.worker('A');
    a.pauses.add({ name: 'GC pause 90 s', at: 'before-write', action: () => a.suspend(90_000) });
    const r = deliver(a);
    await stage.run();
    const { summary } = await r;
    expect(summary).toMatchObject({ outcome: 'stale', reason: 'lease-lost', fence: 1 });
    expect(db.scan('rows')).toEqual([]);
    expect(db.log.filter((w) => w.table === 'rows')).toEqual([]);
  });

  it('stops starting work at the Lambda deadline, records failed/deadline and releases the lease', async () => {
    const a = stage.worker('A');
    let writes = 0;
    a.pauses.add({
      name: 'stall before 3rd write past the timeout',
      at: 'before-write',
      when: () => ++writes === 3,
      action: () => a.clock.sleep(130_000),
    });
    const r = deliver(a);
    await stage.run();
    const { summary, error } = await r;
    expect(error?.name).toBe('DeadlineError');
    expect(summary).toMatchObject({ outcome: 'failed', reason: 'deadline', fence: 1 });
    expect(rowsBy(summary?.runId).map((x) => x.n)).toEqual([1, 2]);
    expect(recordOf(summary?.runId)).toMatchObject({ outcome: 'failed', reason: 'deadline' });
    // The record waits for the stalled write (which never starts: the run's authority ended), bounded by
    // the Lambda time left minus FINISH_MARGIN_MS: written by 119 s of the 120 s timeout.
    expect(Number(recordOf(summary?.runId)?.durationMs)).toBeLessThanOrEqual(120_000 - FINISH_MARGIN_MS);
    expect(lease()).toMatchObject({ holderState: 'released', leaseUntilMs: 0, fence: 1 });
  });
});

describe('throttling the first and last protocol steps', () => {
  it('records failed/store-error when the claim itself is throttled, and rethrows so Lambda retries', async () => {
    const a = stage.worker('A');
    a.faults.add({
      name: 'throttle claim',
      match: on.claim,
      action: { kind: 'fail', error: throttlingError },
      times: 4,
    });
    const r = deliver(a);
    await stage.run();
    const { summary, error } = await r;
    expect(error?.name).toBe('StoreError');
    expect(summary).toMatchObject({ outcome: 'failed', reason: 'store-error' });
    expect(summary?.fence).toBeUndefined();
    expect(recordOf(summary?.runId)).toMatchObject({
      outcome: 'failed',
      reason: 'store-error',
      problem: 'failed',
    });
    expect(lease()).toBeUndefined();
  });

  it('reports succeeded, like its record, when the release is throttled after the success was recorded', async () => {
    const a = stage.worker('A');
    a.faults.add({
      name: 'throttle release',
      match: on.release,
      action: { kind: 'fail', error: throttlingError },
      times: 4,
    });
    const r = deliver(a);
    await stage.run();
    const { summary, error } = await r;
    expect(error).toBeUndefined();
    expect(summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(recordOf(summary?.runId)).toMatchObject({ outcome: 'succeeded' });
    expect(lease()).toMatchObject({ holderState: 'running', fence: 1 }); // expires by itself
    expect(db.scan('rows')).toHaveLength(3);
  });
});
