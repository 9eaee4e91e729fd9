/** cdk: the example app's stack, synthesized once: the properties cronfence owns, and cdk-nag. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CfnElement, Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sweeper } from '../../cdk/constructs/sweeper.js';
import { type Synthesized, synthesize } from './support.js';

let synth: Synthesized;
const JOBS = [
  {
    name: 'daily-report',
    schedule: 'cron(30 2 * * ? *)',
    zone: 'Europe/Berlin',
    timeout: 120,
    table: 'REPORTS_TABLE',
  },
  {
    name: 'merchant-settlement',
    schedule: 'cron(0 1 * * ? *)',
    zone: 'Asia/Shanghai',
    timeout: 300,
    table: 'SETTLEMENTS_TABLE',
  },
] as const;

beforeAll(() => {
  synth = synthesize();
}, 120_000);

/** The stack's sweeper (always present in the example app). */
function sweeper(): Sweeper {
  if (!synth.stack.sweeper) throw new Error('the example stack has no sweeper');
  return synth.stack.sweeper;
}

/** The cloud-assembly directory holding a function's bundled asset. */
function assetDir(owner: { function: IConstruct }): string {
  const code = synth.stack.resolve((owner.function.node.defaultChild as CfnFunction).code) as {
    s3Key: string;
  };
  return join(synth.app.synth().directory, `asset.${code.s3Key.replace(/\.zip$/, '')}`);
}

/** The logical id of a construct's CloudFormation resource. */
const ref = (construct: IConstruct) => synth.stack.getLogicalId(construct.node.defaultChild as CfnElement);

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

  it('has the sparse problems GSI keyed by problem and problemAtMs', () => {
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
      ],
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
          NODE_OPTIONS: '--enable-source-maps',
        }),
      },
      LoggingConfig: { LogGroup: { Ref: Match.anyValue() } },
    });
  });

  it('may touch only its own lease, run and effect items in the library table', () => {
    synth.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Library'), 'Arn'] },
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': [`JOB#${job.name}`, `JOB#${job.name}#*`, `EFFECT#${job.name}#*`],
              },
            },
          },
        ]),
      },
    });
  });

  it('retries async invocations twice and sends what still fails to its DLQ', () => {
    const fn = synth.stack.jobs.find((j) => j.definition.name === job.name);
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

  it('has six alarms (failed, stale, abandoned, needs-review, DLQ, no success in two periods)', () => {
    const alarms = synth.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmDescription: Match.stringLikeRegexp(`job "${job.name}"`) },
    });
    expect(Object.keys(alarms)).toHaveLength(6);
    const metricNames = Object.values(alarms).map((a) => a.Properties.MetricName);
    expect(metricNames.sort()).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'EffectNeedsReview',
      'RunAbandoned',
      'RunFailed',
      'RunStale',
      'RunSucceeded',
    ]);
  });

  it('alarms when no run succeeded within two daily periods, treating missing data as breaching', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp(`job "${job.name}": no successful run`),
      Namespace: 'cronfence',
      MetricName: 'RunSucceeded',
      Dimensions: Match.arrayWith([{ Name: 'job', Value: job.name }]),
      Period: 86400,
      EvaluationPeriods: 2,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlarmsTopic') }],
    });
  });
});

describe('the schedule roles', () => {
  it('may each invoke exactly one function (no version wildcard) and write to its DLQ', () => {
    const policies = synth.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp('ScheduleRole') }] },
    });
    expect(Object.keys(policies)).toHaveLength(3);
    for (const policy of Object.values(policies)) {
      const statements = policy.Properties.PolicyDocument.Statement as {
        Action: string;
        Resource: unknown;
      }[];
      expect(statements.map((s) => s.Action)).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
      expect(statements[0]?.Resource).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    }
  });

  it('trust only EventBridge Scheduler acting for this account and this schedule', () => {
    synth.template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: {
              StringEquals: {
                'aws:SourceAccount': { Ref: 'AWS::AccountId' },
                'aws:SourceArn': {
                  'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/daily-report$')])],
                },
              },
            },
          },
        ],
      },
    });
  });
});

describe('the sweeper', () => {
  it('runs on its own schedule and is told the job functions through CRONFENCE_JOBS', () => {
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'cronfence-sweeper',
      ScheduleExpression: 'rate(15 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
    });
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('sweeper'),
      Environment: { Variables: Match.objectLike({ CRONFENCE_JOBS: { 'Fn::Join': Match.anyValue() } }) },
    });
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
      synth.stack.jobs.map((j) => ({ 'Fn::GetAtt': [ref(j.function), 'Arn'] })),
    );
    const dynamo = statements.filter((s) => String(s.Action).includes('dynamodb:'));
    expect(dynamo).toEqual([
      expect.objectContaining({
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [
              'JOB#daily-report',
              'JOB#daily-report#*',
              'JOB#merchant-settlement',
              'JOB#merchant-settlement#*',
            ],
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
    expect(alarms.length).toBe(6 * 2 + 2);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });
});

describe('the bundled assets', () => {
  it('are minified ESM (index.mjs exporting handler) with a source map, built by local esbuild', () => {
    for (const job of [...synth.stack.jobs, sweeper()]) {
      const dir = assetDir(job);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      const source = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(source).toMatch(/^import\{createRequire\}from'node:module'/);
      expect(source).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(source).not.toMatch(/module\.exports/);
      expect(source.trimEnd()).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map$/);
      // Minified: newlines survive only inside template literals (a tiny fixture is too small to tell).
      if (source.length > 10_000) expect(source.length / source.split('\n').length).toBeGreaterThan(1000);
    }
  });

  it.each([
    ['daily-report', 'function daily-report'],
    ['merchant-settlement', 'function merchant-settlement'],
    ['cronfence-sweeper', 'function undefined'],
  ])('load as ESM on this Node and export the %s handler', (name, expected) => {
    const owner =
      name === 'cronfence-sweeper' ? sweeper() : synth.stack.jobs.find((j) => j.definition.name === name);
    if (!owner) throw new Error(`no function ${name}`);
    const url = pathToFileURL(join(assetDir(owner), 'index.mjs')).href;
    const script = `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler, m.handler.job?.name);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, CRONFENCE_TABLE: 'cronfence', AWS_REGION: 'eu-central-1' },
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(expected);
  });
});

function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id,
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('reports zero unacknowledged findings', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    const findings = report.violations.map(
      (v) =>
        `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('has a reason of at least one sentence for every acknowledgement', () => {
    const acks = acknowledgements(synth.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
  });

  it('acknowledges only the rules cronfence has decided on', () => {
    const ids = new Set(acknowledgements(synth.stack).map((a) => a.id.replace(/^annotation::/i, '')));
    expect([...ids].sort()).toEqual(['AwsSolutions-SNS2', 'AwsSolutions-SQS3']);
  });
});
