/**
 * Sharded jobs (docs/design.md "Scale") on DynamoDB Local: one scheduled occurrence fans
 * out to N shard invocations, each under its own lease and fence; duplicates at both levels still
 * leave one result per business key.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { BusinessAttr } from '../../lib/core/results.js';
import { InvalidEventError } from '../../lib/errors.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher, ownsKey, shardOf } from '../../lib/runtime/fan-out.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const SHARDS = 4;
const MERCHANTS = Array.from({ length: 200 }, (_, i) => `M${i + 1}`);
let stack: LocalStack;

function settlement(): JobHandler {
  return defineJob({
    name: 'sharded-settlement',
    schedule: 'cron(0 1 * * ? *)',
    timeZone: 'Asia/Shanghai',
    businessDate: 'previous-day',
    lease: { durationSeconds: 60 },
    shards: SHARDS,
    run: async (ctx) => {
      let mine = 0;
      for (const merchantId of MERCHANTS) {
        if (!ownsKey(ctx, merchantId, SHARDS)) continue;
        mine++;
        await ctx.insertOnce(
          stack.settlements,
          { merchantId, settlementDate: ctx.businessDate },
          { shard: ctx.shard ?? -1, amountCents: 100 },
        );
      }
      ctx.setDetail('merchants', mine);
    },
  });
}

/** The job bound to a worker and an in-process dispatcher delivering every shard `copies` times. */
function wire(copies: number): { handler: JobHandler; dispatcher: InProcessShardDispatcher } {
  const w = stack.worker();
  let handler: JobHandler | undefined;
  const dispatcher = new InProcessShardDispatcher(() => handler as JobHandler, { copies });
  handler = settlement().withDeps(() => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps);
  return { handler, dispatcher };
}

describe('shardOf', () => {
  it('is FNV-1a mod N: M1 -> 11, M2 -> 14, M42 -> 2 of 16, the same in every process', () => {
    expect([shardOf('M1', 16), shardOf('M2', 16), shardOf('M42', 16)]).toEqual([11, 14, 2]);
    expect(shardOf('anything', 1)).toBe(0);
  });

  it('spreads 10,000 merchant ids over 16 shards within 10% of an even split', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 1; i <= 10_000; i++) counts[shardOf(`M${i}`, 16)] = (counts[shardOf(`M${i}`, 16)] ?? 0) + 1;
    for (const c of counts) expect(Math.abs(c - 625)).toBeLessThan(63);
  });
});

describe('a sharded job', () => {
  beforeEach(async () => {
    stack = await localStack();
  });

  it('fans one slot out to 4 shard runs: 3 duplicate deliveries and every shard delivered twice still give one row per merchant, each written under its own shard lease', async () => {
    const { handler, dispatcher } = wire(2);
    const parents = await Promise.all(
      Array.from({ length: 3 }, () =>
        deliver(handler, {
          job: 'sharded-settlement',
          scheduledTimeMs: SLOT_MS,
          awsRequestId: 'r-1',
          label: 'dup',
        }),
      ),
    );
    const late = await deliver(handler, {
      job: 'sharded-settlement',
      scheduledTimeMs: SLOT_MS,
      attemptNumber: 2,
      label: 'late',
    });
    const shards = await dispatcher.settled();

    const fanned = parents.filter((p) => p.summary?.outcome === 'succeeded');
    expect(fanned).toHaveLength(1);
    expect(parents.filter((p) => p.summary?.outcome === 'skipped').map((p) => p.summary?.reason)).toEqual([
      'lease-held',
      'lease-held',
    ]);
    expect(late.summary).toMatchObject({ outcome: 'skipped', reason: 'already-succeeded' });

    expect(shards).toHaveLength(SHARDS * 2);
    for (let shard = 0; shard < SHARDS; shard++) {
      const copies = shards.filter((d) => d.payload.shard === shard).map((d) => d.summary as RunSummary);
      expect(copies.filter((s) => s.outcome === 'succeeded')).toHaveLength(1);
      const skipped = copies.filter((s) => s.outcome === 'skipped');
      expect(skipped).toHaveLength(1);
      // The copy either met the running shard (lease-held) or came after it finished.
      expect(['lease-held', 'already-succeeded']).toContain(skipped[0]?.reason);
    }
    const rows = await stack.scan(stack.settlements);
    expect(rows).toHaveLength(MERCHANTS.length);
    expect(new Set(rows.map((r) => r.merchantId)).size).toBe(MERCHANTS.length);
    for (const r of rows) {
      const shard = shardOf(String(r.merchantId), SHARDS);
      expect(r).toMatchObject({
        shard,
        'cronfence:lease': `JOB#sharded-settlement#${shard}`,
        'cronfence:fence': 1,
      });
    }
    const parentRecord = (await stack.runRecords('sharded-settlement')).find(
      (r) => r.outcome === 'succeeded' && r.shard === undefined,
    );
    expect(parentRecord?.details).toEqual({ dispatchedShards: SHARDS });
    const shardRecords = (await stack.runRecords('sharded-settlement')).filter(
      (r) => r.outcome === 'succeeded' && r.shard !== undefined,
    );
    expect(shardRecords.map((r) => r.shard).sort()).toEqual([0, 1, 2, 3]);
    const perShard = shardRecords.map((r) => (r.details as { merchants: number }).merchants);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(MERCHANTS.length);
  });

  it('re-dispatches on a manual re-run and writes no second row (shards find their rows)', async () => {
    const first = wire(1);
    await deliver(first.handler, { job: 'sharded-settlement', scheduledTimeMs: SLOT_MS, label: 'on-time' });
    await first.dispatcher.settled();
    const again = wire(1);
    const manual = await deliver(again.handler, {
      job: 'sharded-settlement',
      scheduledTimeMs: SLOT_MS,
      label: 'manual',
      extra: { trigger: 'manual', requestedBy: 'ops@example.com' },
    });
    const shards = await again.dispatcher.settled();
    expect(manual.summary).toMatchObject({ outcome: 'succeeded', trigger: 'manual', fence: 2 });
    expect(shards.map((d) => d.summary?.outcome)).toEqual(new Array(SHARDS).fill('succeeded'));
    expect(shards.every((d) => d.summary?.fence === 2 && d.summary.trigger === 'manual')).toBe(true);
    const rows = await stack.scan(stack.settlements);
    expect(rows).toHaveLength(MERCHANTS.length);
    expect(rows.every((r) => r[BusinessAttr.fence] === 1)).toBe(true);
  });

  it('rejects a shard index the job does not have before any write', async () => {
    const { handler } = wire(1);
    const r = await deliver(handler, {
      job: 'sharded-settlement',
      scheduledTimeMs: SLOT_MS,
      label: 'bad shard',
      extra: { shard: SHARDS },
    });
    expect(r.error).toBeInstanceOf(InvalidEventError);
    expect(r.error?.message).toBe(
      'invalid event: field "shard" = 4: must be below 4 (the job\'s shard count)',
    );
    expect(await stack.runRecords('sharded-settlement')).toEqual([]);
  });

  it('fails the fan-out run with a clear error when no dispatcher is configured', async () => {
    const w = stack.worker();
    const r = await deliver(
      settlement().withDeps(() => w.deps),
      { job: 'sharded-settlement', scheduledTimeMs: SLOT_MS, label: 'no dispatcher' },
    );
    // Recorded failed and not rethrown (an input error): a retry would meet the same missing dispatcher.
    expect(r.summary).toMatchObject({
      outcome: 'failed',
      reason: 'error',
      error: { name: 'InvalidArgumentError' },
    });
    expect(r.error).toBeUndefined();
    expect(r.summary?.error?.message).toContain('has 4 shards but no shard dispatcher');
  });
});
