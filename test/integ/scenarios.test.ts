/**
 * Issue 2 scenarios (integ: DynamoDB Local): one scheduled occurrence, one business result.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { handler as settlement } from '../../functions/merchant-settlement.js';
import { MERCHANTS } from '../../functions/merchants.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { on } from '../../harness/faults/sdk-faults.js';
import { deliver, lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { BusinessAttr } from '../../lib/core/results.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z'); // 01:00 Asia/Shanghai on 03-29 → settles 2026-03-28
const SETTLEMENT_DATE = '2026-03-28';
let stack: LocalStack;

beforeEach(async () => {
  stack = await localStack();
});

async function seedLease(job: string, fence: number) {
  await stack.doc.send(
    new PutCommand({
      TableName: stack.tableName,
      Item: {
        pk: `JOB#${job}`,
        sk: 'LEASE',
        fence,
        leaseUntilMs: 0,
        holderState: 'released',
        owner: 'seed',
        slot: 'seed',
      },
    }),
  );
}

describe('one slot, many deliveries', () => {
  it('lets exactly one of 50 concurrent invocations claim; the other 49 are skipped lease-held naming the holder', async () => {
    await seedLease('merchant-settlement', 7);
    const release = gate();
    const skipped: RunSummary[] = [];
    const w = stack.worker({
      pausePoint: (name) => (name === 'after-claim' ? release.promise : Promise.resolve()),
    });
    const h = settlement.withDeps(
      () => w.deps,
      (s) => {
        if (s.outcome === 'skipped') {
          skipped.push(s);
          if (skipped.length === 49) release.open();
        }
      },
    );
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        deliver(h, {
          job: 'merchant-settlement',
          scheduledTimeMs: SLOT_MS,
          awsRequestId: 'req-1',
          label: 'dup',
        }),
      ),
    );
    const winners = results.filter((r) => r.summary?.outcome === 'succeeded');
    expect(winners).toHaveLength(1);
    expect(winners[0]?.summary?.fence).toBe(8);
    expect(skipped).toHaveLength(49);
    const records = await stack.runRecords('merchant-settlement');
    expect(records).toHaveLength(50);
    const skips = records.filter((r) => r.outcome === 'skipped');
    expect(skips).toHaveLength(49);
    const winner = records.find((r) => r.outcome === 'succeeded');
    for (const s of skips) {
      expect(s.reason).toBe('lease-held');
      expect(s.holderSeen).toMatchObject({ runId: winner?.runId, fence: 8 });
      expect((s.holderSeen as { leaseUntilMs: number }).leaseUntilMs).toBeGreaterThan(
        Number(winner?.startedAtMs),
      );
    }
    const rows = await stack.scan(stack.settlements);
    expect(rows).toHaveLength(MERCHANTS.length);
    expect(new Set(rows.map((r) => `${r.merchantId}|${r.settlementDate}`)).size).toBe(MERCHANTS.length);
    expect(rows.every((r) => r.settlementDate === SETTLEMENT_DATE && r[BusinessAttr.fence] === 8)).toBe(true);
  });

  it('skips a duplicate 15 minutes after success as already-succeeded with zero business writes and zero reads', async () => {
    const first = stack.worker();
    const r1 = await deliver(
      settlement.withDeps(() => first.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'on-time' },
    );
    expect(r1.summary?.outcome).toBe('succeeded');
    const late = stack.worker({ clock: new ControlledClock(15 * 60_000) });
    const r2 = await deliver(
      settlement.withDeps(() => late.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'late' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'skipped', reason: 'already-succeeded', trigger: 'retry' });
    expect(Object.fromEntries(late.faults.requests)).toEqual({ UpdateItemCommand: 1, PutItemCommand: 1 }); // failed claim + skip record
    expect(late.faults.requests.get('GetItemCommand') ?? 0).toBe(0);
    expect(await stack.scan(stack.settlements)).toHaveLength(MERCHANTS.length);
  });
});

describe('a holder that pauses past its lease', () => {
  it('refuses the paused holder’s write with StaleFenceError (stored 43) and keeps the newer report', async () => {
    await seedLease('daily-report', 41);
    const reportSlot = Date.parse('2026-03-28T01:30:00Z');
    const wake = gate();
    const paused = gate();
    const clockA = new ControlledClock();
    const a = stack.worker({
      clock: clockA,
      pausePoint: async (name) => {
        if (name !== 'before-write') return;
        clockA.freeze(); // the whole process freezes: its clock and timers see no time pass
        paused.open();
        await wake.promise;
        clockA.unfreeze();
      },
    });
    a.faults.add({
      name: 'A frozen: renewals never leave',
      match: on.renew,
      action: { kind: 'hold', release: wake.promise },
      times: 100,
    });
    const aRun = deliver(
      dailyReport.withDeps(() => a.deps),
      { job: 'daily-report', scheduledTimeMs: reportSlot, label: 'A' },
    );
    await paused.promise;
    const b = stack.worker({ clock: new ControlledClock(61_000) }); // A's 60 s lease has run out for B
    const bRes = await deliver(
      dailyReport.withDeps(() => b.deps),
      { job: 'daily-report', scheduledTimeMs: reportSlot, attemptNumber: 2, label: 'B' },
    );
    expect(bRes.summary).toMatchObject({ outcome: 'succeeded', fence: 43 });
    wake.open();
    const aRes = await aRun;
    expect(aRes.summary).toMatchObject({ outcome: 'stale', reason: 'stale-fence', fence: 42 });
    expect(aRes.summary?.error?.name).toBe('StaleFenceError');
    expect(aRes.summary?.error?.message).toContain('stored fence is 43');
    const [report] = await stack.scan(stack.reports);
    expect(report).toMatchObject({
      reportDate: '2026-03-28',
      'cronfence:fence': 43,
      'cronfence:runId': bRes.summary?.runId,
    });
    const records = await stack.runRecords('daily-report');
    expect(records.map((r) => `${r.fence}:${r.outcome}`).sort()).toEqual(['42:stale', '43:succeeded']);
  });
});

describe('failures and retries', () => {
  it('retries a run that failed on M2 with a new owner token, keeps M1’s row and writes M2', async () => {
    const w1 = stack.worker();
    w1.faults.add({
      name: 'DynamoDB error on M2',
      match: on.all(on.table(stack.settlements), on.keyContains('"M2"')),
      action: {
        kind: 'fail',
        error: () =>
          Object.assign(new Error('injected: access denied'), {
            name: 'AccessDeniedException',
            $metadata: {},
          }),
      },
    });
    // Keep the first attempt to M1 only: stop after the failure.
    const r1 = await deliver(
      settlement.withDeps(() => w1.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, awsRequestId: 'req-d', label: 'first' },
    );
    expect(r1.error?.name).toBe('StoreError');
    expect(r1.summary).toMatchObject({ outcome: 'failed', reason: 'store-error', fence: 1 });
    expect(r1.summary?.error?.message).toContain('"M2"');
    const afterFirst = await stack.scan(stack.settlements);
    expect(afterFirst.map((r) => r.merchantId)).toEqual(['M1']);
    const w2 = stack.worker();
    const r2 = await deliver(
      settlement.withDeps(() => w2.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, awsRequestId: 'req-d', label: 'retry' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(r2.summary?.runId).not.toBe(r1.summary?.runId);
    const rows = await stack.scan(stack.settlements);
    expect(rows).toHaveLength(MERCHANTS.length);
    expect(rows.find((r) => r.merchantId === 'M1')?.[BusinessAttr.fence]).toBe(1);
    expect(rows.find((r) => r.merchantId === 'M2')?.[BusinessAttr.fence]).toBe(2);
    const records = await stack.runRecords('merchant-settlement');
    expect(records.map((r) => [r.outcome, r.lambdaRequestId]).sort()).toEqual([
      ['failed', 'req-d'],
      ['succeeded', 'req-d'],
    ]);
    const ok = records.find((r) => r.outcome === 'succeeded');
    expect(ok?.details).toEqual({
      inserted: MERCHANTS.length - 1,
      existing: 1,
      payouts: 'not configured (PAYMENTS_URL unset)',
    });
  });

  it('continues as holder when a claim was applied but its response was lost (same fence, one row each)', async () => {
    const w = stack.worker();
    w.faults.add({ name: 'claim response lost', match: on.claim, action: { kind: 'apply-then-fail' } });
    const r = await deliver(
      settlement.withDeps(() => w.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'lost-response' },
    );
    expect(w.faults.fired).toEqual([{ rule: 'claim response lost', command: 'UpdateItemCommand' }]);
    expect(r.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(await stack.scan(stack.settlements)).toHaveLength(MERCHANTS.length);
    expect(await stack.runRecords('merchant-settlement')).toHaveLength(1);
  });

  it('skips a retry before a killed holder’s lease ends, then claims after it and marks the killed run abandoned', async () => {
    const a = stack.worker({
      pausePoint: (name) =>
        name === 'before-write' ? new Promise<void>(() => undefined) : Promise.resolve(),
    });
    const killed = deliver(
      settlement.withDeps(() => a.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'killed' },
    );
    void killed;
    await new Promise((r) => setTimeout(r, 300));
    a.faults.add({
      name: 'process gone',
      match: () => true,
      action: { kind: 'fail', error: () => new Error('killed') },
      times: 1e9,
    });
    const early = stack.worker();
    const r1 = await deliver(
      settlement.withDeps(() => early.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'early retry' },
    );
    expect(r1.summary).toMatchObject({ outcome: 'skipped', reason: 'lease-held' });
    const lateW = stack.worker({ clock: new ControlledClock(121_000) });
    const r2 = await deliver(
      settlement.withDeps(() => lateW.deps),
      { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, attemptNumber: 3, label: 'late retry' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    const records = await stack.runRecords('merchant-settlement');
    const abandoned = records.filter((rec) => rec.outcome === 'abandoned');
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]).toMatchObject({ fence: 1, reason: 'not-released', problem: 'abandoned' });
    expect(records).toHaveLength(3); // killed (now abandoned), early skip, late success: one per invocation
    expect(await stack.scan(stack.settlements)).toHaveLength(MERCHANTS.length);
  });

  it('runs a manual re-run of a settled date through the same path with requestedBy and zero new rows', async () => {
    const w = stack.worker();
    const h = settlement.withDeps(() => w.deps);
    await deliver(h, { job: 'merchant-settlement', scheduledTimeMs: SLOT_MS, label: 'on-time' });
    const event = {
      ...schedulerPayload('merchant-settlement', SLOT_MS),
      trigger: 'manual',
      requestedBy: 'alice@example.com',
      reason: 'auditor asked',
    };
    const s = await h(event, lambdaContext('merchant-settlement', 300));
    expect(s).toMatchObject({ outcome: 'succeeded', trigger: 'manual', fence: 2 });
    const manual = (await stack.runRecords('merchant-settlement')).find((r) => r.trigger === 'manual');
    expect(manual).toMatchObject({
      requestedBy: 'alice@example.com',
      requestReason: 'auditor asked',
      details: { inserted: 0, existing: MERCHANTS.length, payouts: 'not configured (PAYMENTS_URL unset)' },
    });
    expect(await stack.scan(stack.settlements)).toHaveLength(MERCHANTS.length);
  });
});
