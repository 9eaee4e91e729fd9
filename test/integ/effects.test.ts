/**
 * Issue 4 scenarios a, b, c, e (integ: DynamoDB Local + the local payment service): external effects
 * that never repeat, with exact counts of what the service executed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payoutKey, settlementEmailKey } from '../../functions/merchant-settlement.js';
import { MERCHANTS, type Merchant, settlementAmountCents } from '../../functions/merchants.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { on } from '../../harness/faults/sdk-faults.js';
import type { PaymentService } from '../../harness/local/payment-service.js';
import { deliver, lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  effectItem,
  effectItems,
  kill,
  MODES,
  needsReviewIndex,
  paymentsSetup,
  providers,
} from '../helpers/payment-fixture.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z'); // 01:00 Asia/Shanghai on 03-29 → settles 2026-03-28
const DATE = '2026-03-28';
const JOB = 'merchant-settlement';
const K1 = payoutKey('M1', DATE);
const K2 = payoutKey('M2', DATE);
let stack: LocalStack;
let service: PaymentService | undefined;

beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

describe('a. the service executes M1’s payout, the response is lost, and the function is killed', () => {
  it.each(MODES)(
    'with %s, the retry (fence + 1) reconciles M1 without a second execution',
    async (mode, caps) => {
      const setup = await paymentsSetup(caps);
      service = setup.service;
      service.inject({ kind: 'drop-response', match: { key: K1 } });
      const a = stack.worker();
      service.onExecute((op) => {
        if (op.key === K1) kill(a.faults);
      });
      const ra = await deliver(
        setup.settlement.withDeps(() => a.deps),
        { job: JOB, scheduledTimeMs: SLOT_MS, label: 'A' },
      );
      expect(ra.error?.message).toBe('DynamoDB PutItem (run record) failed: Error: killed'); // could not even record its failure
      expect(service.payouts(K1)).toHaveLength(1);
      const sending = await effectItem(stack, K1);
      expect(sending).toMatchObject({ status: 'sending', fence: 1, attempts: 1 });
      const requestsBefore = service.requests.length;

      const b = stack.worker({ clock: new ControlledClock(121_000) }); // A's 120 s lease has run out
      const rb = await deliver(
        setup.settlement.withDeps(() => b.deps),
        { job: JOB, scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'B' },
      );
      // with neither, M1 goes to needs-review: the run is `failed / effect-needs-review` (slot not done)
      expect(rb.summary).toMatchObject(
        mode === 'neither'
          ? { outcome: 'failed', reason: 'effect-needs-review', fence: 2 }
          : { outcome: 'succeeded', fence: 2 },
      );
      expect(service.payouts(K1)).toHaveLength(1);
      const k1Requests = service.requestsFor(K1).map((r) => `${r.method} ${r.status}`);
      const record = (await stack.runRecords(JOB)).find((r) => r.runId === rb.summary?.runId);
      const others = MERCHANTS.length - 1;
      if (mode === 'idempotency keys') {
        expect(k1Requests).toEqual(['POST dropped', 'POST 201']); // the resend replays; it does not execute
        expect(await effectItem(stack, K1)).toMatchObject({
          status: 'succeeded',
          fence: 2,
          attempts: 2,
          resolvedBy: 'resend',
        });
        expect(record?.details).toMatchObject({
          payouts: { resent: 1, sent: others, succeeded: MERCHANTS.length },
        });
      } else if (mode === 'lookup only') {
        expect(k1Requests).toEqual(['POST dropped', 'GET 200']); // one lookup, no second payout request
        expect(await effectItem(stack, K1)).toMatchObject({
          status: 'succeeded',
          fence: 2,
          attempts: 1,
          resolvedBy: 'lookup',
        });
        expect(record?.details).toMatchObject({
          payouts: { lookedUp: 1, sent: others, succeeded: MERCHANTS.length },
        });
      } else {
        expect(k1Requests).toEqual(['POST dropped']); // zero further requests for M1
        const item = await effectItem(stack, K1);
        expect(item).toMatchObject({
          status: 'needs-review',
          fence: 2,
          attempts: 1,
          problem: 'needs-review',
        });
        expect(await needsReviewIndex(stack)).toEqual([expect.objectContaining({ key: K1 })]);
        expect(record?.details).toMatchObject({
          payouts: { markedForReview: 1, needsReview: 1, sent: others, succeeded: others },
          effectsNeedingReview: [
            { key: K1, why: expect.stringContaining('supports neither idempotency keys nor lookup') },
          ],
        });
        expect(item?.reviewReason).toContain(`run ${String(sending?.runId)} (fence 1) is unknown`);
      }
      expect(service.requests.length - requestsBefore).toBe(k1Requests.length - 1 + others + 1); // + M2..M12 + e-mail
      expect(service.payouts()).toHaveLength(MERCHANTS.length);
      expect(service.emails()).toHaveLength(1);
    },
  );
});

describe('b. a holder that pauses past its lease', () => {
  it('refuses the paused holder’s payout for M2 before any HTTP request and records its run stale', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    const wake = gate();
    const paused = gate();
    const clockA = new ControlledClock();
    const a = stack.worker({
      clock: clockA,
      pausePoint: async (name, info) => {
        if (name !== 'before-write' || info.key?.effect !== K2) return;
        clockA.freeze();
        paused.open();
        await wake.promise;
        clockA.unfreeze();
      },
    });
    // A's renewals never leave: only the ownership check before the payout can tell A it is stale.
    a.faults.add({
      name: 'A frozen',
      match: on.renew,
      action: { kind: 'hold', release: new Promise(() => undefined) },
      times: 100,
    });
    const aRun = deliver(
      setup.settlement.withDeps(() => a.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    await paused.promise;
    expect(service.payouts().map((p) => p.key)).toEqual([K1]);
    const b = stack.worker({ clock: new ControlledClock(121_000) });
    const rb = await deliver(
      setup.settlement.withDeps(() => b.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'B' },
    );
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    const requestsAfterB = service.requests.length;
    expect(requestsAfterB).toBe(MERCHANTS.length + 1); // M1 by A, M2..M12 by B, one e-mail
    wake.open();
    const ra = await aRun;
    expect(ra.summary).toMatchObject({ outcome: 'stale', reason: 'stale-fence', fence: 1 });
    expect(ra.summary?.error?.message).toBe(
      `stale fence for lease JOB#${JOB} (checked before effect ${K2}): wrote with fence 1, stored fence is 2`,
    );
    expect(service.requests.length).toBe(requestsAfterB);
    expect(service.payouts()).toHaveLength(MERCHANTS.length);
    expect(await effectItem(stack, K2)).toMatchObject({ status: 'succeeded', fence: 2, attempts: 1 });
    const records = await stack.runRecords(JOB);
    expect(records.map((r) => `${r.fence}:${r.outcome}`).sort()).toEqual(['1:stale', '2:succeeded']);
  });
});

describe('c. a manual backfill of a settled date', () => {
  it('returns every stored outcome with zero provider calls and zero DynamoDB reads', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: true });
    service = setup.service;
    const first = stack.worker();
    await deliver(
      setup.settlement.withDeps(() => first.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'on-time' },
    );
    const requests = service.requests.length;
    expect(requests).toBe(MERCHANTS.length + 1);
    const w = stack.worker();
    const event = { ...schedulerPayload(JOB, SLOT_MS), trigger: 'manual', requestedBy: 'alice@example.com' };
    const s = await setup.settlement.withDeps(() => w.deps)(event, lambdaContext(JOB, 300));
    expect(s).toMatchObject({ outcome: 'succeeded', trigger: 'manual', fence: 2 });
    expect(service.requests.length).toBe(requests);
    const manual = (await stack.runRecords(JOB)).find((r) => r.trigger === 'manual');
    expect(manual?.details).toMatchObject({
      payouts: { stored: MERCHANTS.length, sent: 0, succeeded: MERCHANTS.length },
      email: 'succeeded (stored)',
    });
    expect(w.faults.requests.get('TransactWriteItemsCommand')).toBe(MERCHANTS.length + 1);
    expect(w.faults.requests.get('GetItemCommand') ?? 0).toBe(0);
    expect(w.faults.requests.get('QueryCommand') ?? 0).toBe(0);
    const effects = await effectItems(stack);
    expect(effects).toHaveLength(MERCHANTS.length + 1);
    expect(effects.every((e) => e.status === 'succeeded' && e.fence === 1 && e.attempts === 1)).toBe(true);
    expect(await effectItem(stack, settlementEmailKey(DATE))).toMatchObject({
      provider: 'emails',
      status: 'succeeded',
    });
  });
});

describe('e. the same key with a different request', () => {
  it('throws IdempotencyConflictError naming the key and sends nothing', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    const w = stack.worker();
    await deliver(
      setup.settlement.withDeps(() => w.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'on-time' },
    );
    const before = await effectItem(stack, K1);
    const requests = service.requests.length;
    const { payments } = providers(service);
    // Effect keys are scoped per job: the conflict is the same job asking again with another amount.
    const tamper = defineJob({
      effects: effectRunner,
      name: JOB,
      schedule: 'rate(1 day)',
      lease: { durationSeconds: 30 },
      run: async (ctx) => {
        const amountCents = settlementAmountCents(MERCHANTS[0] as Merchant, DATE) + 100;
        await ctx.effect(
          K1,
          { merchantId: 'M1', settlementDate: DATE, amountCents, currency: 'CNY' },
          payments,
        );
      },
    });
    const r = await deliver(
      tamper.withDeps(() => w.deps),
      {
        job: JOB,
        scheduledTimeMs: SLOT_MS,
        label: 'correction',
        extra: { trigger: 'manual', requestedBy: 'ops' },
      },
    );
    // Recorded failed and not rethrown: a retry would meet the same conflict.
    expect(r.error).toBeUndefined();
    expect(r.summary?.error).toEqual({
      name: 'IdempotencyConflictError',
      message: `idempotency key "${K1}" was already used with a different request; nothing sent`,
    });
    expect(r.summary).toMatchObject({ outcome: 'failed', reason: 'error' });
    expect(service.requests.length).toBe(requests);
    expect(await effectItem(stack, K1)).toEqual(before);
  });
});
