/**
 * Issue 4 bad input and provider errors (integ: DynamoDB Local + the local payment service): 4xx is
 * permanent, 5xx and timeouts are uncertain and reconciled under the same key, bad keys are refused
 * before any write; plus what one effect costs in DynamoDB requests and the events it reports.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PayoutRequest, payoutKey } from '../../functions/merchant-settlement.js';
import { MERCHANTS } from '../../functions/merchants.js';
import { gate } from '../../harness/faults/pause-points.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import { deliver, lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import type { EffectProvider } from '../../lib/core/effects.js';
import { MAX_EFFECT_KEY_BYTES } from '../../lib/effects/keys.js';
import { EffectOutcomeUnknownError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import type { RuntimeEvent } from '../../lib/runtime/events.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { effectItem, paymentsSetup, providers } from '../helpers/payment-fixture.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const DATE = '2026-03-28';
const JOB = 'merchant-settlement';
const K3 = payoutKey('M3', DATE);
const PAYOUT: PayoutRequest = { merchantId: 'M9', settlementDate: DATE, amountCents: 500, currency: 'CNY' };
let stack: LocalStack;
let service: PaymentService | undefined;

beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

/** A one-off job that runs `body` with the payments adapter. */
function probeJob(body: (ctx: Parameters<Parameters<typeof defineJob>[0]['run']>[0]) => Promise<unknown>) {
  return defineJob({
    effects: effectRunner,
    name: 'effects-probe',
    schedule: 'rate(1 day)',
    lease: { durationSeconds: 30 },
    run: body,
  });
}

function transitions(events: RuntimeEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'effect-transition' ? [`${e.from}->${e.to}${e.note ? ` (${e.note})` : ''}`] : [],
  );
}

describe('a provider’s 4xx is permanent', () => {
  it('records M3’s payout failed with the status, pays the others, and never asks the provider again', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    service.inject({ kind: 'status', status: 422, match: { key: K3 } });
    const w = stack.worker();
    const r = await deliver(
      setup.settlement.withDeps(() => w.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'on-time' },
    );
    expect(r.summary).toMatchObject({ outcome: 'succeeded' });
    expect(await effectItem(stack, K3)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { httpStatus: 422, message: 'injected fault' },
    });
    const event = { ...schedulerPayload(JOB, SLOT_MS), trigger: 'manual', requestedBy: 'ops' };
    await setup.settlement.withDeps(() => stack.worker().deps)(event, lambdaContext(JOB, 300));
    expect(service.requestsFor(K3).map((q) => `${q.method} ${q.status}`)).toEqual(['POST 422']);
    expect(service.payouts()).toHaveLength(MERCHANTS.length - 1);
    const manual = (await stack.runRecords(JOB)).find((rec) => rec.trigger === 'manual');
    expect(manual?.details).toMatchObject({
      payouts: { stored: MERCHANTS.length, failed: 1, succeeded: MERCHANTS.length - 1 },
    });
  });
});

describe('a 5xx or a timeout is uncertain', () => {
  it('keeps a payout answered 503 in sending, fails the run naming the key, and the retry resends it with the same key once', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: true, lookup: false });
    service = setup.service;
    service.inject({ kind: 'status', status: 503, match: { key: K3 } });
    const events: RuntimeEvent[] = [];
    const w1 = stack.worker();
    const deps1 = { ...w1.deps, observe: (e: RuntimeEvent) => events.push(e) };
    const r1 = await deliver(
      setup.settlement.withDeps(() => deps1),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'first' },
    );
    expect(r1.error).toBeInstanceOf(EffectOutcomeUnknownError);
    expect(r1.summary?.error?.message).toBe(
      `outcome of effect "${K3}" is unknown (HTTP 503: injected fault); it stays "sending" and the next run reconciles it under the same key`,
    );
    expect(r1.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    expect(await effectItem(stack, K3)).toMatchObject({ status: 'sending', attempts: 1, fence: 1 });
    const k3Events = events.filter((e) => e.type === 'effect-transition' && e.key === K3);
    expect(transitions(k3Events)).toEqual([
      'none->sending',
      'sending->sending (outcome unknown: HTTP 503: injected fault)',
    ]);

    events.length = 0;
    const w2 = stack.worker();
    const deps2 = { ...w2.deps, observe: (e: RuntimeEvent) => events.push(e) };
    const r2 = await deliver(
      setup.settlement.withDeps(() => deps2),
      { job: JOB, scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(transitions(events.filter((e) => e.type === 'effect-transition' && e.key === K3))).toEqual([
      'sending->sending (resend with the same key)',
      'sending->succeeded',
    ]);
    expect(service.requestsFor(K3).map((q) => `${q.method} ${q.status}`)).toEqual(['POST 503', 'POST 201']);
    expect(service.payouts(K3)).toHaveLength(1);
    expect(await effectItem(stack, K3)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      fence: 2,
      resolvedBy: 'resend',
    });
  });

  it('with lookup only, trusts a lookup that finds nothing only after lookupSettleMs on its own clock, so a late execution is found, not repeated', async () => {
    const setup = await paymentsSetup(
      { idempotencyKeys: false, lookup: true },
      {},
      { timeoutMs: 150, lookupSettleMs: 2_000 },
    );
    service = setup.service;
    // No real-time race: the slow POST is held until the retry's first lookup has answered 404.
    const slowPost = gate();
    service.inject({ kind: 'delay', until: slowPost.promise, match: { key: K3, method: 'POST' } });
    const r1 = await deliver(
      setup.settlement.withDeps(() => stack.worker().deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'first' },
    );
    expect(r1.error?.message).toContain('(no response within 150 ms)');
    // The retry finds K3 `sending`, looks up (404: the slow request has not executed yet), waits
    // lookupSettleMs on ITS clock from when it first saw `sending`, looks up again and finds it.
    const retry = deliver(
      setup.settlement.withDeps(() => stack.worker().deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry' },
    );
    const svc = service;
    await expect
      .poll(() => svc.requestsFor(K3).some((q) => q.method === 'GET'), { timeout: 30_000 })
      .toBe(true);
    slowPost.open(); // the slow request executes late, inside the retry's settle window
    const r2 = await retry;
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(service.requestsFor(K3).map((q) => `${q.method} ${q.status}`)).toEqual([
      'GET 404',
      'POST 201',
      'GET 200',
    ]);
    expect(service.payouts(K3)).toHaveLength(1);
    expect(await effectItem(stack, K3)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      resolvedBy: 'lookup',
    });
  });

  it('with lookup only, resends with the same key when the lookup finds nothing after the settle time', async () => {
    const setup = await paymentsSetup({ idempotencyKeys: false, lookup: true }, {}, { lookupSettleMs: 0 });
    service = setup.service;
    service.inject({ kind: 'status', status: 502, match: { key: K3 } });
    await deliver(
      setup.settlement.withDeps(() => stack.worker().deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, label: 'first' },
    );
    const r2 = await deliver(
      setup.settlement.withDeps(() => stack.worker().deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(service.requestsFor(K3).map((q) => `${q.method} ${q.status}`)).toEqual([
      'POST 502',
      'GET 404',
      'POST 201',
    ]);
    expect(service.payouts(K3)).toHaveLength(1);
    expect(await effectItem(stack, K3)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('resends under the same key within the same run when the job asks again after an unknown outcome', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    service.inject({ kind: 'drop-response', match: { key: 'payout#M9#2026-03-28' } });
    const { payments } = providers(service);
    const job = probeJob(async (ctx) => {
      const first = await ctx.effect('payout#M9#2026-03-28', PAYOUT, payments).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(EffectOutcomeUnknownError);
      const second = await ctx.effect('payout#M9#2026-03-28', PAYOUT, payments);
      ctx.setDetail('second', `${second.status} (${second.source}, attempts ${second.attempts})`);
    });
    const r = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'effects-probe', scheduledTimeMs: SLOT_MS, label: 'probe' },
    );
    expect(r.summary).toMatchObject({ outcome: 'succeeded' });
    expect((await stack.runRecords('effects-probe'))[0]?.details).toEqual({
      second: 'succeeded (resent, attempts 2)',
    });
    expect(service.payouts()).toHaveLength(1);
  });
});

describe('idempotency keys DynamoDB cannot store', () => {
  it.each([
    ['an empty key', ''],
    [`a key of ${MAX_EFFECT_KEY_BYTES + 1} ASCII bytes`, 'k'.repeat(MAX_EFFECT_KEY_BYTES + 1)],
    [`a key of ${MAX_EFFECT_KEY_BYTES + 2} UTF-8 bytes in fewer characters`, 'é'.repeat(989)],
  ])('rejects %s with InvalidArgumentError before any write or request', async (_name, key) => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    const w = stack.worker();
    const job = probeJob((ctx) => ctx.effect(key, PAYOUT, payments));
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: 'effects-probe', scheduledTimeMs: SLOT_MS, label: 'probe' },
    );
    // Recorded failed and not rethrown: an input error meets a Lambda retry the same way.
    expect([r.error, r.summary?.outcome, r.summary?.error?.name]).toEqual([
      undefined,
      'failed',
      'InvalidArgumentError',
    ]);
    expect(r.summary?.error?.message).toMatch(
      key === '' ? /must not be empty/ : /is 197[78] bytes \(UTF-8\); at most 1976 fit/,
    );
    expect(w.faults.requests.get('TransactWriteItemsCommand') ?? 0).toBe(0);
    expect(service.requests).toHaveLength(0);
  });

  it(`accepts a key of exactly ${MAX_EFFECT_KEY_BYTES} bytes and pays once`, async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    const key = 'k'.repeat(MAX_EFFECT_KEY_BYTES);
    const job = probeJob((ctx) => ctx.effect(key, PAYOUT, payments));
    const r = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'effects-probe', scheduledTimeMs: SLOT_MS, label: 'probe' },
    );
    expect(r.summary?.outcome).toBe('succeeded');
    expect(service.payouts(key)).toHaveLength(1);
    expect(await effectItem(stack, key)).toMatchObject({ status: 'succeeded', key });
  });
});

describe('a job whose definition names no effect runner', () => {
  it('records ctx.effect refused naming the effects option, with no effect write and no provider request', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    const w = stack.worker();
    const job = defineJob({
      name: 'effects-probe',
      schedule: 'rate(1 day)',
      lease: { durationSeconds: 30 },
      run: (ctx) => ctx.effect('payout#M9', PAYOUT, payments),
    });
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: 'effects-probe', scheduledTimeMs: SLOT_MS, label: 'probe' },
    );
    // An input error: recorded failed, not rethrown (a Lambda retry would meet it again).
    expect([r.error, r.summary?.outcome, r.summary?.reason, r.summary?.error?.name]).toEqual([
      undefined,
      'failed',
      'error',
      'InvalidJobDefinitionError',
    ]);
    expect(r.summary?.error?.message).toBe(
      'invalid job definition: "effects" = undefined: ctx.effect needs the effect runner: defineJob({ effects: effectRunner, ... }) with effectRunner from cronfence',
    );
    const records = await stack.runRecords('effects-probe');
    expect(records.map((rec) => [rec.outcome, rec.reason])).toEqual([['failed', 'error']]);
    expect(w.faults.requests.get('TransactWriteItemsCommand') ?? 0).toBe(0);
    expect(await effectItem(stack, 'payout#M9')).toBeUndefined();
    expect(service.requests).toHaveLength(0);
  });
});

describe('what an effect costs', () => {
  it('writes a new effect with one TransactWriteItems and one UpdateItem, reads nothing, and re-reads a stored one for one refused transaction', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    const job = probeJob(async (ctx) => {
      for (const m of ['A', 'B', 'C']) {
        await ctx.effect<PayoutRequest>(
          `payout#${m}#${DATE}`,
          { ...PAYOUT, merchantId: m },
          payments as EffectProvider<PayoutRequest>,
        );
      }
    });
    const first = stack.worker();
    await deliver(
      job.withDeps(() => first.deps),
      { job: 'effects-probe', scheduledTimeMs: SLOT_MS, label: 'first' },
    );
    // + claim, release (UpdateItem) and the run record (PutItem)
    expect(Object.fromEntries(first.faults.requests)).toEqual({
      UpdateItemCommand: 3 + 2,
      TransactWriteItemsCommand: 3,
      PutItemCommand: 1,
    });
    const again = stack.worker();
    const event = { ...schedulerPayload('effects-probe', SLOT_MS), trigger: 'manual', requestedBy: 'ops' };
    await job.withDeps(() => again.deps)(event, lambdaContext('effects-probe', 60));
    expect(Object.fromEntries(again.faults.requests)).toEqual({
      UpdateItemCommand: 2,
      TransactWriteItemsCommand: 3,
      PutItemCommand: 1,
    });
    expect(service.requests).toHaveLength(3);
  });
});
