/**
 * Overlap buffer-one on a sharded job (integ: DynamoDB Local; the fan-out's shard invocations run in this
 * process through the in-process dispatcher; a frozen test clock). Each shard claims its own lease, so a
 * shard stuck past a period makes the next occurrence's run of that shard wait in the buffer of that
 * shard's lease item while the other shard runs on time; the release path leaves a sharded job's buffered
 * slot to the sweeper, which starts that one shard (not a fan-out) once the lease is free — also within
 * its grace after the slot — and it runs once: a duplicate delivery and a second sweep run nothing more.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher, shardPayloads } from '../../lib/runtime/fan-out.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { Keys } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { frozenClock, type Gate, gate, ID, invoke, T } from '../helpers/overlap-scenario.js';

const JOB = 'ov-shard-buf';
let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

async function shardLease(shard: number) {
  const { Item } = await stack.doc.send(
    new GetCommand({ TableName: stack.tableName, Key: Keys.lease(JOB, shard), ConsistentRead: true }),
  );
  return Item;
}

/** Wait until shard `shard`'s lease is held for `slotId` (its gated body is running). */
async function shardHeldFor(shard: number, slotId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const item = await shardLease(shard);
    if (item?.slot === slotId && item.holderState === 'running') return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`lease of ${JOB} shard ${shard} never held for ${slotId}`);
}

/** Run records as `slot shard trigger outcome/reason fence`, in slot, shard, then start order. */
async function shardRows(): Promise<string[]> {
  const records = await stack.runRecords(JOB);
  const shardOf = (r: Record<string, unknown>) => (r.shard === undefined ? '-' : String(r.shard));
  return records
    .sort(
      (a, b) =>
        String(a.slot).localeCompare(String(b.slot)) ||
        shardOf(a).localeCompare(shardOf(b)) ||
        Number(a.startedAtMs) - Number(b.startedAtMs),
    )
    .map(
      (r) =>
        `${String(r.slot).slice(11, 16)} shard ${shardOf(r)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} ${r.fence ?? '-'}`,
    );
}

describe('overlap buffer-one on a sharded job', () => {
  it('buffers the stuck shard’s next slot on that shard’s lease; the sweeper starts that shard once, and it runs once', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const calls: string[] = [];
    const gates = new Map<string, Gate>([[`${ID('10:00')}#1`, gate()]]);
    let handler: JobHandler | undefined;
    const dispatcher = new InProcessShardDispatcher(() => handler as JobHandler);
    handler = defineJob({
      name: JOB,
      schedule: 'rate(3 minutes)',
      lease: { durationSeconds: 900 },
      timeoutSeconds: 900,
      runRetentionDays: 3650,
      shards: 2,
      overlap: 'buffer-one',
      run: async (ctx) => {
        const id = `${ctx.slot.id}#${ctx.shard}`;
        calls.push(id);
        await gates.get(id)?.promise;
        await ctx.insertOnce(stack.reports, { reportDate: id }, { by: ctx.runId });
      },
    }).withDeps(() => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps);
    const job = handler;
    // 10:00 fans out; shard 0 runs, shard 1 is stuck at its gate holding JOB#ov-shard-buf#1.
    expect(await invoke(job, clock, '10:00')).toMatchObject({ outcome: 'succeeded', fence: 1 });
    await shardHeldFor(1, ID('10:00'));
    // 10:03 fans out; its shard 0 runs, its shard 1 finds shard 1's lease held and waits in its buffer.
    expect(await invoke(job, clock, '10:03')).toMatchObject({ outcome: 'succeeded', fence: 2 });
    for (let i = 0; i < 500 && !(await shardLease(1))?.buffered; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await shardLease(1))?.buffered).toEqual(new Set(['0hn0grz']));
    expect(calls.sort()).toEqual([`${ID('10:00')}#0`, `${ID('10:00')}#1`, `${ID('10:03')}#0`]);
    // A second delivery of 10:03's shard-1 payload (an async Invoke delivered twice): not buffered twice.
    clock.setTo(T('10:04'));
    const [shard1] = shardPayloads({ job: JOB, scheduledTime: '2026-05-01T10:03:00Z' }, 2, [1]);
    expect(await job(shard1, lambdaContext(JOB, 900))).toMatchObject({
      outcome: 'skipped',
      reason: 'lease-held',
    });
    // The stuck shard wakes and releases; a sharded job's release path starts nothing itself.
    clock.setTo(T('10:05'));
    gates.get(`${ID('10:00')}#1`)?.open();
    await dispatcher.settled();
    expect((await shardLease(1))?.buffered).toEqual(new Set(['0hn0grz']));
    const invoked: string[] = [];
    const target = {
      definition: job.job,
      expression: job.expression,
      startMs: 0,
      invoke: async (p: Record<string, unknown>) => {
        invoked.push(
          `${String(p.scheduledTime).slice(11, 16)} shard ${String(p.shard ?? '-')} ${String(p.reason)}`,
        );
        await job(p, lambdaContext(JOB, 900));
      },
    };
    const deps = { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined };
    // 10:07: four minutes after the buffered slot, inside the sweeper's 10-minute grace — the grace leaves
    // slots Scheduler may still deliver alone; this one was delivered and waits, so it is started.
    clock.setTo(T('10:07'));
    const first = await sweep(deps, [target]);
    expect(first.decisions.filter((d) => d.action !== 'ignored')).toEqual([
      { job: JOB, slot: ID('10:03'), action: 'triggered', reason: 'buffered' },
    ]);
    expect(invoked).toEqual(['10:03 shard 1 buffered']);
    clock.setTo(T('10:08'));
    const second = await sweep(deps, [target]);
    expect(second.decisions.filter((d) => d.action !== 'ignored')).toEqual([]);
    expect(invoked).toEqual(['10:03 shard 1 buffered']);
    expect(calls.sort()).toEqual([
      `${ID('10:00')}#0`,
      `${ID('10:00')}#1`,
      `${ID('10:03')}#0`,
      `${ID('10:03')}#1`,
    ]);
    expect(await shardRows()).toEqual([
      '10:00 shard - schedule succeeded/- 1',
      '10:00 shard 0 schedule succeeded/- 1',
      '10:00 shard 1 schedule succeeded/- 1',
      '10:03 shard - schedule succeeded/- 2',
      '10:03 shard 0 schedule succeeded/- 2',
      '10:03 shard 1 schedule buffered/overlap -',
      '10:03 shard 1 schedule skipped/lease-held -',
      '10:03 shard 1 catch-up succeeded/- 2',
    ]);
    expect((await stack.scan(stack.reports)).map((r) => String(r.reportDate)).sort()).toEqual([
      `${ID('10:00')}#0`,
      `${ID('10:00')}#1`,
      `${ID('10:03')}#0`,
      `${ID('10:03')}#1`,
    ]);
    const lease1 = await shardLease(1);
    expect(lease1?.buffered).toBeUndefined();
    expect(lease1).toMatchObject({ fence: 2, holderState: 'released', lastSucceeded: ID('10:03') });
  });
});
