/**
 * Issue 17, "no size cliff" (integ: DynamoDB Local with ReturnConsumedCapacity): with the longest job
 * name defineJob accepts, the longest shard suffix, the longest slot ids (UTC instants) and a full done
 * set, the lease item stays well under 1 KB, so every claim, renewal and release costs exactly 1 WCU,
 * and a successful run 3 WCU (claim, run record, release).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { dynamoItemBytes } from '../../lib/core/item-bounds.js';
import { DONE_SET_MAX_BYTES, nextDoneSlots } from '../../lib/core/lease.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { Keys } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

/** The longest name JOB_NAME_PATTERN allows (64 characters). */
const LONGEST_NAME = `m${'x'.repeat(63)}`;
/** The highest shard index (shards ≤ 1000). */
const LONGEST_SHARD = 999;
const BASE_MS = Date.parse('2026-03-28T17:00:00Z');

/** A worker whose every write asks for and keeps ConsumedCapacity, by command. */
function meteredDeps(stack: LocalStack) {
  const doc = createDocumentClient({ endpoint: stack.endpoint });
  const units: { op: string; wcu: number }[] = [];
  doc.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any, context: any) => async (args: any) => {
      args.input = { ...args.input, ReturnConsumedCapacity: 'TOTAL' };
      const out = await next(args);
      const c = out.output?.ConsumedCapacity;
      if (c) units.push({ op: String(context.commandName), wcu: Number(c.CapacityUnits ?? 0) });
      return out;
    },
    { step: 'initialize', name: 'leaseSizeCapacity' },
  );
  return { deps: createDeps({ doc, tableName: stack.tableName }), units };
}

const slotIdOf = (i: number) => `${new Date(BASE_MS + i * 60_000).toISOString().slice(0, 17)}00Z`;

describe('lease item size', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await localStack();
  });

  it('accepts the 64-character name and refuses 65', () => {
    const opts = { schedule: 'rate(1 minute)', lease: { durationSeconds: 30 }, run: async () => {} };
    expect(defineJob({ ...opts, name: LONGEST_NAME }).job.name).toHaveLength(64);
    expect(() => defineJob({ ...opts, name: `${LONGEST_NAME}x` })).toThrow(/name/);
  });

  it.each([
    ['the default done set (32)', 32],
    ['rememberSlots 1000 (capped by bytes)', 1000],
  ])(
    'claim, renew and release cost 1 WCU each with the longest name and shard suffix: %s',
    async (_, remember) => {
      const { deps, units } = meteredDeps(stack);
      const job = `${LONGEST_NAME.slice(0, 60)}${remember === 32 ? 'dflt' : 'full'}`;
      let done: ReadonlySet<string> = new Set();
      let largest = 0;
      for (let i = 0; i < 45; i++) {
        const runId = `${(BASE_MS + i).toString(36).padStart(9, '0')}-${'f'.repeat(10)}`;
        const nowMs = Date.now();
        const ref = { job, shard: LONGEST_SHARD };
        const d = await deps.leases.claim({
          ...ref,
          runId,
          slotId: slotIdOf(i),
          nowMs,
          leaseUntilMs: nowMs + 900_000,
          lambdaRequestId: '0f8fad5b-d9cb-469f-a165-70867728950e',
          def: '1a2b3c4d',
        });
        if (d.kind !== 'acquired') throw new Error(`claim ${i}: ${d.kind}`);
        // A renewal extends the lease (one that would not is refused by its condition, a no-op).
        await deps.leases.renew({ ...ref, runId, fence: d.fence, nowMs, leaseUntilMs: nowMs + 900_001 });
        const held = await stack.doc.send(
          new GetCommand({ TableName: stack.tableName, Key: Keys.lease(job, LONGEST_SHARD) }),
        );
        largest = Math.max(largest, dynamoItemBytes(held.Item ?? {}));
        done = nextDoneSlots(d.doneSlots, slotIdOf(i), remember);
        await deps.leases.release({
          ...ref,
          runId,
          fence: d.fence,
          nowMs,
          def: '1a2b3c4d',
          clearOpen: true,
          doneSlots: done,
        });
      }
      // Every write reported exactly 1 WCU: 45 claims, 45 renewals, 45 releases.
      expect(units.filter((u) => u.op === 'UpdateItemCommand').map((u) => u.wcu)).toEqual(Array(135).fill(1));
      expect(done.size).toBe(remember === 32 ? 32 : Math.floor(DONE_SET_MAX_BYTES / 7));
      // Measured: 744 B (32 slots) and 772 B (36 slots) while held, with the readable `leaseUntil`; a
      // claim's `trigger` adds 15 B and a manual run's `requestedBy` at most 75 B: the rest is headroom.
      expect(largest).toBeLessThanOrEqual(800);
    },
  );

  it('a successful run of the longest-named shard costs 3 writes and 3 WCU with a full done set', async () => {
    const { deps, units } = meteredDeps(stack);
    const job = defineJob({
      name: LONGEST_NAME,
      schedule: 'rate(1 minute)',
      lease: { durationSeconds: 30 },
      shards: 1000,
      run: async () => {},
    });
    const h = job.withDeps(() => deps);
    const run = (i: number) =>
      deliver(h, {
        job: LONGEST_NAME,
        scheduledTimeMs: BASE_MS + i * 60_000,
        extra: { shard: LONGEST_SHARD, shards: 1000 },
        label: `slot ${i}`,
      });
    for (let i = 0; i < 34; i++) expect((await run(i)).summary?.outcome).toBe('succeeded');
    units.length = 0;
    const r = await run(34);
    expect(r.summary).toMatchObject({ outcome: 'succeeded', slot: '2026-03-28T17:34:00Z' });
    expect(units).toEqual([
      { op: 'UpdateItemCommand', wcu: 1 },
      { op: 'PutItemCommand', wcu: 1 },
      { op: 'UpdateItemCommand', wcu: 1 },
    ]);
  });
});

describe('lease item size with a pauseOnFailure streak', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await localStack();
  });

  it('refuses pauseOnFailure above 5, naming the field', () => {
    expect(() =>
      defineJob({
        name: 'fragile',
        schedule: 'rate(1 minute)',
        lease: { durationSeconds: 30 },
        pauseOnFailure: 6,
        run: async () => {},
      }),
    ).toThrow('"pauseOnFailure" = 6');
  });

  it('with the longest name, a full done set and 5 failures, every lease write costs 1 WCU; the pausing release keeps the streak in the pause only', async () => {
    const { deps, units } = meteredDeps(stack);
    let fail = false;
    const job = defineJob({
      name: LONGEST_NAME,
      schedule: 'rate(1 minute)',
      lease: { durationSeconds: 30 },
      pauseOnFailure: 5,
      run: async () => {
        if (fail) throw new Error('ledger down');
      },
    });
    const h = job.withDeps(() => deps);
    const run = (i: number) =>
      deliver(h, { job: LONGEST_NAME, scheduledTimeMs: BASE_MS + i * 60_000, label: `slot ${i}` });
    for (let i = 0; i < 34; i++) expect((await run(i)).summary?.outcome).toBe('succeeded');
    fail = true;
    units.length = 0;
    const failed: string[] = [];
    for (let i = 34; i < 39; i++) failed.push(String((await run(i)).summary?.runId));
    expect(units.filter((u) => u.op === 'UpdateItemCommand').map((u) => u.wcu)).toEqual(Array(10).fill(1));
    const item = (
      await stack.doc.send(new GetCommand({ TableName: stack.tableName, Key: Keys.lease(LONGEST_NAME) }))
    ).Item;
    expect([item?.pausedBy, item?.pausedRuns, item?.failedSlots]).toEqual([
      'pauseOnFailure',
      failed,
      undefined,
    ]);
    // Measured: 989 B after the pausing release, with `leaseUntil = released` and `lastSucceeded` (the
    // release removes the holder's `trigger` and `requestedBy`: its record names them).
    expect(dynamoItemBytes(item ?? {})).toBeLessThan(1024);
  });
});
