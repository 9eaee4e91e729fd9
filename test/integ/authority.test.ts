/**
 * Issue 12 (integ: DynamoDB Local + the local payment service): safety under Lambda's real behaviour.
 * Each case is one member of a kind the issue names; each asserts exact outcomes — payouts executed at
 * the service, stored fences, recorded outcomes and reasons.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PayoutRequest } from '../../functions/merchant-settlement.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { on } from '../../harness/faults/sdk-faults.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import type { EffectProvider } from '../../lib/core/effects.js';
import { doneSlotsFor, type LeaseItem } from '../../lib/core/lease.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import type { JobContext } from '../../lib/runtime/job-context.js';
import { DynamoEffectStore } from '../../lib/store/effect-store.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';
import { effectItem, providers } from '../helpers/payment-fixture.js';
import { cli, json, stackEnv } from './cli-harness.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const DAY_MS = 86_400_000;
const PAYOUT: PayoutRequest = {
  merchantId: 'M9',
  settlementDate: '2026-03-28',
  amountCents: 500,
  currency: 'CNY',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stack: LocalStack;
let service: PaymentService | undefined;

beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

/** A one-off job (`rate(1 day)`) running `body`. */
function probe(
  body: (ctx: JobContext) => Promise<unknown>,
  o: { name?: string; leaseSeconds?: number; timeoutSeconds?: number; shards?: number } = {},
) {
  return defineJob({
    effects: effectRunner,
    name: o.name ?? 'authority-probe',
    schedule: 'rate(1 day)',
    lease: { durationSeconds: o.leaseSeconds ?? 60 },
    timeoutSeconds: o.timeoutSeconds ?? 60,
    ...(o.shards !== undefined && { shards: o.shards, dispatch: { dispatch: async () => undefined } }),
    run: body,
  });
}

/**
 * Holder A freezes with its clock at `at` (by its own reading its lease never lapses; its renewals never
 * land), successor B claims after A's 60 s lease and runs to the end, then A wakes.
 * @returns A's and B's results
 */
async function frozenHolderThenSuccessor(job: ReturnType<typeof probe>, at: 'after-claim' | 'before-finish') {
  const wake = gate();
  const paused = gate();
  const clockA = new ControlledClock();
  const a = stack.worker({
    clock: clockA,
    pausePoint: async (name) => {
      if (name !== at) return;
      clockA.freeze();
      paused.open();
      await wake.promise;
    },
  });
  a.faults.add({
    name: 'A frozen: renewals never land',
    match: on.renew,
    action: { kind: 'hold', release: new Promise(() => undefined) },
    times: 100,
  });
  const ra = deliver(
    job.withDeps(() => a.deps),
    { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
  );
  await paused.promise;
  const rb = await deliver(
    job.withDeps(() => stack.worker({ clock: new ControlledClock(61_000) }).deps),
    { job: 'authority-probe', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'B' },
  );
  wake.open();
  return { a: await ra, b: rb };
}

const requests = (key: string) => (service?.requestsFor(key) ?? []).map((q) => `${q.method} ${q.status}`);
const recordsOf = async (job = 'authority-probe') =>
  (await stack.runRecords(job)).map((r) => `${r.fence}:${r.outcome}/${r.reason ?? '-'}`).sort();
const lease = async (pk: string): Promise<LeaseItem | undefined> =>
  (await stack.scan(stack.tableName)).find((i) => i.pk === pk && i.sk === 'LEASE') as LeaseItem | undefined;

/** `cronfence effects resolve <key> --as <as>` by operator `ops` on the probe job. */
const resolveAsOps = (key: string, as: string, note: string) =>
  cli(
    ['effects', 'resolve', key, '--job', 'authority-probe', '--as', as, '--note', note, '--by', 'ops'],
    stackEnv(stack),
  );

describe('1. writes after the run’s record (a parallel body)', () => {
  it('refuses the sibling branch’s effect and fenced write once the run is recorded, in the process and in DynamoDB', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    service.inject({ kind: 'status', status: 503, match: { key: 'k-fails' } });
    const { payments } = providers(service);
    let late: unknown;
    // The sibling branch wakes only after the handler has returned (no real-time race under load).
    const handlerReturned = gate();
    const job = probe((ctx) =>
      Promise.all([
        ctx.effect('k-fails', PAYOUT, payments), // 503 → outcome unknown → the body rejects at once
        (async () => {
          await handlerReturned.promise;
          await ctx.effect('k-late', PAYOUT, payments);
          await ctx.fencedPut(stack.reports, { reportDate: 'x' }, { body: 'late' });
        })().catch((e: unknown) => {
          late = e;
          throw e;
        }),
      ]),
    );
    const w = stack.worker();
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(r.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    expect(r.error?.name).toBe('EffectOutcomeUnknownError');
    handlerReturned.open();
    await expect.poll(() => late, { timeout: 30_000 }).toBeDefined();
    expect((late as Error)?.name).toBe('RunFinishedError');
    expect(requests('k-fails')).toEqual(['POST 503']);
    expect(requests('k-late')).toEqual([]);
    expect(service.payouts()).toHaveLength(0);
    expect(await stack.scan(stack.reports)).toEqual([]);
    expect(await recordsOf()).toEqual(['1:failed/error']);
    expect(await lease('JOB#authority-probe')).toMatchObject({ holderState: 'released', fence: 1 });
    // And in DynamoDB: the effect transaction's lease check of the finished run is refused.
    const effects = new DynamoEffectStore(stack.doc, stack.tableName, 'authority-probe');
    const fc = {
      leaseKey: 'JOB#authority-probe',
      runId: String(r.summary?.runId),
      fence: 1,
      nowMs: Date.now(),
    };
    const refused = await effects.beginSending(
      'k-late',
      { requestHash: 'h', job: 'authority-probe', provider: 'p' },
      fc,
    );
    expect(refused).toMatchObject({ kind: 'lease-lost', lease: { holderState: 'released' } });
    expect(await effectItem(stack, 'k-late')).toBeUndefined();
  });
});

describe('2. a renewal delivered after the release', () => {
  it('is refused: the lease stays released and the next slot’s on-time delivery runs, not `overlap`', async () => {
    const network = gate();
    const job = probe(() => sleep(1_500), { leaseSeconds: 3 }); // renews after 1 s
    const a = stack.worker();
    a.faults.add({
      name: 'renewal held in the network',
      match: on.renew,
      action: { kind: 'hold', release: network.promise },
    });
    const ra = await deliver(
      job.withDeps(() => a.deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(await lease('JOB#authority-probe')).toMatchObject({ holderState: 'released', leaseUntilMs: 0 });
    network.open(); // the held renewal lands after the release
    await sleep(1_000);
    expect(await lease('JOB#authority-probe')).toMatchObject({
      holderState: 'released',
      leaseUntilMs: 0,
      fence: 1,
    });
    const rb = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS + DAY_MS, label: 'next slot' },
    );
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
  });
});

describe('3. a lower fence on an insert-once row', () => {
  it('refuses the frozen holder’s fenced write: the row keeps one fence attribute, 2, whichever writer created it', async () => {
    const body = async (ctx: JobContext) => {
      await ctx.insertOnce(stack.reports, { reportDate: 'K' }, { body: `insert by ${ctx.fence}` });
      await ctx.fencedPut(stack.reports, { reportDate: 'K' }, { total: ctx.fence });
    };
    const { a: resA, b: rb } = await frozenHolderThenSuccessor(probe(body), 'after-claim');
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(resA.summary).toMatchObject({ outcome: 'stale', reason: 'stale-fence', fence: 1 });
    expect(resA.summary?.error?.message).toContain('stored fence is 2');
    const rows = await stack.scan(stack.reports);
    expect(rows).toEqual([
      expect.objectContaining({
        reportDate: 'K',
        body: 'insert by 2',
        total: 2,
        'cronfence:fence': 2,
        'cronfence:runId': rb.summary?.runId,
      }),
    ]);
    expect(await recordsOf()).toEqual(['1:stale/stale-fence', '2:succeeded/-']);
  });
});

describe('4. fences of two leases', () => {
  it('lets the first shard run take over the report and the `sending` payout of the unsharded lease once it is released', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    await stack.doc.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: {
          pk: 'JOB#rep',
          sk: 'LEASE',
          fence: 39,
          leaseUntilMs: 0,
          holderState: 'released',
          owner: 'seed',
          slot: 'seed',
        },
      }),
    );
    const body = async (ctx: JobContext) => {
      await ctx.fencedPut(stack.reports, { reportDate: '2026-03-28' }, { by: ctx.shard ?? 'unsharded' });
      if (ctx.shard === undefined || ctx.shard === 0) await ctx.effect('payout#rep', PAYOUT, payments);
    };
    service.inject({ kind: 'drop-response', match: { key: 'payout#rep' } });
    const old = await deliver(
      probe(body, { name: 'rep' }).withDeps(() => stack.worker().deps),
      { job: 'rep', scheduledTimeMs: SLOT_MS, label: 'unsharded' },
    );
    expect(old.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 40 });
    expect(await effectItem(stack, 'payout#rep')).toMatchObject({
      status: 'sending',
      fence: 40,
      leaseKey: 'JOB#rep',
    });
    // redeployed with 2 shards: shard 0's lease is JOB#rep#0, fence 1
    const shard0 = await deliver(
      probe(body, { name: 'rep', shards: 2 }).withDeps(
        () => stack.worker({ clock: new ControlledClock(60_000) }).deps,
      ),
      { job: 'rep', scheduledTimeMs: SLOT_MS, attemptNumber: 2, extra: { shard: 0 }, label: 'shard 0' },
    );
    expect(shard0.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(await stack.scan(stack.reports)).toEqual([
      expect.objectContaining({
        reportDate: '2026-03-28',
        by: 0,
        'cronfence:fence': 1,
        'cronfence:lease': 'JOB#rep#0',
      }),
    ]);
    expect(await effectItem(stack, 'payout#rep')).toMatchObject({
      status: 'succeeded',
      fence: 1,
      leaseKey: 'JOB#rep#0',
      attempts: 2,
      resolvedBy: 'resend',
    });
    expect(requests('payout#rep')).toEqual(['POST dropped', 'POST 201']);
    expect(service.payouts('payout#rep')).toHaveLength(1);
  });

  it('leaves an item of another lease that is still running alone, and says why (not stale, not final)', async () => {
    await stack.doc.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: {
          pk: 'JOB#rep',
          sk: 'LEASE',
          fence: 40,
          leaseUntilMs: Date.now() + 600_000,
          holderState: 'running',
          owner: 'other',
          slot: 's',
        },
      }),
    );
    await stack.doc.send(
      new PutCommand({
        TableName: stack.reports,
        Item: { reportDate: '2026-03-28', by: 'other', fence: 40, fencedBy: 'JOB#rep', runId: 'other' },
      }),
    );
    const body = (ctx: JobContext) =>
      ctx.fencedPut(stack.reports, { reportDate: '2026-03-28' }, { by: ctx.shard ?? -1 });
    const r = await deliver(
      probe(body, { name: 'rep', shards: 2 }).withDeps(() => stack.worker().deps),
      { job: 'rep', scheduledTimeMs: SLOT_MS, extra: { shard: 1 }, label: 'shard 1' },
    );
    expect(r.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    expect(r.summary?.error?.name).toBe('ResultConflictError');
    expect(r.summary?.error?.message).toContain('another lease (JOB#rep, fence 40) that is still running');
    expect(await stack.scan(stack.reports)).toEqual([
      expect.objectContaining({ by: 'other', fence: 40, fencedBy: 'JOB#rep' }),
    ]);
  });
});

describe('5. a payout executed twice with a lookup-only provider', () => {
  it('(a) does not return at the deadline while the payout’s request is under way: one payout, the retry finds it stored', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: true });
    const { payments: http } = providers(
      service,
      { idempotencyKeys: false, lookup: true },
      { lookupSettleMs: 0 },
    );
    // The body sits between the `sending` write and the HTTP request until the deadline abort lands.
    let signal: AbortSignal | undefined;
    const payments: EffectProvider<PayoutRequest> = {
      ...http,
      send: async (k, req) => {
        await new Promise((r) => signal?.addEventListener('abort', r, { once: true }));
        return http.send(k, req);
      },
    };
    let first = true;
    const job = probe(
      async (ctx) => {
        if (first) signal = ctx.signal;
        first = false;
        const r = await ctx.effect('payout#a', PAYOUT, payments);
        ctx.setDetail('payout', r.source);
      },
      { leaseSeconds: 6, timeoutSeconds: 6 },
    );
    const ra = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'deadline', fence: 1 });
    // the handler returned only after the request came back (Lambda freezes an environment after return)
    expect(requests('payout#a')).toEqual(['POST 201']);
    expect(await effectItem(stack, 'payout#a')).toMatchObject({ status: 'succeeded', fence: 1, attempts: 1 });
    const rb = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(60_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry a minute later' },
    );
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(
      (await stack.runRecords('authority-probe')).find((x) => x.runId === rb.summary?.runId)?.details,
    ).toEqual({
      payout: 'stored',
    });
    expect(service.payouts('payout#a')).toHaveLength(1);
  });

  it('(b) refuses a lookup-only provider that does not declare its settle time, before any write or request', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: true });
    const { payments: http } = providers(service, { idempotencyKeys: false, lookup: true });
    const { lookupSettleMs: _undeclared, ...payments } = http;
    const r = await deliver(
      probe((ctx) => ctx.effect('payout#b', PAYOUT, payments)).withDeps(() => stack.worker().deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(r.summary).toMatchObject({ outcome: 'failed', reason: 'error' });
    expect(r.summary?.error?.name).toBe('InvalidArgumentError');
    expect(r.summary?.error?.message).toContain('provider "payments" lookupSettleMs');
    expect(service.requests).toEqual([]);
    expect(await effectItem(stack, 'payout#b')).toBeUndefined();
  });

  it('(c) waits the settle time on the looker’s own clock, whatever the skew (sender 40 s slow, looker 40 s fast): one payout', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: true });
    const { payments } = providers(
      service,
      { idempotencyKeys: false, lookup: true },
      { timeoutMs: 150, lookupSettleMs: 2_000 },
    );
    // No real-time race: the slow POST is held until the looker's first lookup has answered 404.
    const slowPost = gate();
    service.inject({ kind: 'delay', until: slowPost.promise, match: { key: 'payout#c', method: 'POST' } });
    const job = probe((ctx) => ctx.effect('payout#c', PAYOUT, payments));
    const ra = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(-40_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'sender, 40 s slow' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    const looker = deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(40_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'looker, 40 s fast' },
    );
    await expect.poll(() => requests('payout#c').includes('GET 404'), { timeout: 30_000 }).toBe(true);
    slowPost.open(); // the sender's request executes late, inside the looker's settle window
    const rb = await looker;
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(requests('payout#c')).toEqual(['GET 404', 'POST 201', 'GET 200']);
    expect(service.payouts('payout#c')).toHaveLength(1);
    expect(await effectItem(stack, 'payout#c')).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      resolvedBy: 'lookup',
    });
  });
});

describe('6. a resend after the provider forgot the key', () => {
  it.each([
    [
      'keys only: needs-review, nothing resent',
      { idempotencyKeys: true, lookup: false },
      ['POST dropped'],
      'needs-review',
    ],
    [
      'keys and lookup: looked up, nothing resent',
      { idempotencyKeys: true, lookup: true },
      ['POST dropped', 'GET 200'],
      'succeeded',
    ],
  ] as const)('%s', async (_name, caps, expected, status) => {
    let serviceNow = Date.now();
    const startedAt = serviceNow;
    service = await startPaymentService(caps, {
      keyRetentionMs: DAY_MS,
      now: () => serviceNow + (Date.now() - startedAt),
    });
    const { payments } = providers(service, caps, { keyRetentionMs: DAY_MS, lookupSettleMs: 0 });
    service.inject({ kind: 'drop-response', match: { key: 'payout#6' } });
    const job = probe((ctx) => ctx.effect('payout#6', PAYOUT, payments));
    const ra = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    serviceNow += 25 * 3_600_000; // 25 h later an operator replays the date
    const rb = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(25 * 3_600_000) }).deps),
      {
        job: 'authority-probe',
        scheduledTimeMs: SLOT_MS,
        extra: { trigger: 'manual', requestedBy: 'ops@example.com', reason: 'replay' },
        label: 'manual replay',
      },
    );
    // needs-review: the run is a problem (the slot is not done); looked up: the run succeeded
    expect(rb.summary).toMatchObject(
      status === 'needs-review'
        ? { outcome: 'failed', reason: 'effect-needs-review', fence: 2 }
        : { outcome: 'succeeded', fence: 2 },
    );
    expect(requests('payout#6')).toEqual(expected);
    expect(service.payouts('payout#6')).toHaveLength(1);
    const item = await effectItem(stack, 'payout#6');
    expect(item).toMatchObject({ status, fence: 2, attempts: 1 });
    if (status === 'needs-review') expect(String(item?.reviewReason)).toContain('may have forgotten the key');
  });
});

describe('7. a `sending` effect nobody can see or settle', () => {
  it('surfaces in the problems index and `cronfence effects`, and an operator releases it for resend: one payout', async () => {
    service = await startPaymentService({ idempotencyKeys: true });
    const { payments } = providers(service);
    service.inject({ kind: 'status', status: 503, match: { key: 'payout#7' } }); // not executed, outcome unknown
    let amountCents = 500;
    const job = probe(async (ctx) => {
      const r = await ctx.effect('payout#7', { ...PAYOUT, amountCents }, payments);
      ctx.setDetail('payout', `${r.status}/${r.source}`);
    });
    const ra = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(-20 * 60_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A, 20 min ago' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    amountCents = 700; // the request changes before the retries: same key, different amount
    const rb = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(-19 * 60_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry' },
    );
    expect(rb.summary?.error?.name).toBe('IdempotencyConflictError');
    expect(requests('payout#7')).toEqual(['POST 503']);
    expect(await effectItem(stack, 'payout#7')).toMatchObject({
      status: 'sending',
      fence: 1,
      problem: 'unsettled',
    });
    const listed = await cli(['effects', '--status', 'unsettled', '--json'], stackEnv(stack));
    expect(json<{ key: string; status: string }[]>(listed).map((e) => `${e.key} ${e.status}`)).toEqual([
      'payout#7 sending',
    ]);
    const resolved = await resolveAsOps('payout#7', 'not-executed', 'not in the provider dashboard');
    expect(resolved.code).toBe(0);
    expect(await effectItem(stack, 'payout#7')).toMatchObject({
      status: 'pending',
      resolvedBy: 'operator',
      reviewedBy: 'ops',
      reviewNote: 'not in the provider dashboard',
      problem: 'unsettled',
    });
    const rc = await deliver(
      job.withDeps(() => stack.worker().deps),
      {
        job: 'authority-probe',
        scheduledTimeMs: SLOT_MS,
        extra: { trigger: 'manual', requestedBy: 'ops', reason: 'resend after review' },
        label: 'manual re-run',
      },
    );
    expect(rc.summary).toMatchObject({ outcome: 'succeeded', fence: 3 });
    expect(requests('payout#7')).toEqual(['POST 503', 'POST 201']);
    expect(service.payouts('payout#7').map((p) => p.body.amountCents)).toEqual([700]);
    const item = await effectItem(stack, 'payout#7');
    expect(item).toMatchObject({ status: 'succeeded', fence: 3, attempts: 2 });
    expect(item?.problem).toBeUndefined();
  });
});

describe('7b. an effect in needs-review', () => {
  it('makes the run failed / effect-needs-review naming the key, the slot not done; a re-run stops at it without sending; after the operator resolves it the re-run succeeds', async () => {
    const caps = { idempotencyKeys: false, lookup: false };
    service = await startPaymentService(caps);
    const { payments } = providers(service, caps);
    service.inject({ kind: 'drop-response', match: { key: 'payout#r' } }); // executed, answer lost
    const job = probe(async (ctx) => {
      const r = await ctx.effect('payout#r', PAYOUT, payments);
      ctx.setDetail('payout', `${r.status}/${r.source}`);
    });
    const ra = await deliver(
      job.withDeps(() => stack.worker({ clock: new ControlledClock(-10 * 60_000) }).deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, label: 'A, 10 min ago' },
    );
    expect(ra.summary).toMatchObject({ outcome: 'failed', reason: 'error', fence: 1 });
    // The retry can neither resend nor look up: it marks the effect needs-review and the body finishes.
    const rb = await deliver(
      job.withDeps(() => stack.worker().deps),
      { job: 'authority-probe', scheduledTimeMs: SLOT_MS, attemptNumber: 2, label: 'retry' },
    );
    expect(rb.summary).toMatchObject({ outcome: 'failed', reason: 'effect-needs-review', fence: 2 });
    const recordB = (await stack.runRecords('authority-probe')).find((r) => r.fence === 2);
    expect(recordB?.details).toEqual({
      payout: 'needs-review/marked-for-review',
      effectsNeedingReview: [{ key: 'payout#r', why: expect.stringContaining('supports neither') }],
    });
    expect(recordB?.problem).toBe('failed'); // in the sparse problems index the alarm counts
    const slotId = String(recordB?.slot);
    expect(doneSlotsFor(await lease('JOB#authority-probe'), undefined)).not.toContain(slotId);
    // A later re-run reaches the same effect and stops: zero provider requests.
    const rc = await deliver(
      job.withDeps(() => stack.worker().deps),
      {
        job: 'authority-probe',
        scheduledTimeMs: SLOT_MS,
        extra: { trigger: 'manual', requestedBy: 'ops', reason: 're-run before review' },
        label: 'manual re-run',
      },
    );
    expect(rc.summary).toMatchObject({ outcome: 'failed', reason: 'effect-needs-review', fence: 3 });
    expect(requests('payout#r')).toEqual(['POST dropped']);
    expect(doneSlotsFor(await lease('JOB#authority-probe'), undefined)).not.toContain(slotId);
    const resolved = await resolveAsOps('payout#r', 'succeeded', 'paid per the provider dashboard');
    expect(resolved.code).toBe(0);
    const rd = await deliver(
      job.withDeps(() => stack.worker().deps),
      {
        job: 'authority-probe',
        scheduledTimeMs: SLOT_MS,
        extra: { trigger: 'manual', requestedBy: 'ops', reason: 'finish after review' },
        label: 'manual re-run after review',
      },
    );
    expect(rd.summary).toMatchObject({ outcome: 'succeeded', fence: 4 });
    expect(requests('payout#r')).toEqual(['POST dropped']);
    expect(service.payouts('payout#r')).toHaveLength(1);
    expect(await recordsOf()).toEqual([
      '1:failed/error',
      '2:failed/effect-needs-review',
      '3:failed/effect-needs-review',
      '4:succeeded/-',
    ]);
    expect(doneSlotsFor(await lease('JOB#authority-probe'), undefined)).toContain(slotId);
  });
});

describe('8. a paused holder whose writes all landed before a takeover', () => {
  it('records stale / lease-lost next to its successor, never succeeded', async () => {
    const job = probe((ctx) => ctx.fencedPut(stack.reports, { reportDate: 'r' }, { by: ctx.fence }));
    const { a: resA, b: rb } = await frozenHolderThenSuccessor(job, 'before-finish');
    expect(rb.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(resA.summary).toMatchObject({ outcome: 'stale', reason: 'lease-lost', fence: 1 });
    expect(await recordsOf()).toEqual(['1:stale/lease-lost', '2:succeeded/-']);
    expect(await stack.scan(stack.reports)).toEqual([
      expect.objectContaining({ by: 2, 'cronfence:fence': 2 }),
    ]);
  });
});
