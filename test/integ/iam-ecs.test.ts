/**
 * IAM as AWS evaluates it, for ECS jobs: both example jobs deployed with `runtime: 'ecs'`, every
 * DynamoDB request their bodies make through the run protocol (claim, renew, record, release, fenced
 * writes, inserts, effects; duplicates, late copies and the drills of a task's life) recorded as their TASK roles, the
 * sweeper's RunTask catch-ups recorded as its role, and what the services do with the ECS roles
 * (Scheduler's AssumeRole, RunTask and PassRole; ECS's AssumeRole of the task role; the image pull and
 * log writes of the execution role) — evaluated against the synthesized policies with a real IAM
 * evaluator: 0 denied, and negative controls (another job's lease, another task role, another cluster,
 * another account) denied. ECS has no local emulator: RunTask answers with the response shape of the
 * ECS API reference.
 */
import type { RunTaskCommand, RunTaskCommandOutput } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { tables } from '../../functions/index.js';
import { reportsTable, settlementsTable } from '../../functions/tables.js';
import { selectDrills } from '../../harness/drills/catalog/index.js';
import { formatReport, runDrill } from '../../harness/drills/run-drills.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import type { LocalApp } from '../../harness/local/run-local.js';
import { deliver, deliveriesFor } from '../../harness/local/scheduler-emulator.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
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
import { evaluate, type Verdict } from '../helpers/iam/evaluate.js';
import { actingAs, attributed, type RecordedRequest, recordInProcess } from '../helpers/iam/recorder.js';
import { checksOf, type IamCheck } from '../helpers/iam/requests.js';
import { ACCOUNT, REGION } from '../helpers/iam/template.js';

const prefix = `iamecs${Date.now().toString(36)}`;
let d: Deployment;
let payments: PaymentService;
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

function lastSlots(h: JobHandler, n: number): number[] {
  const toMs = Date.now();
  const fromMs = toMs - 4 * 86_400_000;
  return enumerateSlots({ ...h.job, schedule: h.expression, startMs: fromMs }, fromMs, toMs)
    .slice(-n)
    .map((s) => s.scheduledTimeMs);
}

beforeAll(async () => {
  d = synthToDisk('CronfenceIamEcs', ecsProps(ecsEntries()), prefix);
  await createEcsTables(d, createDocumentClient({ endpoint: inject('dynamoEndpoint') }), tables);
  payments = await startPaymentService({ idempotencyKeys: true, lookup: true });
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env[libraryTable.envVar] = d.tableName(libraryTable);
  for (const schema of tables) process.env[schema.envVar] = d.tableName(schema);
}, 240_000);

afterAll(async () => {
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
  it('as the task roles: duplicate and late deliveries with effects, and the drills of a task’s life', async () => {
    const stop = recordInProcess((request) => recorded.push(request));
    const roleOf = (h: JobHandler) => ecsTask(d, h.job.name).taskRole;
    try {
      process.env.PAYMENTS_URL = payments.url;
      process.env.PAYMENTS_CAPABILITIES = 'idempotency-keys,lookup';
      for (const h of exampleApp.handlers) {
        const handler = attributed(h, roleOf(h), 'ecs-task');
        for (const slotMs of lastSlots(h, 2)) {
          const { concurrent, late } = deliveriesFor(h.job.name, slotMs, 2, 1);
          await Promise.all(concurrent.map((x) => deliver(handler, x)));
          for (const x of late) await deliver(handler, x);
        }
      }
      delete process.env.PAYMENTS_URL;
      delete process.env.PAYMENTS_CAPABILITIES;
      const app: LocalApp = {
        ...exampleApp,
        handlers: exampleApp.handlers.map((h) => attributed(h, roleOf(h), 'ecs-drill')),
      };
      const target = {
        endpoint: inject('dynamoEndpoint'),
        description: 'DynamoDB Local',
        stop: async () => {},
      };
      for (const drill of ECS_DRILLS) {
        const report = await runDrill(drill, { app, drills: [drill], target });
        expect(report.pass, formatReport(report).join('\n')).toBe(true);
      }
    } finally {
      stop();
    }
    const ops = new Set(
      recorded.filter((r) => r.role !== d.sweeper.role).map((r) => `${r.service}:${r.operation}`),
    );
    // A run never reads (refused writes return the item): claim, renew, release and fenced writes are
    // UpdateItems, records and inserts PutItems, effect moves TransactWriteItems.
    expect([...ops].sort()).toEqual([
      'dynamodb:PutItem',
      'dynamodb:TransactWriteItems',
      'dynamodb:UpdateItem',
    ]);
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
      'ecs-task',
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
    const lib = d.lookup.arnOf(d.tableName(libraryTable));
    const daily = ecsTask(d, 'daily-report');
    const settle = ecsTask(d, 'merchant-settlement');
    const scheduleRole = (job: string) => {
      const [, r] = d.t.ofType('AWS::Scheduler::Schedule').find(([, s]) => s.Properties?.Name === job) ?? [];
      return d.t.roleOf((r?.Properties?.Target as { RoleArn?: unknown } | undefined)?.RoleArn).logicalId;
    };
    const cluster = String(
      d.t.resolve(d.t.ofType('AWS::ECS::Cluster').map(([id]) => ({ 'Fn::GetAtt': [id, 'Arn'] }))[0]),
    );
    const keys = (k: string) => ({ 'dynamodb:LeadingKeys': [k] });
    const pass = (role: string, passed: string, what: string): IamCheck => ({
      role,
      action: 'iam:PassRole',
      resource: `arn:aws:iam::${ACCOUNT}:role/${passed}`,
      context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
      what,
    });
    const controls: IamCheck[] = [
      {
        role: daily.taskRole,
        action: 'dynamodb:UpdateItem',
        resource: lib,
        context: keys('JOB#merchant-settlement'),
        what: "daily-report's task writes merchant-settlement's lease",
      },
      {
        role: settle.taskRole,
        action: 'dynamodb:PutItem',
        resource: lib,
        context: keys('JOB#daily-report'),
        what: "merchant-settlement's task writes daily-report's run records",
      },
      {
        role: daily.taskRole,
        action: 'dynamodb:PutItem',
        resource: d.lookup.arnOf(d.tableName(settlementsTable)),
        context: keys('M001'),
        what: "daily-report's task writes the settlements table",
      },
      {
        role: settle.taskRole,
        action: 'dynamodb:UpdateItem',
        resource: d.lookup.arnOf(d.tableName(reportsTable)),
        context: keys('2026-01-14'),
        what: "merchant-settlement's task writes the reports table",
      },
      {
        role: scheduleRole('daily-report'),
        action: 'ecs:RunTask',
        resource: settle.arn,
        context: { 'ecs:cluster': cluster },
        what: "daily-report's schedule runs merchant-settlement's task",
      },
      pass(scheduleRole('daily-report'), settle.taskRole, "daily-report's schedule passes another task role"),
      pass(
        scheduleRole('daily-report'),
        settle.executionRole,
        "daily-report's schedule passes another execution role",
      ),
      pass(d.sweeper.role, scheduleRole('daily-report'), 'the sweeper passes a role that is no task role'),
      {
        role: d.sweeper.role,
        action: 'ecs:RunTask',
        resource: daily.arn,
        context: { 'ecs:cluster': `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/other` },
        what: 'the sweeper runs a task on another cluster',
      },
      {
        ...pass(d.sweeper.role, daily.taskRole, 'the sweeper passes a task role to Lambda'),
        context: { 'iam:PassedToService': 'lambda.amazonaws.com' },
      },
      {
        role: daily.taskRole,
        assumedBy: 'ecs-tasks.amazonaws.com',
        action: 'sts:AssumeRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/${daily.taskRole}`,
        context: {
          'aws:SourceArn': `arn:aws:ecs:${REGION}:444455556666:task/c/1`,
          'aws:SourceAccount': '444455556666',
        },
        what: 'a task of another account assumes the task role',
      },
      {
        role: daily.taskRole,
        assumedBy: 'lambda.amazonaws.com',
        action: 'sts:AssumeRole',
        resource: `arn:aws:iam::${ACCOUNT}:role/${daily.taskRole}`,
        context: { 'aws:SourceAccount': ACCOUNT },
        what: 'Lambda assumes the task role',
      },
    ];
    const results = await evaluate(d.t, controls);
    expect(results.filter((v) => v.result === 'Allowed').map((v) => v.check.what)).toEqual([]);
    expect(results).toHaveLength(12);
  });
});
