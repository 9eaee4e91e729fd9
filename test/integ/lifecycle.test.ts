/**
 * integ (DynamoDB Local): a job's identity across its lifecycle — a rename, a first deploy beside an
 * older scheduler, a delete and re-add, a restore of the library table. Each ends with the provider's
 * executions, the business rows and the sweep's decisions a user would check.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import { deliver, lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { ensureTables } from '../../harness/local/tables.js';
import { httpJsonProvider } from '../../lib/effects/http-provider.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { type SweepTarget, sweep } from '../../lib/runtime/sweeper.js';
import { createDocumentClient, scanItems } from '../../lib/store/client.js';
import { clearRestoreMark, markRestored } from '../../lib/store/restore.js';
import { libraryTable } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
let service: PaymentService;
beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
});

type Payout = { merchantId: string; settlementDate: string; amountCents: number; currency: string };

/** A daily settlement (01:00 UTC, catch-up all 72 h): one insert-once row and one payout per date. */
function settle(
  options: { name: string; id?: string; since?: string; keys?: boolean; balance?: boolean },
  deps: () => ReturnType<LocalStack['worker']>['deps'],
): JobHandler {
  const payments = httpJsonProvider<Payout>({
    name: 'payments',
    baseUrl: service.url,
    path: '/payouts',
    idempotencyKeys: options.keys ?? false,
    lookup: false,
    timeoutMs: 2_000,
    keyRetentionMs: 86_400_000,
  });
  return defineJob({
    effects: effectRunner,
    name: options.name,
    ...(options.id !== undefined && { id: options.id }),
    schedule: 'cron(0 1 * * ? *)',
    timeZone: 'UTC',
    lease: { durationSeconds: 30 },
    catchUp: {
      mode: 'all',
      windowHours: 72,
      maxSlotsPerSweep: 3,
      ...(options.since !== undefined && { since: options.since }),
    },
    run: async (ctx) => {
      if (options.balance)
        await ctx.fencedPut(stack.reports, { reportDate: 'balance' }, { lastDate: ctx.businessDate });
      await ctx.insertOnce(
        stack.settlements,
        { merchantId: 'm-1', settlementDate: ctx.businessDate },
        { amountCents: 1_000 },
      );
      await ctx.effect(
        `payout-m-1-${ctx.businessDate}`,
        { merchantId: 'm-1', settlementDate: ctx.businessDate, amountCents: 1_000, currency: 'EUR' },
        payments,
      );
    },
  }).withDeps(deps);
}

const at = (iso: string) => Date.parse(iso);
const slotTime = (date: string) => at(`${date}T01:00:00Z`);
const day = (h: JobHandler, date: string) =>
  deliver(h, { job: h.job.name, scheduledTimeMs: slotTime(date), label: date });

/** A sweep at `nowIso` whose catch-up invocations run the job in-process. */
async function sweepAt(nowIso: string, h: JobHandler, w: ReturnType<LocalStack['worker']>) {
  const target: SweepTarget = {
    definition: h.job,
    expression: h.expression,
    invoke: async (payload) => {
      await h(payload, lambdaContext(h.job.name, h.job.timeoutSeconds));
    },
  };
  const clock = new ControlledClock(at(nowIso) - Date.now());
  return sweep({ leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined }, [target]);
}

const decisions = (r: Awaited<ReturnType<typeof sweepAt>>) =>
  r.decisions.map((d) => `${d.job} ${d.slot} ${d.action} ${d.reason}`);
const rows = async () => (await stack.scan(stack.settlements)).map((r) => r.settlementDate).sort();

describe('rename', () => {
  it('settle-v1 renamed settle with id settle-v1: the sweep finds 11-01 and 11-02 done, 2 payouts and 2 rows, not 4', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const w = stack.worker();
    const v1 = settle({ name: 'settle-v1' }, () => w.deps);
    expect((await day(v1, '2026-11-01')).summary?.outcome).toBe('succeeded');
    expect((await day(v1, '2026-11-02')).summary?.outcome).toBe('succeeded');
    // The deploy renames it; id keeps the lease, done set, run records and effects of settle-v1.
    const renamed = settle({ name: 'settle', id: 'settle-v1' }, () => w.deps);
    // The sweep's window (10-31T01:05, 11-03T00:55]: the slots 11-01 and 11-02.
    const report = await sweepAt('2026-11-03T01:05:00Z', renamed, w);
    expect(report.jobs).toEqual([{ job: 'settle', expected: 2, succeeded: 2, missing: 0 }]);
    expect(decisions(report)).toEqual([]);
    expect(service.payouts().length).toBe(2);
    expect(await rows()).toEqual(['2026-11-01', '2026-11-02']);
    // The renamed job's own next slot continues the lease: fence 3, records under JOB#settle-v1.
    const next = await day(renamed, '2026-11-03');
    expect(next.summary).toMatchObject({ job: 'settle', outcome: 'succeeded', fence: 3 });
    // An operator re-runs 11-01 under the new name: the stored effect, no provider call.
    const rerun = await deliver(renamed, {
      job: 'settle',
      scheduledTimeMs: slotTime('2026-11-01'),
      label: 'manual',
      extra: { trigger: 'manual', requestedBy: 'ops', reason: 'check' },
    });
    expect(rerun.summary?.outcome).toBe('succeeded');
    expect(service.payouts().map((p) => p.key)).toEqual([
      'payout-m-1-2026-11-01',
      'payout-m-1-2026-11-02',
      'payout-m-1-2026-11-03',
    ]);
    expect((await stack.runRecords('settle-v1')).map((r) => `${r.slot} ${r.outcome}`)).toEqual([
      '2026-11-01T01:00 succeeded',
      '2026-11-01T01:00 succeeded',
      '2026-11-02T01:00 succeeded',
      '2026-11-03T01:00 succeeded',
    ]);
    expect(await stack.runRecords('settle')).toEqual([]);
  }, 60_000);

  it('without id the renamed job is a new identity: the sweep triggers 11-01 and 11-02 as missed and pays them again (4)', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const w = stack.worker();
    const v1 = settle({ name: 'settle-v1' }, () => w.deps);
    await day(v1, '2026-11-01');
    await day(v1, '2026-11-02');
    const renamed = settle({ name: 'settle' }, () => w.deps);
    const report = await sweepAt('2026-11-03T01:05:00Z', renamed, w);
    expect(decisions(report)).toEqual([
      'settle 2026-11-01T01:00 triggered missed',
      'settle 2026-11-02T01:00 triggered missed',
    ]);
    expect(service.payouts().length).toBe(4);
    // The insert-once rows are keyed by the business key alone: still one row per date.
    expect(await rows()).toEqual(['2026-11-01', '2026-11-02']);
  }, 60_000);
});

describe('first deploy beside an older scheduler', () => {
  it('deployed 11-04 14:00 with catch-up all and since = the deploy: the three previous days are before-start, nothing paid', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const w = stack.worker();
    const job = settle({ name: 'payroll', since: '2026-11-04T14:00:00Z' }, () => w.deps);
    const first = await sweepAt('2026-11-04T14:15:00Z', job, w);
    expect(decisions(first)).toEqual([
      'payroll 2026-11-02T01:00 ignored before-start',
      'payroll 2026-11-03T01:00 ignored before-start',
      'payroll 2026-11-04T01:00 ignored before-start',
    ]);
    expect(first.jobs).toEqual([{ job: 'payroll', expected: 3, succeeded: 0, missing: 3 }]);
    expect(service.payouts()).toEqual([]);
    expect(await stack.runRecords('payroll')).toEqual([]);
    // Its own first occurrence is dropped; the next sweep catches it up (it is after since).
    const later = await sweepAt('2026-11-05T02:00:00Z', job, w);
    expect(decisions(later)).toEqual([
      'payroll 2026-11-05T01:00 triggered missed',
      'payroll 2026-11-03T01:00 ignored before-start',
      'payroll 2026-11-04T01:00 ignored before-start',
    ]);
    expect(service.payouts().map((p) => p.key)).toEqual(['payout-m-1-2026-11-05']);
    expect(await rows()).toEqual(['2026-11-05']);
  }, 60_000);
});

describe('delete and re-add under the same id', () => {
  it('continues: the done set and effects survive (the lease item is never deleted), only the deleted days are caught up, a re-run pays nothing', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const w = stack.worker();
    const before = settle({ name: 'settle' }, () => w.deps);
    await day(before, '2026-11-01');
    await day(before, '2026-11-02');
    // Deleted (the stack removes its function and schedule; the library table is retained), 11-03 not
    // delivered, re-added the same day.
    const readded = settle({ name: 'settle' }, () => w.deps);
    const report = await sweepAt('2026-11-04T00:30:00Z', readded, w);
    expect(decisions(report)).toEqual(['settle 2026-11-03T01:00 triggered missed']);
    const rerun = await deliver(readded, {
      job: 'settle',
      scheduledTimeMs: slotTime('2026-11-02'),
      label: 'manual',
      extra: { trigger: 'manual', requestedBy: 'ops', reason: 'check' },
    });
    expect(rerun.summary?.outcome).toBe('succeeded');
    expect(service.payouts().map((p) => p.key)).toEqual([
      'payout-m-1-2026-11-01',
      'payout-m-1-2026-11-02',
      'payout-m-1-2026-11-03',
    ]);
    expect(await rows()).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  }, 60_000);
});

describe('a library table restored from a backup (a NEW table with the items as of the restore point)', () => {
  /** Runs 11-01, snapshots the library table (the restore point), runs 11-02 and 11-03, restores into a new table. */
  async function restored(): Promise<{ tableName: string; worker: () => ReturnType<LocalStack['worker']> }> {
    const w = stack.worker();
    const job = settle({ name: 'settle', balance: true }, () => w.deps);
    await day(job, '2026-11-01');
    const snapshot = await scanItems(stack.doc, { TableName: stack.tableName, ConsistentRead: true });
    await day(job, '2026-11-02');
    await day(job, '2026-11-03');
    const tableName = `${stack.tableName}-restored`;
    await ensureTables(stack.doc, [{ schema: libraryTable, tableName }]);
    for (const item of snapshot) await stack.doc.send(new PutCommand({ TableName: tableName, Item: item }));
    const worker = () => {
      const clock = new ControlledClock();
      const doc = createDocumentClient({ endpoint: stack.endpoint });
      return { deps: createDeps({ doc, tableName, clock }), clock, faults: w.faults };
    };
    return { tableName, worker };
  }

  it('without the procedure, the catch-ups claim fences 2 and 3 again and the balance item (fence 3) refuses both: stale / stale-fence, nothing paid again', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const r = await restored();
    const w = r.worker();
    const job = settle({ name: 'settle', balance: true }, () => w.deps);
    const report = await sweepAt('2026-11-04T01:05:00Z', job, w);
    expect(decisions(report)).toEqual([
      'settle 2026-11-02T01:00 triggered missed',
      'settle 2026-11-03T01:00 triggered missed',
    ]);
    // A stale run keeps the lease until it lapses (11-03 is skipped overlap meanwhile); the next sweep
    // catches the unfinished 11-02 up again: fence 3, equal to the balance item's but issued to another
    // run before the restore — refused too.
    w.clock.advance(60_000);
    const next = await sweepAt('2026-11-04T01:09:00Z', job, w);
    expect(decisions(next)).toEqual([
      'settle 2026-11-02T01:00 triggered unfinished',
      'settle 2026-11-03T01:00 triggered unfinished',
    ]);
    const records = await scanItems(stack.doc, {
      TableName: r.tableName,
      ConsistentRead: true,
      FilterExpression: 'begins_with(sk, :run) AND slot <> :first',
      ExpressionAttributeValues: { ':run': 'RUN#', ':first': '2026-11-01T01:00' },
    });
    const of = (slot: string) =>
      records
        .filter((x) => x.slot === slot)
        .sort((a, b) => Number(a.startedAtMs) - Number(b.startedAtMs))
        .map((x) => `${x.outcome}/${x.reason} fence ${x.fence ?? '-'}`);
    expect(of('2026-11-02T01:00')).toEqual(['stale/stale-fence fence 2', 'stale/stale-fence fence 3']);
    expect(of('2026-11-03T01:00')).toEqual(['skipped/overlap fence -', 'skipped/overlap fence -']);
    expect(service.payouts().map((p) => p.key)).toEqual([
      'payout-m-1-2026-11-01',
      'payout-m-1-2026-11-02',
      'payout-m-1-2026-11-03',
    ]);
  }, 60_000);

  it('with the procedure (fences raised, restore mark), an effect whose record vanished is not sent: needs-review, one payout per date', async () => {
    service = await startPaymentService({ idempotencyKeys: false, lookup: false });
    const r = await restored();
    const w = r.worker();
    const marked = await markRestored(
      stack.doc,
      r.tableName,
      [{ key: 'settle' }],
      at('2026-11-01T12:00:00Z'),
    );
    expect(marked).toEqual(['JOB#settle']);
    const job = settle({ name: 'settle', balance: true }, () => w.deps);
    // The first catch-up of 11-02: fence 1_000_002 passes the balance item, the row exists, the payout's
    // record is gone: not sent, left `sending`.
    const first = await deliver(job, {
      job: 'settle',
      scheduledTimeMs: slotTime('2026-11-02'),
      label: 'catch-up',
    });
    expect(first.summary).toMatchObject({ outcome: 'failed', fence: 1_000_002 });
    // Lambda's retry finds it `sending` on a provider with neither keys nor lookup: needs-review.
    const retry = await deliver(job, {
      job: 'settle',
      scheduledTimeMs: slotTime('2026-11-02'),
      label: 'retry',
      attemptNumber: 2,
    });
    expect(retry.summary).toMatchObject({ outcome: 'failed', reason: 'effect-needs-review' });
    const effects = await scanItems(stack.doc, {
      TableName: r.tableName,
      ConsistentRead: true,
      FilterExpression: 'kind = :e',
      ExpressionAttributeValues: { ':e': 'effect' },
    });
    expect(effects.map((e) => [e.key, e.status])).toEqual([
      ['payout-m-1-2026-11-01', 'succeeded'],
      ['payout-m-1-2026-11-02', 'needs-review'],
    ]);
    expect(service.payouts().map((p) => p.key)).toEqual([
      'payout-m-1-2026-11-01',
      'payout-m-1-2026-11-02',
      'payout-m-1-2026-11-03',
    ]);
    expect(await clearRestoreMark(stack.doc, r.tableName, [{ key: 'settle' }])).toEqual(['JOB#settle']);
  }, 60_000);

  it('with the procedure, a provider with idempotency keys gets the same key again and executes it once', async () => {
    service = await startPaymentService({ idempotencyKeys: true, lookup: false });
    const w0 = stack.worker();
    const job0 = settle({ name: 'settle', keys: true }, () => w0.deps);
    await day(job0, '2026-11-01');
    const snapshot = await scanItems(stack.doc, { TableName: stack.tableName, ConsistentRead: true });
    await day(job0, '2026-11-02');
    const tableName = `${stack.tableName}-restored`;
    await ensureTables(stack.doc, [{ schema: libraryTable, tableName }]);
    for (const item of snapshot) await stack.doc.send(new PutCommand({ TableName: tableName, Item: item }));
    // The restore point is recent: within half the provider's key retention.
    await markRestored(stack.doc, tableName, [{ key: 'settle' }], Date.now() - 60_000);
    const doc = createDocumentClient({ endpoint: stack.endpoint });
    const deps = createDeps({ doc, tableName, clock: new ControlledClock() });
    const job = settle({ name: 'settle', keys: true }, () => deps);
    const again = await deliver(job, {
      job: 'settle',
      scheduledTimeMs: slotTime('2026-11-02'),
      label: 'catch-up',
    });
    expect(again.summary?.outcome).toBe('succeeded');
    expect(service.payouts().map((p) => p.key)).toEqual(['payout-m-1-2026-11-01', 'payout-m-1-2026-11-02']);
    expect(service.requestsFor('payout-m-1-2026-11-02').map((q) => q.executed)).toEqual([true, false]);
  }, 60_000);
});
