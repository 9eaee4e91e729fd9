/**
 * The sweeper's catch-up of an ECS job (integ: DynamoDB Local): RunTask of one task with the occurrence
 * in `overrides.containerOverrides`, the same variable Scheduler's ECS target sets. ECS has no local
 * emulator: the client answers with responses of the shapes the ECS API reference gives for RunTask
 * (`tasks[]` with the started task; `failures[]` with `arn` and `reason` and no task; an
 * `InvalidParameterException` built with the SDK's own class), and the test says what each shape does.
 */
import {
  InvalidParameterException,
  type RunTaskCommand,
  type RunTaskCommandOutput,
} from '@aws-sdk/client-ecs';
import { beforeEach, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { type EcsTarget, ecsCatchUpInvoker, type RunTaskClient } from '../../lib/runtime/ecs-catch-up.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

const SLOT = Date.parse('2026-05-01T03:00:00Z');
const at = (iso: string) => new ControlledClock(Date.parse(iso) - Date.now());
const TASK_DEFINITION = 'arn:aws:ecs:eu-central-1:123456789012:task-definition/CronfenceTest-export:3';
const CLUSTER = 'arn:aws:ecs:eu-central-1:123456789012:cluster/CronfenceTest-EcsCluster';
const target: EcsTarget = {
  cluster: CLUSTER,
  taskDefinition: TASK_DEFINITION,
  subnets: ['subnet-0a1b2c3d4e5f60718', 'subnet-0f1e2d3c4b5a69788'],
  securityGroups: ['sg-0123456789abcdef0'],
  assignPublicIp: true,
  spot: false,
};

/** A RunTask client answering `answer` and keeping each request's input. */
function ecsClient(
  answer: () => RunTaskCommandOutput,
): RunTaskClient & { inputs: RunTaskCommand['input'][] } {
  const inputs: RunTaskCommand['input'][] = [];
  return {
    inputs,
    send: async (command) => {
      inputs.push(command.input);
      return answer();
    },
  };
}

/** RunTask's answer when ECS started the task (ECS API reference, RunTask response: `tasks[]`). */
const started = (): RunTaskCommandOutput => ({
  $metadata: { httpStatusCode: 200 },
  tasks: [
    {
      taskArn:
        'arn:aws:ecs:eu-central-1:123456789012:task/CronfenceTest-EcsCluster/0f9d8c7b6a5e4d3c2b1a0f9e8d7c6b5a',
      clusterArn: CLUSTER,
      taskDefinitionArn: TASK_DEFINITION,
      lastStatus: 'PROVISIONING',
      desiredStatus: 'RUNNING',
      launchType: 'FARGATE',
      group: 'cronfence:export',
      startedBy: 'cronfence-sweeper',
      containers: [{ name: 'job', lastStatus: 'PENDING' }],
    },
  ],
  failures: [],
});

const exportJob = defineJob({
  name: 'export',
  schedule: 'cron(0 3 * * ? *)',
  timeZone: 'UTC',
  lease: { durationSeconds: 5 },
  run: async () => {
    throw new Error('warehouse unreachable');
  },
});

async function deliveredAndFailed(): Promise<ReturnType<LocalStack['worker']>> {
  const w = stack.worker({ clock: at('2026-05-01T03:00:30Z') });
  await deliver(
    exportJob.withDeps(() => w.deps),
    { job: 'export', scheduledTimeMs: SLOT, label: 'on time' },
  );
  return w;
}

describe('the sweeper catches an ECS job up with RunTask', () => {
  it('starts one Fargate task with the occurrence in the container overrides, as the schedule does', async () => {
    const w = await deliveredAndFailed();
    const client = ecsClient(started);
    const report = await sweep(
      { leases: w.deps.leases, runs: w.deps.runs, clock: at('2026-05-01T03:20:00Z'), log: () => undefined },
      [
        {
          definition: exportJob.job,
          expression: exportJob.expression,
          invoke: ecsCatchUpInvoker(client, 'export', target),
        },
      ],
    );
    expect(report.decisions).toEqual([
      { job: 'export', slot: '2026-05-01T03:00', action: 'triggered', reason: 'unfinished' },
    ]);
    expect(client.inputs).toHaveLength(1);
    const [input] = client.inputs;
    const occurrence = input?.overrides?.containerOverrides?.[0]?.environment?.[0]?.value ?? '';
    expect({ ...input, overrides: undefined }).toEqual({
      cluster: CLUSTER,
      taskDefinition: TASK_DEFINITION,
      count: 1,
      launchType: 'FARGATE',
      networkConfiguration: {
        awsvpcConfiguration: {
          subnets: ['subnet-0a1b2c3d4e5f60718', 'subnet-0f1e2d3c4b5a69788'],
          securityGroups: ['sg-0123456789abcdef0'],
          assignPublicIp: 'ENABLED',
        },
      },
      group: 'cronfence:export',
      startedBy: 'cronfence-sweeper',
      overrides: undefined,
    });
    expect(input?.overrides).toEqual({
      containerOverrides: [
        { name: 'job', environment: [{ name: 'CRONFENCE_OCCURRENCE', value: occurrence }] },
      ],
    });
    const parsed = JSON.parse(occurrence) as Record<string, unknown>;
    expect(parsed).toEqual({
      scheduledTime: '2026-05-01T03:00:00Z',
      attempt: 1,
      executionId: parsed.executionId,
      trigger: 'catch-up',
      requestedBy: 'sweeper',
      reason: 'unfinished',
    });
    expect(String(parsed.executionId)).toMatch(/^sweeper-[0-9a-f-]{36}$/);
  }, 60_000);

  it('on Fargate Spot asks for the FARGATE_SPOT capacity provider instead of a launch type', async () => {
    const w = await deliveredAndFailed();
    const client = ecsClient(started);
    await sweep(
      { leases: w.deps.leases, runs: w.deps.runs, clock: at('2026-05-01T03:20:00Z'), log: () => undefined },
      [
        {
          definition: exportJob.job,
          expression: exportJob.expression,
          invoke: ecsCatchUpInvoker(client, 'export', { ...target, spot: true }),
        },
      ],
    );
    expect(client.inputs[0]?.launchType).toBeUndefined();
    expect(client.inputs[0]?.capacityProviderStrategy).toEqual([
      { capacityProvider: 'FARGATE_SPOT', weight: 1 },
    ]);
  }, 60_000);

  it.each([
    [
      'failures[] and no task (RunTask answers 200)',
      () => ({
        $metadata: { httpStatusCode: 200 },
        tasks: [],
        failures: [
          {
            arn: TASK_DEFINITION,
            reason:
              'Capacity is unavailable at this time. Please try again later or in a different availability zone',
          },
        ],
      }),
      `RunTaskRefusedError: ECS RunTask started no task: Capacity is unavailable at this time. Please try again later or in a different availability zone for ${TASK_DEFINITION}`,
    ],
    [
      'an InvalidParameterException (HTTP 400)',
      (): RunTaskCommandOutput => {
        throw new InvalidParameterException({
          message: 'No Container Instances were found in your cluster.',
          $metadata: { httpStatusCode: 400 },
        });
      },
      'InvalidParameterException: No Container Instances were found in your cluster.',
    ],
  ])(
    'records failed / sweep-failed with the reason when ECS answers %s',
    async (_what, answer, error) => {
      const w = await deliveredAndFailed();
      const report = await sweep(
        { leases: w.deps.leases, runs: w.deps.runs, clock: at('2026-05-01T03:20:00Z'), log: () => undefined },
        [
          {
            definition: exportJob.job,
            expression: exportJob.expression,
            invoke: ecsCatchUpInvoker(ecsClient(answer), 'export', target),
          },
        ],
      );
      const why = `catch-up invoke of 2026-05-01T03:00 failed: ${error}`;
      expect(report.problems).toEqual([
        { job: 'export', slot: '2026-05-01T03:00', outcome: 'failed', reason: 'sweep-failed', error: why },
      ]);
      const records = await stack.runRecords('export');
      expect(records.map((r) => [r.slot, r.trigger, r.outcome, r.reason])).toEqual([
        ['2026-05-01T03:00', 'schedule', 'failed', 'error'],
        ['2026-05-01T03:00', 'catch-up', 'failed', 'sweep-failed'],
      ]);
      expect(records[1]).toMatchObject({ error: { name: 'CatchUpInvokeError', message: why } });
    },
    60_000,
  );
});
