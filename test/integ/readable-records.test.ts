/**
 * Records a person can read in the DynamoDB console (integ: DynamoDB Local, the real handler and
 * stores): the exact attributes of a run record, of a lease held, released and displaced, and of the
 * abandon mark that names the dead run; every query docs/deploy.md "Read run records in the DynamoDB
 * console" gives, run as written. Clocks are frozen at chosen instants (ControlledClock), so every
 * stored time is exact.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type AttributeValue, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import type { EffectProvider } from '../../lib/core/effects.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { Keys, PROBLEMS_BY_TIME_INDEX } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const JOB = 'console-daily';
/** 2026-03-10T09:00 Europe/Berlin = 08:00Z. */
const SLOT_MS = Date.parse('2026-03-10T08:00:00Z');
const REQUEST_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

let stack: LocalStack;
let fail = false;
const job = defineJob({
  effects: effectRunner,
  name: JOB,
  schedule: 'cron(0 9 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  run: async (ctx) => {
    if (fail) throw new Error('ledger answered 503');
    if (ctx.slot.id.startsWith('2026-03-13'))
      await ctx.effect(`pay#${ctx.slot.id}`, { amountCents: 500 }, ledger);
  },
});

/** A provider that accepts every payout (idempotency keys, never forgets one). */
const ledger: EffectProvider<{ amountCents: number }> = {
  name: 'ledger',
  idempotencyKeys: true,
  keyRetentionMs: Number.POSITIVE_INFINITY,
  send: async (key) => ({ kind: 'succeeded', providerRef: `op-${key}`, response: {} }),
};

/** A plain DynamoDB client on DynamoDB Local (the AWS CLI's values are DynamoDB JSON). */
function createDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A worker whose clock is frozen at `atMs`. */
function workerAt(atMs: number) {
  const clock = new ControlledClock();
  clock.freeze();
  clock.advance(atMs - clock.now());
  return stack.worker({ clock });
}

async function leaseItem(): Promise<Record<string, unknown> | undefined> {
  return (await stack.doc.send(new GetCommand({ TableName: stack.tableName, Key: Keys.lease(JOB) }))).Item;
}

beforeAll(async () => {
  stack = await localStack();
}, 60_000);

describe('readable run records and lease (DynamoDB Local)', () => {
  let runId = '';

  it('stores a succeeded run with ISO instants beside the epoch ms, and no redundant kind', async () => {
    const w = workerAt(SLOT_MS + 5_000);
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: JOB, scheduledTimeMs: SLOT_MS, awsRequestId: REQUEST_ID, label: 'on time' },
    );
    runId = String(r.summary?.runId);
    const [item] = await stack.runRecords(JOB);
    expect(item).toEqual({
      pk: 'JOB#console-daily',
      sk: `RUN#2026-03-10T09:00#${runId}`,
      job: JOB,
      slot: '2026-03-10T09:00',
      scheduledTime: '2026-03-10T08:00:00.000Z',
      businessDate: '2026-03-10',
      runId,
      trigger: 'schedule',
      lambdaRequestId: REQUEST_ID,
      attemptNumber: 1,
      executionId: expect.any(String),
      fence: 1,
      outcome: 'succeeded',
      def: expect.any(String),
      startedAtMs: SLOT_MS + 5_000,
      startedAt: '2026-03-10T08:00:05.000Z',
      finishedAtMs: SLOT_MS + 5_000,
      finishedAt: '2026-03-10T08:00:05.000Z',
      durationMs: 0,
      expiresAt: expect.any(Number),
    });
  });

  it('leaves the released lease reading as released, with the last succeeded slot', async () => {
    expect(await leaseItem()).toMatchObject({
      owner: runId,
      fence: 1,
      leaseUntilMs: 0,
      leaseUntil: 'released',
      holderState: 'released',
      releasedAtMs: SLOT_MS + 5_000,
      lastSucceeded: '2026-03-10T09:00',
      slot: '2026-03-10T09:00',
    });
    // The holder's trigger is on the lease only while it holds it (its record names it after).
    expect(Object.keys((await leaseItem()) ?? {})).not.toContain('trigger');
  });

  it('marks a dead manual holder abandoned with its own start time, trigger and requester', async () => {
    const next = Date.parse('2026-03-11T08:00:00Z');
    const dead = workerAt(next + 1_000);
    // An operator's manual run claims the slot and dies holding the lease (no record, no release).
    const claimed = await dead.deps.leases.claim({
      job: JOB,
      runId: 'dead-run-1',
      slotId: '2026-03-11T09:00',
      nowMs: next + 1_000,
      leaseUntilMs: next + 61_000,
      trigger: 'manual',
      requestedBy: 'ops-alice',
    });
    expect(claimed.kind).toBe('acquired');
    expect(await leaseItem()).toMatchObject({
      owner: 'dead-run-1',
      holderState: 'running',
      leaseUntilMs: next + 61_000,
      leaseUntil: '2026-03-11T08:01:01.000Z',
      trigger: 'manual',
      requestedBy: 'ops-alice',
    });
    // The scheduled delivery's Lambda retry comes after the lease ended and takes over.
    const w = workerAt(next + 120_000);
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: JOB, scheduledTimeMs: next, attemptNumber: 2, label: 'retry' },
    );
    expect(r.summary?.outcome).toBe('succeeded');
    const mark = (await stack.runRecords(JOB)).find((i) => i.runId === 'dead-run-1');
    expect(mark).toEqual({
      pk: 'JOB#console-daily',
      sk: 'RUN#2026-03-11T09:00#dead-run-1',
      job: JOB,
      slot: '2026-03-11T09:00',
      runId: 'dead-run-1',
      trigger: 'manual',
      requestedBy: 'ops-alice',
      fence: 2,
      outcome: 'abandoned',
      reason: 'not-released',
      startedAtMs: next + 1_000,
      startedAt: '2026-03-11T08:00:01.000Z',
      finishedAtMs: next + 120_000,
      finishedAt: '2026-03-11T08:02:00.000Z',
      details: {
        detectedBy: r.summary?.runId,
        detectedAtMs: next + 120_000,
        detectedAt: '2026-03-11T08:02:00.000Z',
        leaseUntilMs: next + 61_000,
        leaseUntil: '2026-03-11T08:01:01.000Z',
      },
      problem: 'abandoned',
      problemAtMs: next + 120_000,
      problemAt: '2026-03-11T08:02:00.000Z',
      expiresAt: expect.any(Number),
    });
  });

  it("the sweeper's abandon mark names the dead holder the same way", async () => {
    const sweepJob = defineJob({
      name: 'console-sweep',
      schedule: 'cron(0 9 * * ? *)',
      timeZone: 'Europe/Berlin',
      lease: { durationSeconds: 60 },
      run: async () => {},
    });
    const at = Date.parse('2026-03-11T08:00:00Z');
    const dead = workerAt(at + 1_000);
    await dead.deps.leases.claim({
      job: 'console-sweep',
      runId: 'dead-run-2',
      slotId: '2026-03-11T09:00',
      nowMs: at + 1_000,
      leaseUntilMs: at + 61_000,
      trigger: 'catch-up',
    });
    const w = workerAt(at + 300_000);
    await sweep({ leases: w.deps.leases, runs: w.deps.runs, clock: w.clock, log: () => undefined }, [
      { definition: sweepJob.job, expression: sweepJob.expression, invoke: async () => undefined },
    ]);
    const [mark] = await stack.runRecords('console-sweep');
    expect(mark).toMatchObject({
      runId: 'dead-run-2',
      outcome: 'abandoned',
      trigger: 'catch-up',
      startedAtMs: at + 1_000,
      startedAt: '2026-03-11T08:00:01.000Z',
      finishedAt: '2026-03-11T08:05:00.000Z',
      details: { detectedBy: 'sweeper', detectedAt: '2026-03-11T08:05:00.000Z' },
    });
    expect(mark?.requestedBy).toBeUndefined();
  });

  it('reads a lease item written before the readable attributes: the mark names what it can', async () => {
    // Today's item shape before this change: no leaseUntil, trigger or requester on the lease.
    const at = Date.parse('2026-03-12T08:00:00Z');
    const old = workerAt(at + 1_000);
    await old.deps.leases.claim({
      job: JOB,
      runId: 'old-shape-run',
      slotId: '2026-03-12T09:00',
      nowMs: at + 1_000,
      leaseUntilMs: at + 61_000,
    });
    const w = workerAt(at + 120_000);
    const r = await deliver(
      job.withDeps(() => w.deps),
      { job: JOB, scheduledTimeMs: at, attemptNumber: 2, label: 'retry' },
    );
    expect(r.summary?.outcome).toBe('succeeded');
    const mark = (await stack.runRecords(JOB)).find((i) => i.runId === 'old-shape-run');
    expect(mark).toMatchObject({ outcome: 'abandoned', startedAtMs: at + 1_000 });
    expect(mark?.trigger).toBeUndefined();
    expect(mark?.requestedBy).toBeUndefined();
  });
});

/** One `aws dynamodb query` of docs/deploy.md's console section, as written. */
interface DocQuery {
  readonly index?: string;
  readonly descending: boolean;
  readonly condition: string;
  readonly values: Record<string, AttributeValue>;
}

/** The `aws dynamodb query` commands of docs/deploy.md "Read run records in the DynamoDB console". */
function docQueries(): DocQuery[] {
  const doc = readFileSync(resolve('docs/deploy.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Read run records in the DynamoDB console'));
  const block = section.slice(section.indexOf('```sh'), section.indexOf('```', section.indexOf('```sh') + 5));
  return block
    .split('aws dynamodb query')
    .slice(1)
    .map((cmd) => ({
      ...(/--index-name (\S+)/.exec(cmd) && { index: /--index-name (\S+)/.exec(cmd)?.[1] }),
      descending: cmd.includes('--no-scan-index-forward'),
      condition: String(/--key-condition-expression '([^']+)'/.exec(cmd)?.[1]),
      values: JSON.parse(String(/--expression-attribute-values '([^']+)'/.exec(cmd)?.[1])),
    }));
}

describe('the console queries of docs/deploy.md, run as written (DynamoDB Local)', () => {
  beforeAll(async () => {
    // 2026-03-13 09:00 Berlin fails (a problem record), then its retry succeeds and pays.
    const at = Date.parse('2026-03-13T08:00:00Z');
    fail = true;
    const w1 = workerAt(at + 2_000);
    await deliver(
      job.withDeps(() => w1.deps),
      { job: JOB, scheduledTimeMs: at, label: 'on time' },
    );
    fail = false;
    const w2 = workerAt(at + 62_000);
    await deliver(
      job.withDeps(() => w2.deps),
      { job: JOB, scheduledTimeMs: at, attemptNumber: 2, label: 'retry' },
    );
    // A shard lease of the same name (a sharded job's `JOB#<job>#<shard>` partition).
    const s = workerAt(at + 70_000);
    const d = await s.deps.leases.claim({
      job: JOB,
      shard: 1,
      runId: 'shard-run-1',
      slotId: '2026-03-13T09:00',
      nowMs: at + 70_000,
      leaseUntilMs: at + 130_000,
      trigger: 'schedule',
    });
    if (d.kind !== 'acquired') throw new Error(d.kind);
    await s.deps.leases.release({
      job: JOB,
      shard: 1,
      runId: 'shard-run-1',
      fence: d.fence,
      nowMs: at + 71_000,
      doneSlots: new Set(['2026-03-13T09:00']),
      succeededSlot: '2026-03-13T09:00',
    });
  }, 60_000);

  const run = async (q: DocQuery) => {
    const raw = createDynamoClient(stack.endpoint);
    const values = JSON.parse(JSON.stringify(q.values).replaceAll('daily-report', JOB));
    const out = await raw.send(
      new QueryCommand({
        TableName: stack.tableName,
        ...(q.index && { IndexName: q.index }),
        KeyConditionExpression: q.condition,
        ExpressionAttributeValues: values,
        ScanIndexForward: !q.descending,
      }),
    );
    return (out.Items ?? []).map((i) => unmarshall(i));
  };
  const view = (items: Record<string, unknown>[]) =>
    items.map((i) => [i.slot, i.outcome, i.reason ?? '', i.trigger ?? '', i.startedAt]);

  it('gives eight queries, in this order', () => {
    expect(docQueries().map((q) => [q.index ?? '', q.condition])).toEqual([
      ['', 'pk = :pk AND begins_with(sk, :day)'],
      ['', 'pk = :pk AND begins_with(sk, :run)'],
      ['', 'pk = :pk AND begins_with(sk, :slot)'],
      ['', 'pk = :pk AND sk = :lease'],
      ['', 'pk = :pk AND sk = :lease'],
      ['', 'pk = :pk AND sk = :effect'],
      ['problemsByTime', 'problem = :p AND problemAt > :since'],
      ['problems', 'problem = :p AND problemAtMs > :since'],
    ]);
  });

  it('"what happened to job X yesterday": one query, every attempt of the day with its error', async () => {
    const items = await run(docQueries()[0] as DocQuery);
    expect(view(items).sort((a, b) => String(a[4]).localeCompare(String(b[4])))).toEqual([
      ['2026-03-13T09:00', 'failed', 'error', 'schedule', '2026-03-13T08:00:02.000Z'],
      ['2026-03-13T09:00', 'succeeded', '', 'retry', '2026-03-13T08:01:02.000Z'],
    ]);
    expect(items.find((i) => i.outcome === 'failed')?.error).toEqual({
      name: 'Error',
      message: 'ledger answered 503',
    });
  });

  it("a job's attempts newest first, and all attempts of one slot", async () => {
    const newest = await run(docQueries()[1] as DocQuery);
    expect(newest.map((i) => i.slot)).toEqual([
      '2026-03-13T09:00',
      '2026-03-13T09:00',
      '2026-03-12T09:00',
      '2026-03-12T09:00',
      '2026-03-11T09:00',
      '2026-03-11T09:00',
      '2026-03-10T09:00',
    ]);
    const slot = await run(docQueries()[2] as DocQuery);
    expect(slot.map((i) => [i.outcome, i.trigger, i.requestedBy ?? '']).sort()).toEqual([
      ['abandoned', 'manual', 'ops-alice'],
      ['succeeded', 'retry', ''],
    ]);
  });

  it('the lease and a shard lease, reading as released with their last succeeded slot', async () => {
    const [lease] = await run(docQueries()[3] as DocQuery);
    expect([lease?.leaseUntil, lease?.holderState, lease?.lastSucceeded, lease?.fence]).toEqual([
      'released',
      'released',
      '2026-03-13T09:00',
      7,
    ]);
    const [shard] = await run(docQueries()[4] as DocQuery);
    expect([shard?.pk, shard?.owner, shard?.leaseUntil, shard?.lastSucceeded, shard?.fence]).toEqual([
      'JOB#console-daily#1',
      'shard-run-1',
      'released',
      '2026-03-13T09:00',
      1,
    ]);
  });

  it('one effect, settled by the run that paid', async () => {
    const [effect] = await run(docQueries()[5] as DocQuery);
    const retry = (await stack.runRecords(JOB)).find(
      (r) => r.trigger === 'retry' && r.slot === '2026-03-13T09:00',
    );
    expect([effect?.pk, effect?.status, effect?.attempts, effect?.runId]).toEqual([
      'EFFECT#console-daily#pay#2026-03-13T09:00',
      'succeeded',
      1,
      retry?.runId,
    ]);
  });

  it('the problemsByTime index: failed runs since an ISO instant; abandoned ones in the order they read', async () => {
    expect(view(await run(docQueries()[6] as DocQuery))).toEqual([
      ['2026-03-13T09:00', 'failed', 'error', 'schedule', '2026-03-13T08:00:02.000Z'],
    ]);
    const raw = createDynamoClient(stack.endpoint);
    const abandoned = await raw.send(
      new QueryCommand({
        TableName: stack.tableName,
        IndexName: PROBLEMS_BY_TIME_INDEX,
        KeyConditionExpression: 'problem = :p AND problemAt > :since',
        ExpressionAttributeValues: { ':p': { S: 'abandoned' }, ':since': { S: '2026-03-11' } },
      }),
    );
    expect((abandoned.Items ?? []).map((i) => unmarshall(i)).map((i) => [i.runId, i.problemAt])).toEqual([
      ['dead-run-1', '2026-03-11T08:02:00.000Z'],
      // Across jobs: the sweeper's mark of console-sweep sorts between them.
      ['dead-run-2', '2026-03-11T08:05:00.000Z'],
      ['old-shape-run', '2026-03-12T08:02:00.000Z'],
    ]);
  });

  it("the problems index (epoch ms, the CLI's): the same failed run", async () => {
    expect(view(await run(docQueries()[7] as DocQuery))).toEqual([
      ['2026-03-13T09:00', 'failed', 'error', 'schedule', '2026-03-13T08:00:02.000Z'],
    ]);
  });
});
