/** cdk: the example app's stack, synthesized once, asserting the properties cronfence owns. */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../../functions/index.js';
import { EFFECT_UNSETTLED_AFTER_MS } from '../../lib/core/effects.js';
import { assetDirOf, logicalId, type Synthesized, sweeperOf, synthesize } from './support.js';

let synth: Synthesized;
/** What the example jobs' resources must carry (counts come from the registry, functions/index.ts). */
const JOBS = [
  {
    name: 'daily-report',
    schedule: 'cron(30 2 * * ? *)',
    zone: 'Europe/Berlin',
    timeout: 120,
    table: 'REPORTS_TABLE',
    other: 'SETTLEMENTS_TABLE',
    tableActions: 'dynamodb:UpdateItem',
    lease: ['dynamodb:UpdateItem'],
    effects: false,
    /** fencedPut writes: the cross-lease reconciliation checks the job's leases, shard leases too. */
    crossLeaseCheck: true,
  },
  {
    name: 'merchant-settlement',
    schedule: 'cron(0 1 * * ? *)',
    zone: 'Asia/Shanghai',
    timeout: 300,
    table: 'SETTLEMENTS_TABLE',
    other: 'REPORTS_TABLE',
    tableActions: 'dynamodb:PutItem',
    lease: ['dynamodb:UpdateItem'],
    effects: true,
    /** Effects: the move of an effect last written under another lease checks that lease (a reshard). */
    crossLeaseCheck: true,
  },
] as const;

beforeAll(() => {
  synth = synthesize();
}, 120_000);

const sweeper = () => sweeperOf(synth);
const ref = (construct: IConstruct) => logicalId(synth, construct);

describe('the library table', () => {
  it('is on-demand with pk/sk from the schema module, TTL on expiresAt, PITR and deletion protection', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it('is retained when the stack is deleted', () => {
    const tables = synth.template.findResources('AWS::DynamoDB::Table');
    expect(Object.values(tables).map((t) => [t.DeletionPolicy, t.UpdateReplacePolicy])).toEqual(
      Object.values(tables).map(() => ['Retain', 'Retain']),
    );
  });

  it('has the sparse problems GSIs: by problemAtMs (the CLI) and by problemAt, an ISO string (the console)', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'problems',
          KeySchema: [
            { AttributeName: 'problem', KeyType: 'HASH' },
            { AttributeName: 'problemAtMs', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'problemsByTime',
          KeySchema: [
            { AttributeName: 'problem', KeyType: 'HASH' },
            { AttributeName: 'problemAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      AttributeDefinitions: Match.arrayWith([{ AttributeName: 'problemAt', AttributeType: 'S' }]),
    });
  });

  it('creates the application tables from their schemas, without TTL', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'merchantId', KeyType: 'HASH' },
        { AttributeName: 'settlementDate', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: Match.absent(),
      DeletionProtectionEnabled: true,
    });
  });
});

describe.each(JOBS)('job $name', (job) => {
  it('has a schedule with its expression and zone, flexible window OFF, retries and a DLQ', () => {
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: job.name,
      ScheduleExpression: job.schedule,
      ScheduleExpressionTimezone: job.zone,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'Arn'] } },
      },
    });
  });

  it('sends exactly the Input the runtime parses, with the Scheduler context attributes', () => {
    const schedules = synth.template.findResources('AWS::Scheduler::Schedule', {
      Properties: { Name: job.name },
    });
    const [schedule] = Object.values(schedules);
    expect(schedule?.Properties.Target.Input).toBe(
      `{"job":"${job.name}","scheduledTime":"<aws.scheduler.scheduled-time>",` +
        '"scheduleArn":"<aws.scheduler.schedule-arn>","executionId":"<aws.scheduler.execution-id>",' +
        '"attemptNumber":"<aws.scheduler.attempt-number>"}',
    );
  });

  it('runs on Node 24, arm64, with the job timeout and table names in the environment', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(`job ${job.name}:`),
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: job.timeout,
      Handler: 'index.handler',
      Environment: {
        Variables: Match.objectLike({
          CRONFENCE_TABLE: { Ref: Match.stringLikeRegexp('^Library') },
          [job.table]: { Ref: Match.anyValue() },
          [job.other]: Match.absent(),
          NODE_OPTIONS: '--enable-source-maps',
        }),
      },
      LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
    });
  });

  const jobStatements = (name: string) => {
    const j = synth.stack.cronfence.jobs.find((x) => x.definition.name === name);
    if (!j) throw new Error(`no job ${name}`);
    const role = synth.stack.resolve(j.role.roleName);
    return Object.values(synth.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [role] } }))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st) => JSON.stringify(st.Action).includes('dynamodb:')) as Record<string, unknown>[];
  };

  it('may touch only its own lease, run (and effect) items in the library table, with no GetItem', () => {
    const keys = (...k: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': k } });
    const library = { 'Fn::GetAtt': [expect.stringMatching(/^Library/), 'Arn'] };
    const lease = job.lease.length === 1 ? job.lease[0] : job.lease;
    expect(jobStatements(job.name).filter((st) => JSON.stringify(st.Resource).includes('Library'))).toEqual([
      { Effect: 'Allow', Action: lease, Resource: library, Condition: keys(`JOB#${job.name}`) },
      ...(job.crossLeaseCheck
        ? [
            {
              Effect: 'Allow',
              Action: 'dynamodb:ConditionCheckItem',
              Resource: library,
              Condition: keys(`JOB#${job.name}`, `JOB#${job.name}#*`),
            },
          ]
        : []),
      {
        Effect: 'Allow',
        Action: ['dynamodb:PutItem', 'dynamodb:Query'],
        Resource: library,
        Condition: keys(`JOB#${job.name}`),
      },
      ...(job.effects
        ? [
            {
              Effect: 'Allow',
              Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
              Resource: library,
              Condition: keys(`EFFECT#${job.name}#*`),
            },
          ]
        : []),
    ]);
  });

  it('may write only its own application table, with only the action its ctx write sends', () => {
    expect(jobStatements(job.name).filter((st) => !JSON.stringify(st.Resource).includes('Library'))).toEqual([
      {
        Effect: 'Allow',
        Action: job.tableActions,
        Resource: {
          'Fn::GetAtt': [
            expect.stringMatching(
              `^Table${job.table === 'REPORTS_TABLE' ? 'cronfenceexamplereports' : 'cronfenceexamplesettlements'}`,
            ),
            'Arn',
          ],
        },
      },
    ]);
  });

  it('may send only SendMessage to its DLQ (no GetQueueAttributes/GetQueueUrl)', () => {
    const j = synth.stack.cronfence.jobs.find((x) => x.definition.name === job.name);
    if (!j) throw new Error(`no job ${job.name}`);
    const role = synth.stack.resolve(j.role.roleName);
    const sqs = Object.values(
      synth.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [role] } }),
    )
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st) => JSON.stringify(st.Action).includes('sqs:'));
    expect(sqs).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [ref(j.deadLetterQueue), 'Arn'] },
      },
    ]);
  });

  it('retries async invocations twice and sends what still fails to its DLQ', () => {
    const fn = synth.stack.cronfence.jobs.find((j) => j.definition.name === job.name);
    if (!fn) throw new Error(`no job ${job.name}`);
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ref(fn.function) },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 21600,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [ref(fn.deadLetterQueue), 'Arn'] } },
      },
    });
  });

  it('has its alarms by explicit name: every problem metric, effect alarms only with effects, DLQ, Lambda queue, no success', () => {
    const alarms = synth.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmName: Match.stringLikeRegexp(`^CronfenceTest-cronfence-${job.name}-`) },
    });
    const names = Object.values(alarms).map((a) =>
      String(a.Properties.AlarmName).slice(`CronfenceTest-cronfence-${job.name}-`.length),
    );
    expect(names.sort()).toEqual(
      [
        'AsyncEventAge',
        'AsyncEventsDropped',
        'DeadLetters',
        ...(job.effects ? ['EffectNeedsReview', 'EffectUnsettled'] : []),
        'NoSuccess',
        'RunAbandoned',
        'RunFailed',
        'RunStale',
        'SlotNotRun',
        'SweepFailed',
        'Throttles',
        // Scheduler's metrics for the job's schedule, alone in its own group.
        'TargetErrorCount',
        'TargetErrorThrottledCount',
        'InvocationDroppedCount',
      ].sort(),
    );
  });

  it('alarms on an unsettled effect (a job with effects only) over the period `cronfence effects --status unsettled` lists from', () => {
    expect(EFFECT_UNSETTLED_AFTER_MS).toBe(300_000);
    if (!job.effects) {
      const unsettled = synth.template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { AlarmName: `CronfenceTest-cronfence-${job.name}-EffectUnsettled` },
      });
      expect(Object.keys(unsettled)).toEqual([]);
      return;
    }
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `CronfenceTest-cronfence-${job.name}-EffectUnsettled`,
      MetricName: 'EffectUnsettled',
      Period: EFFECT_UNSETTLED_AFTER_MS / 1000,
      Threshold: 1,
      EvaluationPeriods: 1,
    });
  });

  it('alarms when no run succeeded within two daily periods, not on missing data (nothing due yet after the first deploy)', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `CronfenceTest-cronfence-${job.name}-NoSuccess`,
      Namespace: 'cronfence',
      MetricName: 'RunSucceeded',
      Dimensions: Match.arrayWith([{ Name: 'job', Value: job.name }]),
      Period: 86400,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmsTopic') }],
    });
  });
});

describe('the schedule roles', () => {
  it('may each invoke exactly one function (no version wildcard) and write to its DLQ', () => {
    const policies = synth.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp('ScheduleRole') }] },
    });
    // One schedule per registered job, plus the sweeper's.
    expect(Object.keys(policies)).toHaveLength(jobs.length + 1);
    for (const policy of Object.values(policies)) {
      const statements = policy.Properties.PolicyDocument.Statement as {
        Action: string;
        Resource: unknown;
      }[];
      expect(statements.map((s) => s.Action)).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
      expect(statements[0]?.Resource).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    }
  });

  it('trust only EventBridge Scheduler acting for this account and the schedule GROUP (not a schedule ARN)', () => {
    const roles = synth.template.findResources('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'scheduler.amazonaws.com' } }] },
      },
    });
    expect(Object.keys(roles)).toHaveLength(3);
    // Each job's schedule is alone in its own group (and the sweeper's in the stack's): each role
    // trusts Scheduler for that one group.
    const groups = [
      ...[...synth.stack.cronfence.jobScheduleGroups.values()],
      synth.stack.cronfence.scheduleGroup,
    ].map((g) => ({ 'Fn::GetAtt': [ref(g), 'Arn'] }));
    expect(Object.values(roles).map((role) => role.Properties.AssumeRolePolicyDocument.Statement)).toEqual(
      groups.map((group) => [
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': group },
          },
        },
      ]),
    );
  });
});

describe('the sweeper', () => {
  it('runs on its own schedule and is told the jobs through CRONFENCE_JOBS, their definitions compiled in', () => {
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'cronfence-sweeper',
      ScheduleExpression: 'rate(15 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
    });
    // Functions named cronfence-<job> need no ARN (the sweeper invokes them by name): a few bytes a
    // job against Lambda's 4 KB environment limit.
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sweeper'),
      Environment: {
        Variables: Match.objectLike({
          CRONFENCE_JOBS:
            '[{"name":"daily-report","functionArn":"CronfenceTest-daily-report"},{"name":"merchant-settlement","functionArn":"CronfenceTest-merchant-settlement"}]',
        }),
      },
    });
    const bundle = readFileSync(join(assetDirOf(synth, sweeper()), 'index.mjs'), 'utf8');
    const compiled = /compiledDefinitions|"(W3[A-Za-z0-9+/=]{100,})"/g;
    const encoded = [...bundle.matchAll(compiled)].map((m) => m[1]).filter(Boolean);
    expect(encoded).toHaveLength(1);
    expect(JSON.parse(Buffer.from(encoded[0] as string, 'base64').toString('utf8'))).toEqual(
      synth.stack.cronfence.jobs.map((j) => j.definition),
    );
  });

  it('may invoke the job functions and nothing else, and read/record runs of those jobs only', () => {
    const role = synth.stack.resolve(sweeper().role.roleName);
    const policies = Object.values(
      synth.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [role] } }),
    );
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement) as {
      Action: string | string[];
      Resource: unknown;
      Condition?: unknown;
    }[];
    const invoke = statements.filter((s) => s.Action === 'lambda:InvokeFunction');
    expect(invoke).toHaveLength(1);
    expect(invoke[0]?.Resource).toEqual(
      synth.stack.cronfence.jobs.map((j) => ({ 'Fn::GetAtt': [ref(j.function), 'Arn'] })),
    );
    const dynamo = statements.filter((s) => String(s.Action).includes('dynamodb:'));
    // Every job may get an abandoned mark from the sweeper (an expired open claim), so PutItem on each.
    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': jobs.map((j) => `JOB#${j.definition.name}`),
          },
        },
      }),
      expect.objectContaining({
        Action: 'dynamodb:PutItem',
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': jobs.map((j) => `JOB#${j.definition.name}`),
          },
        },
      }),
    ]);
  });
});

describe('observability', () => {
  it('has one SNS topic for every alarm and a dashboard', () => {
    synth.template.resourceCountIs('AWS::SNS::Topic', 1);
    synth.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'));
    // Per job: 5 problem metrics, DLQ, throttles, event age, dropped events, no success, and its
    // schedule's target errors, target throttles and dropped invocations (13), and two effect alarms
    // for a job with effects; for the sweeper: errors, DLQ and the same three for its schedule.
    const withEffects = JOBS.filter((j) => j.effects).length;
    expect(alarms.length).toBe(13 * jobs.length + 2 * withEffects + 2 + 3);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });
});
