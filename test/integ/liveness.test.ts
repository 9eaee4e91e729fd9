/**
 * Liveness on DynamoDB Local (integ): no delivered occurrence is silently lost and none is re-run,
 * across crashes, late copies, shards, deploys, transaction conflicts, oversized details and chains
 * of lost claim responses. Cases 1, 3, 5 and 7 run as the liveness drills (virtual time: a 120 s lease
 * and minute-long Lambda retries without waiting for them); 2, 4, 6 and 8 run on real handlers here.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { payoutKey, settlementJob } from '../../functions/merchant-settlement.js';
import { MERCHANTS } from '../../functions/merchants.js';
import { LIVENESS_DRILLS } from '../../harness/drills/catalog/liveness.js';
import type { DrillTarget } from '../../harness/drills/dynamo-env.js';
import { formatReport, runDrill } from '../../harness/drills/run-drills.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import {
  on,
  throttlingError,
  transactionCanceledByConflict,
  transactionConflictError,
} from '../../harness/faults/sdk-faults.js';
import type { PaymentService } from '../../harness/local/payment-service.js';
import { deliver, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { definitionId } from '../../lib/core/liveness.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher, ownsKey, shardPayloads } from '../../lib/runtime/fan-out.js';
import { CONFLICT_ATTEMPTS } from '../../lib/store/client.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';
import { paymentsSetup } from '../helpers/payment-fixture.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z'); // 01:00 Asia/Shanghai on 03-29 → settles 2026-03-28
const DATE = '2026-03-28';
let stack: LocalStack;
let service: PaymentService | undefined;

beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

const rowsPerMerchant = async (date: string) => {
  const n = new Map<string, number>();
  for (const r of await stack.scan(stack.settlements))
    if (r.settlementDate === date) n.set(String(r.merchantId), (n.get(String(r.merchantId)) ?? 0) + 1);
  return n;
};

describe('liveness drills on DynamoDB Local (cases 1, 3, 5, 7)', () => {
  const target = (): DrillTarget => ({
    endpoint: inject('dynamoEndpoint'),
    description: 'shared DynamoDB Local',
    stop: async () => undefined,
  });
  it.each(LIVENESS_DRILLS.map((d) => [d.name, d] as const))(
    'passes %s with the exact records, rows and payouts its checks name',
    async (_name, drill) => {
      const report = await runDrill(drill, { app: exampleApp, drills: [drill], target: target() });
      expect(report.pass, formatReport(report).join('\n')).toBe(true);
      expect(report.checks.every((c) => c.ok)).toBe(true);
    },
    120_000,
  );
});

describe('case 2: a late copy older than the remembered done set', () => {
  it('is skipped already-succeeded after one Query, and the slot keeps one succeeded record and one row', async () => {
    const base = Math.floor((Date.now() - 86_400_000) / 300_000) * 300_000;
    const job = defineJob({
      name: 'five-minute',
      schedule: 'cron(0/5 * * * ? *)',
      lease: { durationSeconds: 30 },
      run: async (ctx) => {
        await ctx.insertOnce(stack.settlements, { merchantId: 'five', settlementDate: ctx.slot.id }, {});
      },
    });
    const w = stack.worker();
    const h = job.withDeps(() => w.deps);
    // S is caught up by the sweeper, then 40 later slots succeed (the done set remembers 32).
    const caughtUp = await deliver(h, {
      job: 'five-minute',
      scheduledTimeMs: base,
      extra: { trigger: 'catch-up', requestedBy: 'sweeper', reason: 'missed' },
      label: 'catch-up S',
    });
    expect(caughtUp.summary?.outcome).toBe('succeeded');
    for (let i = 1; i <= 40; i++)
      expect(
        (await deliver(h, { job: 'five-minute', scheduledTimeMs: base + i * 300_000, label: `S+${i}` }))
          .summary?.outcome,
      ).toBe('succeeded');
    const queriesBefore = w.faults.requests.get('QueryCommand') ?? 0;
    const late = await deliver(h, {
      job: 'five-minute',
      scheduledTimeMs: base,
      label: 'late original event of S',
    });
    expect(late.summary).toMatchObject({ outcome: 'skipped', reason: 'already-succeeded' });
    expect((w.faults.requests.get('QueryCommand') ?? 0) - queriesBefore).toBe(1);
    const slotId = new Date(base).toISOString().slice(0, 16);
    const records = (await stack.runRecords('five-minute')).filter((r) => r.slot === slotId);
    expect(records.map((r) => `${r.outcome}/${r.reason ?? ''}`).sort()).toEqual([
      'skipped/already-succeeded',
      'succeeded/',
    ]);
    expect(records.find((r) => r.outcome === 'skipped')?.details).toEqual({
      succeededBy: caughtUp.summary?.runId,
    });
    const rows = (await stack.scan(stack.settlements)).filter((r) => r.settlementDate === slotId);
    expect(rows).toHaveLength(1);
  }, 120_000);
});

describe('case 4: a shard-count change while shard events are queued', () => {
  it('re-fans out payloads cut for 2 shards to the 4-shard version: every merchant settled once, no key space skipped', async () => {
    const merchants = Array.from({ length: 40 }, (_, i) => `M${i + 1}`);
    const version = (shards: number) =>
      defineJob({
        name: 'resharded',
        schedule: 'cron(0 1 * * ? *)',
        timeZone: 'Asia/Shanghai',
        businessDate: 'previous-day',
        lease: { durationSeconds: 60 },
        shards,
        run: async (ctx) => {
          for (const merchantId of merchants)
            if (ownsKey(ctx, merchantId, shards))
              await ctx.insertOnce(
                stack.settlements,
                { merchantId, settlementDate: ctx.businessDate },
                { shards },
              );
        },
      });
    const w = stack.worker();
    let v2: JobHandler | undefined;
    const dispatcher = new InProcessShardDispatcher(() => v2 as JobHandler);
    v2 = version(4).withDeps(() => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps);
    // Version 1 (2 shards) cut these payloads; version 2 (4 shards) receives them.
    const queued = shardPayloads(schedulerPayload('resharded', SLOT_MS), 2);
    const first = await Promise.all(
      queued.map((p) => v2(p, { awsRequestId: 'q', getRemainingTimeInMillis: () => 300_000 } as never)),
    );
    expect(first.map((s) => `${s.outcome}/${s.reason}`)).toEqual(['skipped/resharded', 'skipped/resharded']);
    const shardRuns = await dispatcher.settled();
    expect(shardRuns.map((d) => d.payload.shards)).toEqual(Array(8).fill(4));
    const succeeded = shardRuns.filter((d) => d.summary?.outcome === 'succeeded').map((d) => d.payload.shard);
    expect(succeeded.sort()).toEqual([0, 1, 2, 3]);
    const rows = (await stack.scan(stack.settlements)).filter((r) => r.settlementDate === DATE);
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.merchantId)).size).toBe(40);
    const records = await stack.runRecords('resharded');
    expect(records.filter((r) => r.reason === 'resharded').map((r) => r.details)).toEqual([
      { reshard: { cutFor: 2, current: 4, dispatched: 4 } },
      { reshard: { cutFor: 2, current: 4, dispatched: 4 } },
    ]);
    expect(
      records.filter((r) => r.outcome === 'succeeded').every((r) => r.def === definitionId(version(4).job)),
    ).toBe(true);
  }, 120_000);
});

describe('case 6: TransactionConflict is transient', () => {
  it('a duplicate whose claim conflicts with the holder’s effect transaction is skipped (no problem, no alarm); the holder’s conflicted transactions and release are retried', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    const release = gate();
    const a = stack.worker({
      pausePoint: (name) => (name === 'after-claim' ? release.promise : Promise.resolve()),
    });
    const b = stack.worker();
    a.faults.add({
      name: 'effect conflict',
      match: on.effect,
      action: { kind: 'fail', error: () => transactionCanceledByConflict() },
      times: 6,
    });
    a.faults.add({
      name: 'release conflict',
      match: on.release,
      action: { kind: 'fail', error: transactionConflictError },
      times: 2,
    });
    b.faults.add({
      name: 'claim conflict',
      match: on.claim,
      action: { kind: 'fail', error: transactionConflictError },
      times: 3,
    });
    const ra = deliver(
      setup.settlement.withDeps(() => a.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    await new Promise((r) => setTimeout(r, 300));
    const rb = await deliver(
      setup.settlement.withDeps(() => b.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'B duplicate' },
    );
    release.open();
    const A = await ra;
    expect(A.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(rb.summary).toMatchObject({ outcome: 'skipped', reason: 'lease-held' });
    expect(b.faults.fired.filter((f) => f.rule === 'claim conflict')).toHaveLength(3);
    expect(a.faults.fired.filter((f) => f.rule === 'effect conflict')).toHaveLength(6);
    expect(a.faults.fired.filter((f) => f.rule === 'release conflict')).toHaveLength(2);
    const records = await stack.runRecords('merchant-settlement');
    expect(records.map((r) => `${r.outcome}/${r.reason ?? ''}`).sort()).toEqual([
      'skipped/lease-held',
      'succeeded/',
    ]);
    expect(records.filter((r) => r.problem !== undefined)).toEqual([]);
    const rows = await rowsPerMerchant(DATE);
    expect([...rows.values()]).toEqual(Array(MERCHANTS.length).fill(1));
    for (const m of MERCHANTS) expect(service.payouts(payoutKey(m.merchantId, DATE))).toHaveLength(1);
    const lease = (await stack.scan(stack.tableName)).find((i) => i.sk === 'LEASE');
    expect(lease).toMatchObject({ holderState: 'released', leaseUntilMs: 0 });
  }, 120_000);
});

describe('case 6: one conflict retry policy (the client), not one per layer', () => {
  it('an effect transaction that keeps conflicting is sent CONFLICT_ATTEMPTS times in all, then the run fails store-error with nothing sent', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    const a = stack.worker();
    a.faults.add({
      name: 'effect conflict',
      match: on.effect,
      action: { kind: 'fail', error: () => transactionCanceledByConflict() },
      times: 100,
    });
    const ra = await deliver(
      setup.settlement.withDeps(() => a.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'store-error', fence: 1 });
    expect(a.faults.fired.filter((f) => f.rule === 'effect conflict')).toHaveLength(CONFLICT_ATTEMPTS);
    expect(CONFLICT_ATTEMPTS).toBe(8);
    expect(service.payouts()).toHaveLength(0);
  }, 120_000);
});

describe('case 8: abandoned marking reaches back more than one level', () => {
  it('a killed holder, two claims applied with lost responses and throttled retries, then a claim: every fence has exactly one terminal record', async () => {
    const job = settlementJob();
    const killGate = gate();
    const k = stack.worker({
      pausePoint: (name) => (name === 'after-claim' ? killGate.promise : Promise.resolve()),
    });
    void deliver(
      job.withDeps(() => k.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'K' },
    );
    await new Promise((r) => setTimeout(r, 500));
    k.faults.kill();
    const lost = (n: number) => {
      const w = stack.worker({ clock: new ControlledClock(n * 121_000) });
      w.faults.add({
        name: 'claim applied, response lost',
        match: on.claim,
        action: { kind: 'apply-then-fail' },
      });
      w.faults.add({
        name: 'claim retries throttled',
        match: on.claim,
        action: { kind: 'fail', error: throttlingError },
        times: 100,
      });
      w.faults.add({
        name: 'release throttled',
        match: on.release,
        action: { kind: 'fail', error: throttlingError },
        times: 100,
      });
      return w;
    };
    const c1 = lost(1);
    const r1 = await deliver(
      job.withDeps(() => c1.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'C1' },
    );
    const c2 = lost(2);
    const r2 = await deliver(
      job.withDeps(() => c2.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'C2' },
    );
    expect(r1.summary).toMatchObject({ outcome: 'failed', reason: 'store-error' });
    expect(r2.summary).toMatchObject({ outcome: 'failed', reason: 'store-error' });
    const c3 = stack.worker({ clock: new ControlledClock(3 * 121_000) });
    const r3 = await deliver(
      job.withDeps(() => c3.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'C3' },
    );
    expect(r3.summary).toMatchObject({ outcome: 'succeeded', fence: 4 });
    const records = await stack.runRecords('merchant-settlement');
    const kId = records.find((r) => r.outcome === 'abandoned')?.runId;
    expect(records.map((r) => `${r.outcome}/${r.reason}`).sort()).toEqual([
      'abandoned/not-released',
      'failed/store-error',
      'failed/store-error',
      'succeeded/undefined',
    ]);
    expect(records.find((r) => r.runId === kId)).toMatchObject({
      fence: 1,
      details: { detectedBy: r3.summary?.runId },
    });
    expect(new Set(records.map((r) => r.runId)).size).toBe(4);
    expect([...(await rowsPerMerchant(DATE)).values()]).toEqual(Array(MERCHANTS.length).fill(1));
  }, 120_000);
});
