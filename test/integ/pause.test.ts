/**
 * Pause and resume at the lease (integ: DynamoDB Local; docs/design.md "Pause"): while paused, every
 * kind of delivery is recorded `skipped / paused` naming the note and writes nothing else; resume
 * leaves the missed slots to the catch-up rule; `pauseOnFailure` pauses after N failed occurrences.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver, lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { JobPausedError } from '../../lib/errors.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher } from '../../lib/runtime/fan-out.js';
import { catchUpPayload, sweep } from '../../lib/runtime/sweeper.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { DynamoRunStore } from '../../lib/store/run-store.js';
import { Keys } from '../../lib/store/schema.js';
import { pausedSlots } from '../../operate/paused-slots.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const H = 3_600_000;
const NOW = Date.parse('2026-03-10T12:20:00Z');
const PAUSED_AT = Date.parse('2026-03-10T09:30:00Z');
let stack: LocalStack;
let writes: string[];

beforeEach(async () => {
  stack = await localStack();
  writes = [];
});

function hourly(name: string, run: () => Promise<void> = async () => undefined, extra = {}): JobHandler {
  return defineJob({
    name,
    schedule: 'cron(0 * * * ? *)',
    lease: { durationSeconds: 60 },
    catchUp: { mode: 'latest', windowHours: 6, maxSlotsPerSweep: 1 },
    ...extra,
    run: async (ctx) => {
      await ctx.insertOnce(stack.reports, { reportDate: ctx.slot.id }, { by: ctx.runId });
      await run();
    },
  });
}

/** A worker on the test clock, counting the library-table writes its client sends. */
function worker(nowMs = NOW) {
  const w = stack.worker({ clock: new ControlledClock(nowMs - Date.now()) });
  // Never fires: its match only notes every write the worker's client sends.
  w.faults.add({
    name: 'count writes',
    match: (r) => {
      if (/Put|Update|Transact/.test(r.command)) writes.push(r.tag?.name ?? r.command);
      return false;
    },
    action: { kind: 'delay', ms: 0 },
  });
  return w;
}

async function lease(job: string, shard?: number) {
  const { Item } = await stack.doc.send(
    new GetCommand({ TableName: stack.tableName, Key: Keys.lease(job, shard), ConsistentRead: true }),
  );
  return Item;
}

describe('a paused job', () => {
  it('records a scheduled delivery, a Lambda retry, a Scheduler retry, a catch-up and a manual run skipped/paused with the note, and writes nothing else', async () => {
    const w = worker();
    const job = hourly('paused-hourly').withDeps(() => w.deps);
    await deliver(job, {
      job: 'paused-hourly',
      scheduledTimeMs: NOW - 2 * H - 20 * 60_000,
      label: 'warm-up',
    });
    const before = await lease('paused-hourly');
    const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
    await pauses.pause({
      job: 'paused-hourly',
      shards: 1,
      by: 'ops-alice',
      note: 'INC-42 ledger freeze',
      nowMs: PAUSED_AT + 2 * H,
    });
    const slot = NOW - 20 * 60_000; // 12:00Z
    const results = [
      await deliver(job, {
        job: 'paused-hourly',
        scheduledTimeMs: slot,
        awsRequestId: 'req-1',
        label: 'schedule',
      }),
      await deliver(job, {
        job: 'paused-hourly',
        scheduledTimeMs: slot,
        awsRequestId: 'req-1',
        label: 'lambda retry',
      }),
      await deliver(job, {
        job: 'paused-hourly',
        scheduledTimeMs: slot,
        attemptNumber: 2,
        label: 'scheduler retry',
      }),
      await job(
        catchUpPayload('paused-hourly', { scheduledTimeMs: slot - H } as never, 'missed'),
        lambdaContext('paused-hourly', 60),
      ),
      await job(
        {
          job: 'paused-hourly',
          scheduledTime: '2026-03-10T11:00:00Z',
          trigger: 'manual',
          requestedBy: 'bob',
          reason: 'rerun',
        },
        lambdaContext('paused-hourly', 60),
      ),
    ].map((r) => ('delivery' in r ? r.summary : r));
    expect(results.map((s) => [s?.trigger, s?.outcome, s?.reason])).toEqual([
      ['schedule', 'skipped', 'paused'],
      ['schedule', 'skipped', 'paused'],
      ['retry', 'skipped', 'paused'],
      ['catch-up', 'skipped', 'paused'],
      ['manual', 'skipped', 'paused'],
    ]);
    const paused = (await stack.runRecords('paused-hourly')).filter((r) => r.reason === 'paused');
    expect(paused.map((r) => (r.details as { pause: { note: string; by: string } }).pause)).toEqual(
      Array(5).fill({ by: 'ops-alice', atMs: PAUSED_AT + 2 * H, note: 'INC-42 ledger freeze' }),
    );
    // Each delivery: its refused claim and its run record; no lease change, no business row.
    expect(writes.slice(-10)).toEqual(Array(5).fill(['claim', 'run-record']).flat());
    const after = await lease('paused-hourly');
    expect({ ...after, pausedAtMs: undefined, pausedBy: undefined, pauseNote: undefined }).toEqual({
      ...before,
      pausedAtMs: undefined,
      pausedBy: undefined,
      pauseNote: undefined,
    });
    expect((await stack.scan(stack.reports)).map((r) => r.reportDate)).toEqual(['2026-03-10T10:00']);
  });

  it('refuses a second pause naming the first, and the sweeper triggers nothing while paused', async () => {
    const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
    await pauses.pause({ job: 'paused-hourly', shards: 1, by: 'a', note: 'first', nowMs: PAUSED_AT });
    await expect(
      pauses.pause({ job: 'paused-hourly', shards: 1, by: 'b', note: 'second', nowMs: PAUSED_AT + 1 }),
    ).rejects.toThrow(JobPausedError);
    await expect(
      pauses.pause({ job: 'paused-hourly', shards: 1, by: 'b', note: 'x'.repeat(201), nowMs: PAUSED_AT }),
    ).rejects.toThrow('invalid note');
    const w = worker();
    const h = hourly('paused-hourly');
    const invoked: string[] = [];
    const report = await sweep(
      { leases: w.deps.leases, runs: w.deps.runs, clock: w.clock, log: () => undefined },
      [
        {
          definition: h.job,
          expression: h.expression,
          invoke: async (p) => void invoked.push(String(p.scheduledTime)),
        },
      ],
    );
    expect(invoked).toEqual([]);
    expect(report.decisions).toEqual([
      { job: 'paused-hourly', slot: '*', action: 'skipped', reason: 'paused by a: first' },
    ]);
  });

  it('pauses every shard lease: a shard delivery and the fan-out are each recorded skipped/paused', async () => {
    const w = worker();
    let handler: JobHandler | undefined;
    const dispatcher = new InProcessShardDispatcher(() => handler as JobHandler);
    handler = hourly('paused-sharded', undefined, { shards: 2 }).withDeps(
      () => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps,
    );
    const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
    await pauses.pause({
      job: 'paused-sharded',
      shards: 2,
      by: 'ops',
      note: 'shard freeze',
      nowMs: PAUSED_AT,
    });
    expect(
      [await lease('paused-sharded', 0), await lease('paused-sharded', 1)].map((l) => l?.pauseNote),
    ).toEqual(['shard freeze', 'shard freeze']);
    const slot = NOW - 20 * 60_000;
    const shard = await deliver(handler, {
      job: 'paused-sharded',
      scheduledTimeMs: slot,
      extra: { shard: 1, shards: 2 },
      label: 'shard retry',
    });
    const fan = await deliver(handler, { job: 'paused-sharded', scheduledTimeMs: slot, label: 'schedule' });
    await dispatcher.settled();
    expect([shard.summary, fan.summary].map((s) => [s?.outcome, s?.reason])).toEqual([
      ['skipped', 'paused'],
      ['skipped', 'paused'],
    ]);
    expect((await dispatcher.settled()).length).toBe(0);
    await pauses.resume({ job: 'paused-sharded', shards: 2, pausedAtMs: PAUSED_AT });
    expect(
      [await lease('paused-sharded'), await lease('paused-sharded', 0), await lease('paused-sharded', 1)].map(
        (l) => l?.pausedAtMs,
      ),
    ).toEqual([undefined, undefined, undefined]);
  });

  it('lets a running holder finish its run', async () => {
    const w = worker();
    const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
    const job = hourly('paused-hourly', () =>
      pauses
        .pause({ job: 'paused-hourly', shards: 1, by: 'ops', note: 'mid-run', nowMs: NOW })
        .then(() => undefined),
    ).withDeps(() => w.deps);
    const r = await deliver(job, {
      job: 'paused-hourly',
      scheduledTimeMs: NOW - 20 * 60_000,
      label: 'schedule',
    });
    expect([r.summary?.outcome, (await lease('paused-hourly'))?.pauseNote]).toEqual(['succeeded', 'mid-run']);
  });
});

describe('resume', () => {
  it('lists the paused slots of a rate() job on its grid (rateAnchor), with the catch-up plan', async () => {
    const job = hourly('paused-rate', async () => undefined, {
      schedule: 'rate(1 hour)',
      rateAnchor: '2026-03-01T00:15:00Z',
    });
    const report = await pausedSlots(job, new DynamoRunStore(stack.doc, stack.tableName), {
      fromMs: PAUSED_AT,
      toMs: NOW,
      nowMs: NOW,
    });
    expect(report.map((r) => `${r.slot} ${r.pausedSkips} ${r.catchUp}`)).toEqual([
      '2026-03-10T10:15:00Z 0 superseded (latest runs instead)',
      '2026-03-10T11:15:00Z 0 superseded (latest runs instead)',
      '2026-03-10T12:15:00Z 0 runs at the next sweep',
    ]);
  });

  it('with catchUp latest runs exactly one missed slot, the newest, through the sweeper', async () => {
    const w = worker();
    const job = hourly('paused-hourly').withDeps(() => w.deps);
    const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
    await pauses.pause({ job: 'paused-hourly', shards: 1, by: 'ops', note: 'INC-7', nowMs: PAUSED_AT });
    for (const hh of ['10', '11', '12'])
      await deliver(job, {
        job: 'paused-hourly',
        scheduledTimeMs: Date.parse(`2026-03-10T${hh}:00:00Z`),
        label: 'schedule',
      });
    await pauses.resume({ job: 'paused-hourly', shards: 1, pausedAtMs: PAUSED_AT });
    const report = await pausedSlots(job, new DynamoRunStore(stack.doc, stack.tableName), {
      fromMs: PAUSED_AT,
      toMs: NOW,
      nowMs: NOW,
    });
    expect(report).toEqual([
      {
        slot: '2026-03-10T10:00',
        scheduledTime: '2026-03-10T10:00:00Z',
        pausedSkips: 1,
        catchUp: 'superseded (latest runs instead)',
      },
      {
        slot: '2026-03-10T11:00',
        scheduledTime: '2026-03-10T11:00:00Z',
        pausedSkips: 1,
        catchUp: 'superseded (latest runs instead)',
      },
      {
        slot: '2026-03-10T12:00',
        scheduledTime: '2026-03-10T12:00:00Z',
        pausedSkips: 1,
        catchUp: 'runs at the next sweep',
      },
    ]);
    const invoked: string[] = [];
    await sweep({ leases: w.deps.leases, runs: w.deps.runs, clock: w.clock, log: () => undefined }, [
      {
        definition: job.job,
        expression: job.expression,
        invoke: async (p) => {
          invoked.push(String(p.scheduledTime));
          await job(p, lambdaContext('paused-hourly', 60));
        },
      },
    ]);
    expect(invoked).toEqual(['2026-03-10T12:00:00Z']);
    const ok = (await stack.runRecords('paused-hourly')).filter((r) => r.outcome === 'succeeded');
    expect(ok.map((r) => [r.slot, r.trigger])).toEqual([['2026-03-10T12:00', 'catch-up']]);
  });
});

describe('pauseOnFailure: 3', () => {
  it('pauses after the third failed occurrence (a retry of one occurrence counts once), naming the failing runs', async () => {
    const w = worker();
    const job = hourly('fragile', () => Promise.reject(new Error('ledger down')), {
      pauseOnFailure: 3,
    }).withDeps(() => w.deps);
    const at = (hh: string) => Date.parse(`2026-03-10T${hh}:00:00Z`);
    const failed: string[] = [];
    for (const [hh, attempt] of [
      ['09', 1],
      ['09', 2],
      ['10', 1],
      ['11', 1],
    ] as const) {
      const r = await deliver(job, {
        job: 'fragile',
        scheduledTimeMs: at(hh),
        attemptNumber: attempt,
        label: hh,
      });
      expect(r.summary?.outcome).toBe('failed');
      failed.push(String(r.summary?.runId));
      if (hh === '10') expect((await lease('fragile'))?.pausedAtMs).toBeUndefined();
    }
    const item = await lease('fragile');
    expect([item?.pausedBy, item?.pauseNote, item?.pausedRuns]).toEqual([
      'pauseOnFailure',
      'paused after 3 consecutive failed occurrences: 2026-03-10T09:00, 2026-03-10T10:00, 2026-03-10T11:00',
      [failed[1], failed[2], failed[3]],
    ]);
    const next = await deliver(job, { job: 'fragile', scheduledTimeMs: at('12'), label: '12' });
    expect([next.summary?.outcome, next.summary?.reason]).toEqual(['skipped', 'paused']);
  });

  it('starts the count again after a success', async () => {
    let fail = true;
    const w = worker();
    const job = hourly(
      'fragile',
      async () => {
        if (fail) throw new Error('down');
      },
      { pauseOnFailure: 2 },
    ).withDeps(() => w.deps);
    const at = (hh: string) => Date.parse(`2026-03-10T${hh}:00:00Z`);
    await deliver(job, { job: 'fragile', scheduledTimeMs: at('09'), label: '09' });
    fail = false;
    await deliver(job, { job: 'fragile', scheduledTimeMs: at('10'), label: '10' });
    fail = true;
    await deliver(job, { job: 'fragile', scheduledTimeMs: at('11'), label: '11' });
    const item = await lease('fragile');
    expect([
      item?.pausedAtMs,
      (item?.failedSlots as { slot: string }[] | undefined)?.map((f) => f.slot),
    ]).toEqual([undefined, ['2026-03-10T11:00']]);
  });
});
