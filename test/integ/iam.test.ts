/**
 * IAM as AWS evaluates it: every DynamoDB and Lambda request the functions make — in the
 * integration scenarios, the drills, and the `cdk.out` bundles invoked in their own processes with
 * the environment the template gives them — is evaluated against the synthesized role policies with
 * a real IAM evaluator, together with what the services do with the roles (Scheduler's AssumeRole
 * with the schedule GROUP ARN, its invoke and DLQ writes, Lambda's on-failure destination) and
 * negative controls that must be denied. For the example app and for a sharded job.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SWEEPER_NAME } from '../../cdk/constructs/sweeper.js';
import { exampleApp } from '../../functions/example-app.js';
import { jobs, tables } from '../../functions/index.js';
import { payoutKey } from '../../functions/merchant-settlement.js';
import { MERCHANTS, type Merchant } from '../../functions/merchants.js';
import { reportsTable, settlementsTable } from '../../functions/tables.js';
import { DRILLS } from '../../harness/drills/catalog/index.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import { deliver, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { Keys, libraryTable } from '../../lib/store/schema.js';
import { negativeControls } from '../helpers/iam/controls.js';
import { type Deployment, synthToDisk } from '../helpers/iam/deployment.js';
import { evaluate, grantsOf, unusedGrants, type Verdict } from '../helpers/iam/evaluate.js';
import { handler as sharded } from '../helpers/iam/fixtures/sharded-job.js';
import { lastSlots, recordRuns } from '../helpers/iam/record-runs.js';
import {
  attributed,
  type RecordedRequest,
  RecordingEndpoint,
  recordInProcess,
} from '../helpers/iam/recorder.js';
import { checksOf, type IamCheck } from '../helpers/iam/requests.js';
import { REGION } from '../helpers/iam/template.js';

const NOW = new Date('2026-01-15T00:00:00Z');
const prefix = `iam${Date.now().toString(36)}`;
let example: Deployment;
let shardedStack: Deployment;
let endpoint: RecordingEndpoint;
let payments: PaymentService;
const recorded: { deployment: () => Deployment; request: RecordedRequest }[] = [];
const savedEnv = { ...process.env };

async function bundleRun(
  d: Deployment,
  fnName: string,
  events: unknown[],
  extra: Record<string, string> = {},
) {
  const f = d.fn(fnName);
  endpoint.tag(`bundle ${f.name}`);
  const results = await d.invoke(f, events, await endpointUrl, extra);
  const failed = results.filter((r) => !r.ok);
  expect(failed, `${f.name}: ${JSON.stringify(failed)}`).toEqual([]);
  return results;
}

/** Deliver every async invoke the endpoint accepted since `from` to its function's bundle (twice: at-least-once). */
async function deliverInvokes(d: Deployment, from: number, extra: Record<string, string> = {}) {
  const byFn = new Map<string, unknown[]>();
  for (const i of endpoint.invokes.slice(from)) {
    const name = d.fn(i.functionName).name;
    byFn.set(name, [...(byFn.get(name) ?? []), i.payload, i.payload]);
  }
  for (const [name, events] of byFn) await bundleRun(d, name, events, extra);
}

let endpointUrl: Promise<string>;

beforeAll(async () => {
  example = synthToDisk('CronfenceIam', { jobs, applicationTables: tables, now: NOW }, prefix);
  shardedStack = synthToDisk(
    'CronfenceIamSharded',
    {
      jobs: [
        {
          definition: sharded.job,
          entry: 'test/helpers/iam/fixtures/sharded-job.ts',
          uses: { tables: [{ table: settlementsTable, writes: ['insertOnce'] }] },
        },
      ],
      applicationTables: [settlementsTable],
      now: NOW,
    },
    `${prefix}s`,
  );
  const dynamo = inject('dynamoEndpoint');
  const doc = createDocumentClient({ endpoint: dynamo });
  await example.createTables(doc, tables);
  await shardedStack.createTables(doc, [settlementsTable]);
  endpoint = new RecordingEndpoint(dynamo);
  endpointUrl = endpoint.start();
  await endpointUrl;
  payments = await startPaymentService({ idempotencyKeys: true, lookup: true });
}, 240_000);

afterAll(async () => {
  await endpoint?.stop();
  await payments?.stop();
  example?.dispose();
  shardedStack?.dispose();
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

describe('requests recorded', () => {
  it('from the cdk.out bundles as deployed: the Input Scheduler renders, concurrent duplicates, a malformed event, no warning printed', async () => {
    const from = endpoint.requests.length;
    const url = await endpointUrl;
    const printed: string[] = [];
    const extra = { PAYMENTS_URL: payments.url, PAYMENTS_CAPABILITIES: 'idempotency-keys,lookup' };
    for (const { definition } of jobs) {
      const h = exampleApp.handlers.find((x) => x.job.name === definition.name) as JobHandler;
      const [slotMs] = lastSlots(h, 3) as [number]; // runs before the sweeper's catch-ups and the other scenarios' slots
      const f = example.fn(definition.name);
      endpoint.tag(`bundle ${f.name}`);
      const event = example.renderedInput(definition.name, {
        scheduledTimeMs: slotMs,
        executionId: randomUUID(),
        attemptNumber: 1,
        group: 'cronfence',
      });
      // Two copies of one delivery in two processes at once (Lambda's at-least-once async invoke).
      const both = await Promise.all(
        [event, event].map((e) => example.invoke(f, [e], url, extra, (t) => printed.push(t))),
      );
      const summaries = both.map(([r]) => r?.value as { outcome: string; reason?: string } | undefined);
      expect(summaries.map((x) => x?.outcome).sort(), JSON.stringify(both)).toEqual(['skipped', 'succeeded']);
      // lease-held when the copies overlap; already-succeeded when one process started after the other ended.
      expect(['lease-held', 'already-succeeded']).toContain(
        summaries.find((x) => x?.outcome === 'skipped')?.reason,
      );
      const [malformed] = await example.invoke(
        f,
        [{ ...(event as object), scheduledTime: 'yesterday' }],
        url,
        extra,
        (t) => printed.push(t),
      );
      expect(malformed?.ok).toBe(false);
      expect(malformed?.error).toMatch(/^InvalidEventError: /);
    }
    const sweep = await example.invoke(
      example.sweeper,
      [
        example.renderedInput(SWEEPER_NAME, {
          scheduledTimeMs: Date.now(),
          executionId: randomUUID(),
          attemptNumber: 1,
          group: 'cronfence',
        }),
      ],
      url,
      {},
      (t) => printed.push(t),
    );
    expect(sweep.map((r) => r.ok)).toEqual([true]);
    expect(printed.join('\n')).not.toMatch(/Warning|is defined as both/);
    for (const request of endpoint.requests.slice(from))
      recorded.push({ deployment: () => example, request });
  }, 240_000);

  it('from the cdk.out bundles of the example app: both jobs, duplicates, the sweeper and its catch-ups', async () => {
    const from = endpoint.requests.length;
    const extra = { PAYMENTS_URL: payments.url, PAYMENTS_CAPABILITIES: 'idempotency-keys,lookup' };
    // The sweeper first, on empty tables: every job missed its slots, so it re-triggers them.
    const invokesFrom = endpoint.invokes.length;
    await bundleRun(example, example.sweeper.name, [schedulerPayload(SWEEPER_NAME, Date.now(), 1, REGION)]);
    expect(new Set(endpoint.invokes.slice(invokesFrom).map((i) => i.functionName))).toEqual(
      // By name: functions named cronfence-<job> carry no ARN in the sweeper's environment.
      new Set([example.fn('daily-report').name, example.fn('merchant-settlement').name]),
    );
    await deliverInvokes(example, invokesFrom, extra);
    for (const { definition } of jobs) {
      const h = exampleApp.handlers.find((x) => x.job.name === definition.name) as JobHandler;
      const [slotMs] = lastSlots(h, 1) as [number];
      const event = schedulerPayload(definition.name, slotMs, 1, REGION);
      await bundleRun(example, definition.name, [event, event, { ...event, attemptNumber: '2' }], extra);
    }
    for (const request of endpoint.requests.slice(from))
      recorded.push({ deployment: () => example, request });
  }, 240_000);

  it('in process: the scenarios (duplicate and late deliveries, with effects) and every drill', async () => {
    process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
    process.env[libraryTable.envVar] = example.tableName(libraryTable);
    for (const schema of tables) process.env[schema.envVar] = example.tableName(schema);
    await recordRuns({
      app: exampleApp,
      roleOf: (h) => example.fn(h.job.name).role,
      sink: (request) => recorded.push({ deployment: () => example, request }),
      endpoint: inject('dynamoEndpoint'),
      scenarios: { source: 'scenario', payments },
      drills: { source: 'drill', list: DRILLS },
    });
    const sources = new Set(recorded.map((r) => r.request.source));
    expect([...sources].filter((x) => !x.startsWith('bundle')).sort()).toEqual(['drill', 'scenario']);
  }, 240_000);

  it('in process: a fencedPut-only job (daily-report) reconciles a report last written under another lease (a reshard)', async () => {
    const h = exampleApp.handlers.find((x) => x.job.name === 'daily-report') as JobHandler;
    const toMs = Date.now();
    const slot = enumerateSlots(
      { ...h.job, schedule: h.expression, startMs: toMs - 4 * 86_400_000 },
      toMs - 4 * 86_400_000,
      toMs,
    ).at(-1);
    if (!slot) throw new Error('no daily-report slot');
    const reports = example.tableName(reportsTable);
    const doc = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
    // The report as shard 0 of an earlier 2-shard deployment left it, written by an earlier version
    // (the unprefixed fence + fencedBy): fenced by JOB#daily-report#0.
    await doc.send(
      new PutCommand({
        TableName: reports,
        Item: { reportDate: slot.businessDate, fencedBy: 'JOB#daily-report#0', fence: 7, title: 'earlier' },
      }),
    );
    const from = recorded.length;
    const stop = recordInProcess((request) => recorded.push({ deployment: () => example, request }));
    let r: Awaited<ReturnType<typeof deliver>>;
    try {
      process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
      process.env[libraryTable.envVar] = example.tableName(libraryTable);
      for (const schema of tables) process.env[schema.envVar] = example.tableName(schema);
      r = await deliver(attributed(h, example.fn('daily-report').role, 'scenario'), {
        job: 'daily-report',
        scheduledTimeMs: slot.scheduledTimeMs,
        extra: { trigger: 'manual', requestedBy: 'iam-test', reason: 'after a reshard' },
        label: 'manual run after a reshard',
      });
    } finally {
      stop();
    }
    expect(r.summary?.outcome).toBe('succeeded');
    const item = (
      await doc.send(new GetCommand({ TableName: reports, Key: { reportDate: slot.businessDate } }))
    ).Item;
    expect(item).toMatchObject({
      'cronfence:lease': 'JOB#daily-report',
      'cronfence:fence': r.summary?.fence,
      slot: slot.id,
      fencedBy: 'JOB#daily-report#0',
      fence: 7,
    });
    // One cross-lease transaction: the other lease is not running, ours is held, then the report.
    const txns = recorded.slice(from).filter((x) => x.request.operation === 'TransactWriteItems');
    expect(
      txns.map((x) =>
        (x.request.input.TransactItems as Record<string, { Key: Record<string, { S?: string }> }>[]).map(
          (t) => {
            const [kind, body] = Object.entries(t)[0] as [string, { Key: Record<string, { S?: string }> }];
            return `${kind} ${String((body.Key.pk ?? body.Key.reportDate)?.S)}`;
          },
        ),
      ),
    ).toEqual([
      ['ConditionCheck JOB#daily-report#0', 'ConditionCheck JOB#daily-report', `Update ${slot.businessDate}`],
    ]);
  }, 120_000);

  it('in process: a job with effects and no fencedPut (merchant-settlement) re-sends an effect last moved under another lease (a reshard)', async () => {
    const h = exampleApp.handlers.find((x) => x.job.name === 'merchant-settlement') as JobHandler;
    const [slotMs] = lastSlots(h, 4) as [number]; // a slot no other scenario runs
    const doc = createDocumentClient({ endpoint: inject('dynamoEndpoint') });
    const library = example.tableName(libraryTable);
    const from = recorded.length;
    const stop = recordInProcess((request) => recorded.push({ deployment: () => example, request }));
    const manual = (label: string) =>
      deliver(attributed(h, example.fn('merchant-settlement').role, 'scenario'), {
        job: 'merchant-settlement',
        scheduledTimeMs: slotMs,
        extra: { trigger: 'manual', requestedBy: 'iam-test', reason: label },
        label,
      });
    let first: Awaited<ReturnType<typeof deliver>>;
    let again: Awaited<ReturnType<typeof deliver>>;
    let key: string;
    try {
      process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
      process.env[libraryTable.envVar] = library;
      for (const schema of tables) process.env[schema.envVar] = example.tableName(schema);
      process.env.PAYMENTS_URL = payments.url;
      process.env.PAYMENTS_CAPABILITIES = 'idempotency-keys,lookup';
      first = await manual('first run');
      expect(first.summary?.outcome).toBe('succeeded');
      // One payout as shard 0 of an earlier 2-shard deployment left it: moved under JOB#merchant-settlement#0,
      // then marked not executed by an operator (`pending`), so the next run sends it again.
      const run = (
        await doc.send(
          new GetCommand({
            TableName: library,
            Key: Keys.run('merchant-settlement', String(first.summary?.slot), String(first.summary?.runId)),
          }),
        )
      ).Item;
      key = payoutKey((MERCHANTS[0] as Merchant).merchantId, String(run?.businessDate));
      const effectKey = { pk: `EFFECT#merchant-settlement#${key}`, sk: 'EFFECT' };
      const stored = (await doc.send(new GetCommand({ TableName: library, Key: effectKey }))).Item;
      expect(stored?.status).toBe('succeeded');
      await doc.send(
        new PutCommand({
          TableName: library,
          Item: { ...stored, status: 'pending', leaseKey: 'JOB#merchant-settlement#0', fence: 9 },
        }),
      );
      again = await manual('re-run after a reshard');
    } finally {
      stop();
      delete process.env.PAYMENTS_URL;
      delete process.env.PAYMENTS_CAPABILITIES;
    }
    expect(again.summary?.outcome).toBe('succeeded');
    // The move to `sending` checks our lease, writes the effect, and checks the other lease is not running.
    const moves = recorded
      .slice(from)
      .filter((x) => x.request.operation === 'TransactWriteItems')
      .map((x) =>
        (
          x.request.input.TransactItems as Record<string, Record<string, Record<string, { S?: string }>>>[]
        ).map((t) => {
          const [kind, body] = Object.entries(t)[0] as [
            string,
            Record<string, Record<string, { S?: string }>>,
          ];
          return `${kind} ${String((body.Key ?? body.Item)?.pk?.S)}`;
        }),
      )
      .filter((t) => t.some((x) => x.includes('JOB#merchant-settlement#0')));
    expect(moves).toEqual([
      [
        'ConditionCheck JOB#merchant-settlement',
        `Update EFFECT#merchant-settlement#${key}`,
        'ConditionCheck JOB#merchant-settlement#0',
      ],
    ]);
  }, 120_000);

  it('from the cdk.out bundles of a sharded job: the rendered Input twice at once, fan-out by self-invocation, each shard twice at once, a malformed event, the sweeper', async () => {
    const from = endpoint.requests.length;
    const url = await endpointUrl;
    const printed: string[] = [];
    const invokesFrom = endpoint.invokes.length;
    const [slotMs] = lastSlots(sharded, 1) as [number];
    const f = shardedStack.fn(sharded.job.name);
    const outcomesOf = (results: { value?: unknown }[][]) =>
      results.map(([r]) => (r?.value as { outcome?: string } | undefined)?.outcome).sort();
    const twiceAtOnce = (events: unknown[]) =>
      Promise.all(
        events
          .flatMap((e) => [e, e])
          .map((e) => shardedStack.invoke(f, [e], url, {}, (t) => printed.push(t))),
      );
    endpoint.tag(`bundle ${f.name}`);
    const event = shardedStack.renderedInput(sharded.job.name, {
      scheduledTimeMs: slotMs,
      executionId: randomUUID(),
      attemptNumber: 1,
      group: 'cronfence',
    });
    // Two copies of the scheduled delivery at once: one fans out (3 shard invokes), one is skipped.
    expect(outcomesOf(await twiceAtOnce([event]))).toEqual(['skipped', 'succeeded']);
    const shardEvents = endpoint.invokes.slice(invokesFrom).map((i) => i.payload);
    expect(shardEvents.map((p) => (p as { shard?: number }).shard).sort()).toEqual([0, 1, 2]);
    expect(new Set(endpoint.invokes.slice(invokesFrom).map((i) => i.functionName))).toEqual(
      new Set([f.name]),
    );
    // Each shard payload delivered twice at once (Lambda async invoke is at-least-once).
    const shardOutcomes = outcomesOf(await twiceAtOnce(shardEvents));
    expect(shardOutcomes).toEqual(['skipped', 'skipped', 'skipped', 'succeeded', 'succeeded', 'succeeded']);
    const [malformed] = await shardedStack.invoke(
      f,
      [{ ...(event as object), scheduledTime: 'yesterday' }],
      url,
    );
    expect(malformed?.ok).toBe(false);
    expect(malformed?.error).toMatch(/^InvalidEventError: /);
    // cronfence's own sweeper entry (definitions compiled in) on the sharded stack.
    const sweepFrom = endpoint.invokes.length;
    await bundleRun(shardedStack, shardedStack.sweeper.name, [
      schedulerPayload(SWEEPER_NAME, Date.now(), 1, REGION),
    ]);
    await deliverInvokes(shardedStack, sweepFrom);
    expect(printed.join('\n')).not.toMatch(/Warning|is defined as both/);
    for (const request of endpoint.requests.slice(from))
      recorded.push({ deployment: () => shardedStack, request });
    const ops = new Set(endpoint.requests.slice(from).map((r) => `${r.service}:${r.operation}`));
    expect([...ops].sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'lambda:Invoke',
    ]);
  }, 240_000);
});

describe('evaluated with an IAM policy evaluator', () => {
  const verdicts: Verdict[] = [];

  beforeAll(async () => {
    const checks: { deployment: Deployment; check: IamCheck }[] = [];
    for (const { deployment, request } of recorded) {
      const d = deployment();
      for (const check of checksOf(request, d.lookup)) checks.push({ deployment: d, check });
    }
    for (const d of [example, shardedStack])
      for (const check of d.serviceChecks()) checks.push({ deployment: d, check });
    for (const d of [example, shardedStack]) {
      verdicts.push(
        ...(await evaluate(
          d.t,
          checks.filter((c) => c.deployment === d).map((c) => c.check),
        )),
      );
    }
  }, 120_000);

  it('allows every recorded request and every service action (0 denials), incl. AssumeRole with the group ARN', () => {
    const denied = verdicts.filter((v) => v.result !== 'Allowed');
    expect(
      denied.map(
        (v) =>
          `${v.check.what}: ${v.check.action} ${v.check.resource} ${JSON.stringify(v.check.context)} -> ${v.result}`,
      ),
    ).toEqual([]);
    const assume = verdicts.filter((v) => v.check.action === 'sts:AssumeRole');
    expect(assume.map((v) => v.check.what).sort()).toEqual([
      'scheduler: cronfence-sweeper assumes its role',
      'scheduler: cronfence-sweeper assumes its role',
      'scheduler: daily-report assumes its role',
      'scheduler: merchant-settlement assumes its role',
      'scheduler: sharded-settlement assumes its role',
    ]);
    const actions = new Set(verdicts.map((v) => v.check.action));
    expect([...actions].sort()).toEqual([
      'dynamodb:ConditionCheckItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'lambda:InvokeFunction',
      'sqs:SendMessage',
      'sts:AssumeRole',
    ]);
    const inTransaction = verdicts.filter(
      (v) => v.check.context['dynamodb:EnclosingOperation'] === 'TransactWriteItems',
    );
    expect(new Set(inTransaction.map((v) => v.check.action))).toEqual(
      new Set(['dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
    );
    console.log(
      `IAM: ${verdicts.length} authorizations evaluated (${recorded.length} requests recorded), 0 denied`,
    );
  });

  it('denies every negative control', async () => {
    const results = [
      ...(await evaluate(
        example.t,
        negativeControls(example, shardedStack, sharded.job.name).filter((c) => example.t.roles.has(c.role)),
      )),
      ...(await evaluate(
        shardedStack.t,
        negativeControls(example, shardedStack, sharded.job.name).filter(
          (c) => shardedStack.t.roles.has(c.role) && !example.t.roles.has(c.role),
        ),
      )),
    ];
    expect(results).toHaveLength(negativeControls(example, shardedStack, sharded.job.name).length);
    expect(results.filter((r) => r.result === 'Allowed').map((r) => r.check.what)).toEqual([]);
  });

  it('prints the granted-but-unused list; each entry is explained in docs/deploy.md', () => {
    const unused = [example, shardedStack].flatMap((d) =>
      unusedGrants(
        grantsOf(d.t, ['dynamodb', 'lambda', 'sqs']),
        verdicts.filter((v) => d.t.roles.has(v.check.role)),
      ).map((g) => `${functionOfRole(d, g.role)} ${g.action} ${g.leadingKey ?? g.resource}`),
    );
    console.log(`IAM: granted but unused (${unused.length}):\n${unused.join('\n')}`);
    // docs/deploy.md "Least privilege": the sweeper's abandoned marks and catch-up-limit records, and the
    // late-copy Query, are off the paths these deployments take; the same requests are exercised (and
    // allowed) for the other jobs.
    expect(unused).toEqual([
      'CronfenceIam-daily-report dynamodb:Query JOB#daily-report',
      'CronfenceIam-merchant-settlement dynamodb:Query JOB#merchant-settlement',
      'sweeper dynamodb:PutItem JOB#daily-report',
      'sweeper dynamodb:PutItem JOB#merchant-settlement',
    ]);
  });
});

function functionOfRole(d: Deployment, role: string): string {
  const f = d.functions.find((x) => x.role === role);
  if (!f) return role;
  return f.environment.CRONFENCE_JOBS === undefined ? f.name : 'sweeper';
}
