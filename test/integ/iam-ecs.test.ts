/**
 * IAM as AWS evaluates it, for ECS jobs: both example jobs deployed with `runtime: 'ecs'`. Every
 * DynamoDB request the TASK ENTRY makes, run as its container runs it (`node ecs-task.mjs` from the image
 * directory the synth staged, with the task definition's environment and the overrides Scheduler
 * renders: two tasks for one occurrence, a late retry, a malformed occurrence), recorded by a DynamoDB
 * endpoint under the task role; the drills of a task's life in process as the task roles; the sweeper's
 * RunTask catch-ups as its role; and what the services do with the ECS roles (Scheduler's AssumeRole,
 * RunTask and PassRole; ECS's AssumeRole of the task role; the image pull and log writes of the execution
 * role) — evaluated against the synthesized policies with a real IAM evaluator: 0 denied, and negative
 * controls (another job's lease, another task role, another cluster, another account, and every entry
 * request made as the other job's task role) denied. ECS has no local emulator: RunTask answers with the
 * response shape of the ECS API reference.
 */
import { randomUUID } from 'node:crypto';
import type { RunTaskCommand, RunTaskCommandOutput } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { tables } from '../../functions/index.js';
import { selectDrills } from '../../harness/drills/catalog/index.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { ecsCatchUpInvoker } from '../../lib/runtime/ecs-catch-up.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { parseSweeperJobs } from '../../lib/runtime/sweeper-handler.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { libraryTable } from '../../lib/store/schema.js';
import { ecsEntries, ecsProps } from '../cdk/ecs-support.js';
import { type Deployment, synthToDisk } from '../helpers/iam/deployment.js';
import { createEcsTables, ecsServiceChecks, ecsTask, runTaskChecks } from '../helpers/iam/ecs.js';
import { ecsNegativeControls } from '../helpers/iam/ecs-controls.js';
import { runTaskEntry } from '../helpers/iam/ecs-entry.js';
import { evaluate, type Verdict } from '../helpers/iam/evaluate.js';
import { lastSlots, recordRuns } from '../helpers/iam/record-runs.js';
import {
  actingAs,
  type RecordedRequest,
  RecordingEndpoint,
  recordInProcess,
} from '../helpers/iam/recorder.js';
import { checksOf, type IamCheck } from '../helpers/iam/requests.js';
import { ACCOUNT, REGION } from '../helpers/iam/template.js';

const prefix = `iamecs${Date.now().toString(36)}`;
let d: Deployment;
let payments: PaymentService;
let endpoint: RecordingEndpoint;
let endpointUrl: Promise<string>;
const recorded: RecordedRequest[] = [];
const extraChecks: IamCheck[] = [];
const savedEnv = { ...process.env };
/**
 * The drills of what happens to an ECS task (the Lambda IAM test runs every drill): duplicate tasks,
 * SIGKILL mid-body, renewals that time out, a pause (SIGSTOP) past the lease, a deadline, an effect
 * left in sending.
 */
const ECS_DRILLS = selectDrills([
  'duplicates-10-concurrent',
  'holder-killed-mid-run',
  'renewal-times-out',
  'pause-past-lease',
  'deadline-mid-run',
  'effect-sending',
]);

beforeAll(async () => {
  // Each job's image bundles a handler file of it defined as an ECS job (the example files are Lambda jobs').
  const entries = ecsEntries().map((e) => ({
    ...e,
    entry: `test/helpers/iam/fixtures/ecs-${e.definition.name}.ts`,
  }));
  d = synthToDisk('CronfenceIamEcs', ecsProps(entries), prefix);
  endpoint = new RecordingEndpoint(inject('dynamoEndpoint'));
  endpointUrl = endpoint.start();
  await endpointUrl;
  await createEcsTables(d, createDocumentClient({ endpoint: inject('dynamoEndpoint') }), tables);
  payments = await startPaymentService({ idempotencyKeys: true, lookup: true });
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env[libraryTable.envVar] = d.tableName(libraryTable);
  for (const schema of tables) process.env[schema.envVar] = d.tableName(schema);
}, 240_000);

afterAll(async () => {
  await endpoint?.stop();
  await payments?.stop();
  d?.dispose();
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

describe('requests of ECS jobs', () => {
  it("as the sweeper's role: on empty tables it catches both ECS jobs up with RunTask of their task definitions on their cluster", async () => {
    const sweeperRole = d.sweeper.role;
    const refs = parseSweeperJobs(d.sweeper.environment.CRONFENCE_JOBS);
    const started: string[] = [];
    const client = {
      send: async (command: RunTaskCommand): Promise<RunTaskCommandOutput> => {
        extraChecks.push(...runTaskChecks(d, sweeperRole, command.input, 'sweeper'));
        started.push(String(command.input.taskDefinition));
        return {
          $metadata: {},
          tasks: [{ taskArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:task/c/1` }],
          failures: [],
        };
      },
    };
    const targets = refs.map((ref) => {
      const h = exampleApp.handlers.find((x) => x.job.name === ref.name) as JobHandler;
      if (!ref.ecs) throw new Error(`${ref.name}: no ecs entry in CRONFENCE_JOBS`);
      return {
        definition: h.job,
        expression: h.expression,
        invoke: ecsCatchUpInvoker(client, ref.name, ref.ecs),
      };
    });
    const stop = recordInProcess((request) => recorded.push(request));
    try {
      const deps = createDeps();
      await actingAs(sweeperRole, 'sweeper', () =>
        sweep({ leases: deps.leases, runs: deps.runs, clock: deps.clock, log: () => undefined }, targets),
      );
    } finally {
      stop();
    }
    expect(new Set(started)).toEqual(
      new Set([ecsTask(d, 'daily-report').arn, ecsTask(d, 'merchant-settlement').arn]),
    );
  }, 120_000);
  it('as the task roles, through the task entry of the staged image: two tasks for one occurrence, a late retry, a malformed occurrence', async () => {
    const from = endpoint.requests.length;
    const url = await endpointUrl;
    const extra = { PAYMENTS_URL: payments.url, PAYMENTS_CAPABILITIES: 'idempotency-keys,lookup' };
    for (const h of exampleApp.handlers) {
      const job = h.job.name;
      const [slotMs] = lastSlots(h, 3) as [number]; // before the drills' and the sweeper's slots
      endpoint.tag(`ecs-entry ${job}`);
      const overrides = (attemptNumber: number) =>
        d.renderedInput(job, {
          scheduledTimeMs: slotMs,
          executionId: randomUUID(),
          attemptNumber,
          group: 'cronfence',
        });
      const task = (o: unknown, n: number) =>
        runTaskEntry(d, job, { overrides: o, endpoint: url, taskId: `${job}-${n}`, env: extra });
      // Scheduler may start two tasks for one occurrence: one succeeds, the other exits 0 skipped.
      const first = overrides(1);
      const both = await Promise.all([task(first, 1), task(first, 2)]);
      const summaries = both.map((r) => r.result?.summary);
      expect(
        both.map((r) => r.code),
        both.map((r) => r.output).join('\n'),
      ).toEqual([0, 0]);
      expect(summaries.map((x) => x?.outcome).sort()).toEqual(['skipped', 'succeeded']);
      expect(['lease-held', 'already-succeeded']).toContain(
        summaries.find((x) => x?.outcome === 'skipped')?.reason,
      );
      const late = await task(overrides(2), 3);
      expect([late.code, late.result?.summary?.outcome, late.result?.summary?.reason]).toEqual([
        0,
        'skipped',
        'already-succeeded',
      ]);
      const before = endpoint.requests.length;
      const malformed = await task(
        {
          containerOverrides: [
            {
              name: 'job',
              environment: [{ name: 'CRONFENCE_OCCURRENCE', value: '{"scheduledTime":"yesterday"}' }],
            },
          ],
        },
        4,
      );
      expect([malformed.code, malformed.result?.error?.name]).toEqual([2, 'InvalidEventError']);
      expect(endpoint.requests.length).toBe(before); // bad input: nothing sent
    }
    const fromEntry = endpoint.requests.slice(from);
    recorded.push(...fromEntry);
    expect(new Set(fromEntry.map((r) => r.role))).toEqual(
      new Set(exampleApp.handlers.map((h) => ecsTask(d, h.job.name).taskRole)),
    );
    // A run never reads (refused writes return the item): claim, renew, release and fenced writes are
    // UpdateItems, records and inserts PutItems, effect moves TransactWriteItems.
    expect([...new Set(fromEntry.map((r) => `${r.service}:${r.operation}`))].sort()).toEqual([
      'dynamodb:PutItem',
      'dynamodb:TransactWriteItems',
      'dynamodb:UpdateItem',
    ]);
  }, 240_000);

  it('as the task roles, in process: the drills of a task’s life', async () => {
    await recordRuns({
      app: exampleApp,
      roleOf: (h) => ecsTask(d, h.job.name).taskRole,
      sink: (request) => recorded.push(request),
      endpoint: inject('dynamoEndpoint'),
      drills: { source: 'ecs-drill', list: ECS_DRILLS },
    });
    expect(recorded.some((r) => r.source === 'ecs-drill')).toBe(true);
  }, 240_000);
});

describe('evaluated with an IAM policy evaluator', () => {
  let verdicts: Verdict[] = [];

  beforeAll(async () => {
    const checks = [
      ...recorded.flatMap((r) => checksOf(r, d.lookup)),
      ...extraChecks,
      ...ecsServiceChecks(d),
      // The sweeper's own (Lambda) schedule and on-failure destination.
      ...d
        .serviceChecks()
        .filter((c) => c.what.startsWith('scheduler: cronfence-sweeper') || c.what.startsWith('lambda:')),
    ];
    verdicts = await evaluate(d.t, checks);
  }, 120_000);

  it('allows every recorded request and every service action (0 denied)', () => {
    const denied = verdicts.filter((v) => v.result !== 'Allowed');
    expect(
      denied.map(
        (v) => `${v.check.what}: ${v.check.action} ${v.check.resource} ${JSON.stringify(v.check.context)}`,
      ),
    ).toEqual([]);
    const whats = new Set(verdicts.map((v) => v.check.what.replace(/: [A-Za-z]+( > \w+)?$/, '')));
    for (const w of [
      'ecs-entry daily-report',
      'ecs-entry merchant-settlement',
      'ecs-drill',
      'sweeper: RunTask',
      'scheduler: daily-report assumes its role',
      'scheduler: merchant-settlement: RunTask',
      'ecs: CronfenceIamEcs-merchant-settlement task assumes its task role',
    ])
      expect(
        [...whats].some((x) => x.startsWith(w)),
        w,
      ).toBe(true);
  });

  it('denies the negative controls: another job’s lease, another task role, another cluster, another account', async () => {
    const results = await evaluate(d.t, ecsNegativeControls(d));
    expect(results.filter((v) => v.result === 'Allowed').map((v) => v.check.what)).toEqual([]);
    expect(results).toHaveLength(12);
  });

  it("denies every request the task entry made when made as the other job's task role", async () => {
    const roles = exampleApp.handlers.map((h) => ecsTask(d, h.job.name).taskRole);
    const other = (role: string) => roles.find((r) => r !== role) as string;
    const swapped = recorded
      .filter((r) => r.source.startsWith('ecs-entry'))
      .flatMap((r) => checksOf({ ...r, role: other(r.role) }, d.lookup));
    const results = await evaluate(d.t, swapped);
    expect(results.length).toBeGreaterThan(20);
    expect(
      results.filter((v) => v.result === 'Allowed').map((v) => `${v.check.what} ${v.check.resource}`),
    ).toEqual([]);
  });
});
