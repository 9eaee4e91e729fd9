/**
 * cdk: an ECS job (`runtime: 'ecs'`) synthesized offline — no Docker engine on this machine: the image
 * is staged at synth (two esbuild bundles and a Dockerfile) and built by the CDK CLI at deploy time. The
 * schedule's ECS target and its Input are asserted exactly as the EventBridge Scheduler API reference
 * (`Target.EcsParameters`, `Input`, context attributes) and the ECS RunTask reference
 * (`overrides.containerOverrides`) describe them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobEntry } from '../../cdk/constructs/cronfence-jobs.js';
import { SWEEPER_NAME } from '../../cdk/constructs/sweeper.js';
import { ecsEntries, ecsProps } from './ecs-support.js';
import { logicalId, type Synthesized, synthError, synthesize } from './support.js';

let synth: Synthesized;
const job = () => {
  const j = synth.stack.cronfence.ecsJobs[0];
  if (!j) throw new Error('no ECS job');
  return j;
};

beforeAll(() => {
  synth = synthesize(ecsProps(ecsEntries(['merchant-settlement'])));
}, 120_000);

describe('an ECS job', () => {
  it('is a Fargate task definition (ARM64, 0.25 vCPU, 512 MiB) with one container "job" and no Lambda function of its own', () => {
    synth.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Family: 'CronfenceTest-merchant-settlement',
      Cpu: '256',
      Memory: '512',
      NetworkMode: 'awsvpc',
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({
          Name: 'job',
          Essential: true,
          StopTimeout: 120,
          Environment: [
            { Name: 'NODE_OPTIONS', Value: '--enable-source-maps' },
            { Name: 'POWERTOOLS_METRICS_NAMESPACE', Value: 'cronfence' },
            { Name: 'POWERTOOLS_SERVICE_NAME', Value: 'cronfence' },
            {
              Name: 'CRONFENCE_TABLE',
              Value: { Ref: logicalId(synth, synth.stack.cronfence.libraryTable.table) },
            },
            { Name: 'CRONFENCE_JOB', Value: 'merchant-settlement' },
            { Name: 'CRONFENCE_JOBS_MODULE', Value: '/app/jobs.mjs' },
            { Name: 'CRONFENCE_STOP_TIMEOUT_SECONDS', Value: '120' },
            { Name: 'SETTLEMENTS_TABLE', Value: { Ref: Match.stringLikeRegexp('settlementsTable') } },
          ],
          LogConfiguration: Match.objectLike({ LogDriver: 'awslogs' }),
        }),
      ],
    });
    const fns = Object.values(synth.template.findResources('AWS::Lambda::Function')).map(
      (f) => (f.Properties as { Description?: string }).Description,
    );
    expect(fns.filter((d) => d?.startsWith('cronfence job'))).toEqual([]);
    expect(synth.stack.cronfence.jobs).toEqual([]);
  });

  it('is scheduled with the ECS RunTask target: Fargate in the public subnets with a public IP, retries 185 over 24 h, its DLQ, group cronfence:<job>', () => {
    const j = job();
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'merchant-settlement',
      ScheduleExpression: 'cron(0 1 * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Shanghai',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EcsCluster'), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [logicalId(synth, j.scheduleRole), 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(synth, j.deadLetterQueue), 'Arn'] } },
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
        EcsParameters: {
          TaskDefinitionArn: { Ref: logicalId(synth, j.taskDefinition) },
          LaunchType: 'FARGATE',
          Group: 'cronfence:merchant-settlement',
          NetworkConfiguration: {
            AwsvpcConfiguration: {
              AssignPublicIp: 'ENABLED',
              SecurityGroups: [
                { 'Fn::GetAtt': [Match.stringLikeRegexp('^EcsTaskSecurityGroup'), 'GroupId'] },
              ],
              Subnets: [
                { Ref: Match.stringLikeRegexp('^EcsVpctasksSubnet1') },
                { Ref: Match.stringLikeRegexp('^EcsVpctasksSubnet2') },
              ],
            },
          },
        },
        Input: Match.anyValue(),
      },
    });
  });

  it('passes the occurrence in the container overrides: the exact Input, and what Scheduler renders from it', () => {
    const [schedule] = Object.values(
      synth.template.findResources('AWS::Scheduler::Schedule', {
        Properties: { Name: 'merchant-settlement' },
      }),
    );
    const input = (schedule as { Properties: { Target: { Input: string } } }).Properties.Target.Input;
    expect(input).toBe(
      '{"containerOverrides":[{"name":"job","environment":[{"name":"CRONFENCE_OCCURRENCE","value":' +
        '"{\\"scheduledTime\\":\\"<aws.scheduler.scheduled-time>\\",\\"attempt\\":<aws.scheduler.attempt-number>,' +
        '\\"executionId\\":\\"<aws.scheduler.execution-id>\\",\\"trigger\\":\\"schedule\\"}"}]}]}',
    );
    // Scheduler replaces each keyword in the Input text by its value (User Guide, "Adding context attributes").
    const rendered = input
      .replace('<aws.scheduler.scheduled-time>', '2026-03-28T17:00:00Z')
      .replace('<aws.scheduler.attempt-number>', '2')
      .replace('<aws.scheduler.execution-id>', 'd32c5kddcf5bb8c3');
    const overrides = JSON.parse(rendered) as {
      containerOverrides: { name: string; environment: { name: string; value: string }[] }[];
    };
    expect(overrides.containerOverrides.map((c) => c.name)).toEqual(['job']);
    expect(JSON.parse(overrides.containerOverrides[0]?.environment[0]?.value ?? '')).toEqual({
      scheduledTime: '2026-03-28T17:00:00Z',
      attempt: 2,
      executionId: 'd32c5kddcf5bb8c3',
      trigger: 'schedule',
    });
  });

  it("gives Scheduler's role exactly ecs:RunTask of the task definition, iam:PassRole of its two roles, and its DLQ", () => {
    const j = job();
    synth.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId(synth, j.scheduleRole) }],
      PolicyDocument: {
        Statement: [
          {
            Action: 'iam:PassRole',
            Effect: 'Allow',
            Condition: { StringLike: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
            Resource: [
              { 'Fn::GetAtt': [logicalId(synth, j.taskRole), 'Arn'] },
              { 'Fn::GetAtt': [Match.stringLikeRegexp('TaskExecutionRole'), 'Arn'] },
            ],
          },
          { Action: 'ecs:RunTask', Effect: 'Allow', Resource: { Ref: logicalId(synth, j.taskDefinition) } },
          {
            Action: 'sqs:SendMessage',
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [logicalId(synth, j.deadLetterQueue), 'Arn'] },
          },
        ],
      },
    });
  });

  it('stages its image at synth: a Dockerfile and the two bundles, whose jobs module exports the job', () => {
    const dir = join(synth.app.synth().directory, '.cronfence-ecs', 'CronfenceTest-merchant-settlement');
    expect(readFileSync(join(dir, 'Dockerfile'), 'utf8')).toBe(
      [
        'FROM --platform=linux/arm64 public.ecr.aws/docker/library/node:24-slim',
        'WORKDIR /app',
        'COPY ecs-task.mjs ecs-task.mjs.map jobs.mjs jobs.mjs.map ./',
        'USER node',
        'CMD ["node", "--enable-source-maps", "ecs-task.mjs"]',
        '',
      ].join('\n'),
    );
    for (const f of ['ecs-task.mjs', 'ecs-task.mjs.map', 'jobs.mjs', 'jobs.mjs.map'])
      expect(existsSync(join(dir, f)), f).toBe(true);
    const url = pathToFileURL(join(dir, 'jobs.mjs')).href;
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(url)}); console.log(m.handler.job.name, Object.keys(m.handlers).join(), m.jobs[0].entry);`,
      ],
      {
        env: { PATH: process.env.PATH, CRONFENCE_TABLE: 'cronfence', AWS_REGION: 'eu-central-1' },
        encoding: 'utf8',
      },
    );
    expect(out.trim()).toBe('merchant-settlement merchant-settlement functions/merchant-settlement.ts');
    // The asset the CDK CLI builds at deploy time is the staged directory (a DockerImageAsset in the manifest).
    const manifest = JSON.parse(
      readFileSync(join(synth.app.synth().directory, 'CronfenceTest.assets.json'), 'utf8'),
    ) as { dockerImages: Record<string, { source: { directory: string; platform?: string } }> };
    expect(Object.values(manifest.dockerImages).map((d) => d.source.platform)).toEqual(['linux/arm64']);
  });

  it('has its alarms: problem metrics, effects, dead letters, failed tasks, no success within two periods', () => {
    const names = (synth.stack.cronfence.alarms.alarmsByJob.get('merchant-settlement') ?? []).map((a) =>
      synth.stack.resolve((a.node.defaultChild as CfnAlarm).alarmName),
    );
    expect(names.map((n) => String(n).replace('CronfenceTest-cronfence-merchant-settlement-', ''))).toEqual([
      'RunFailed',
      'RunStale',
      'RunAbandoned',
      'SlotNotRun',
      'SweepFailed',
      'EffectNeedsReview',
      'EffectUnsettled',
      'DeadLetters',
      'FailedTasks',
      'NoSuccess',
      // Its schedule alone in its group: Scheduler's per-group metrics are this job's.
      'TargetErrorCount',
      'TargetErrorThrottledCount',
      'InvocationDroppedCount',
    ]);
  });

  it('sends failed tasks (non-zero exit of "job", or never started) of its family on its cluster to its failed-task queue', () => {
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ecs'],
        'detail-type': ['ECS Task State Change'],
        detail: {
          clusterArn: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^EcsCluster'), 'Arn'] }],
          lastStatus: ['STOPPED'],
          taskDefinitionArn: [{ prefix: Match.anyValue() }],
          $or: [
            { containers: { name: ['job'], exitCode: [{ 'anything-but': 0 }] } },
            { stopCode: ['TaskFailedToStart'] },
          ],
        },
      },
      Targets: [{ Arn: { 'Fn::GetAtt': [logicalId(synth, job().failedTasks), 'Arn'] }, Id: 'Target0' }],
    });
  });

  it('is caught up by the sweeper with RunTask: its CRONFENCE_JOBS entry names the placement, its role may run only that task', () => {
    const sweeper = synth.stack.cronfence.sweeper;
    if (!sweeper) throw new Error('no sweeper');
    const fn = synth.template.findResources('AWS::Lambda::Function', {
      Properties: { Description: Match.stringLikeRegexp('^cronfence sweeper') },
    });
    const env = (
      Object.values(fn)[0] as { Properties: { Environment: { Variables: Record<string, unknown> } } }
    ).Properties.Environment.Variables.CRONFENCE_JOBS;
    const text = JSON.stringify(synth.stack.resolve(env));
    for (const part of [
      '\\"name\\":\\"merchant-settlement\\"',
      '\\"ecs\\":{\\"cluster\\":',
      '\\"assignPublicIp\\":true',
      '\\"spot\\":false',
    ])
      expect(text).toContain(part);
    synth.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: logicalId(synth, sweeper.role) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'ecs:RunTask',
            Effect: 'Allow',
            Resource: { Ref: logicalId(synth, job().taskDefinition) },
            Condition: {
              ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [Match.stringLikeRegexp('^EcsCluster'), 'Arn'] } },
            },
          },
          {
            Action: 'iam:PassRole',
            Effect: 'Allow',
            Resource: [
              { 'Fn::GetAtt': [logicalId(synth, job().taskRole), 'Arn'] },
              { 'Fn::GetAtt': [Match.stringLikeRegexp('TaskExecutionRole'), 'Arn'] },
            ],
            Condition: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
          },
        ]),
      },
    });
    const statements = Object.values(
      synth.template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: logicalId(synth, sweeper.role) }] },
      }),
    ).flatMap(
      (p) =>
        (p.Properties as { PolicyDocument: { Statement: { Action: unknown }[] } }).PolicyDocument.Statement,
    );
    expect(statements.map((s) => s.Action)).not.toContainEqual('lambda:InvokeFunction');
    expect(SWEEPER_NAME).toBe('cronfence-sweeper');
  });
});

describe('ECS job options', () => {
  it('runs on Fargate Spot with spot: true (capacity provider strategy, no launch type)', () => {
    const spot = synthesize(
      ecsProps(
        ecsEntries(['daily-report'], { spot: true, cpu: 1024, memoryLimitMiB: 2048, stopTimeoutSeconds: 30 }),
      ),
      { bundle: false },
    );
    spot.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Target: {
        EcsParameters: Match.objectLike({
          CapacityProviderStrategy: [{ CapacityProvider: 'FARGATE_SPOT', Weight: 1 }],
          LaunchType: Match.absent(),
        }),
      },
    });
    spot.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: '1024',
      Memory: '2048',
      ContainerDefinitions: [Match.objectLike({ StopTimeout: 30 })],
    });
  });

  it.each([
    [{ stopTimeoutSeconds: 121 }, 'stopTimeoutSeconds = 121: Fargate takes a whole number of seconds 2-120'],
    [{ stopTimeoutSeconds: 1 }, 'stopTimeoutSeconds = 1: Fargate takes a whole number of seconds 2-120'],
  ])('refuses %j at synth', (ecs, message) => {
    expect(synthError(ecsProps(ecsEntries(['daily-report'], ecs)))?.message).toBe(
      `cronfence: job "daily-report" at CronfenceTest/Default/daily-report: ${message}`,
    );
  });

  it.each([
    ['CRONFENCE_OCCURRENCE', 'cronfence sets it'],
    ['CRONFENCE_JOB', 'cronfence sets it'],
    ['CRONFENCE_STOP_TIMEOUT_SECONDS', 'cronfence sets it'],
    ['SETTLEMENTS_TABLE', 'cronfence sets it'],
    ['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'ECS sets it in every task'],
    ['ECS_CONTAINER_METADATA_URI_V4', 'ECS sets it in every task'],
  ])('refuses the job variable %s at synth (%s)', (variable, owner) => {
    const [entry] = ecsEntries(['merchant-settlement']);
    expect(
      synthError(ecsProps([{ ...(entry as JobEntry), environment: { [variable]: 'x' } }]))?.message,
    ).toBe(
      `cronfence: job "merchant-settlement" at CronfenceTest/Default/merchant-settlement: environment.${variable} is refused: ${owner}; choose another name`,
    );
  });

  it('refuses ecs options on a Lambda job', () => {
    const [lambdaJob] = ecsEntries(['daily-report']).map((e) => ({
      ...e,
      definition: { ...e.definition, runtime: undefined },
    }));
    expect(synthError(ecsProps([lambdaJob as never]))?.message).toBe(
      `cronfence: job "daily-report" (functions/daily-report.ts): ecs options are for a job with runtime: 'ecs'`,
    );
  });
});
