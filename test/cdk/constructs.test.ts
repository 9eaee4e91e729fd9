/** cdk: the reusable constructs on their own — table grants and alarm windows (no bundling). */
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { noSuccessWindow } from '../../cdk/constructs/alarms.js';
import { jobLeadingKeys, LibraryTable } from '../../cdk/constructs/library-table.js';

function tableWithRoles() {
  const stack = new Stack(new App(), 'Grants');
  const library = new LibraryTable(stack, 'Library');
  const role = (id: string) =>
    new Role(stack, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  library.grantJob(role('Job'), 'daily-report', { shards: false, effects: false });
  library.grantJob(role('Sharded'), 'settle', { shards: true, effects: true });
  library.grantSweeper(role('Sweeper'), [
    { name: 'a', shards: false },
    { name: 'b', shards: true },
  ]);
  library.grantReadRuns(role('Reader'));
  const statements = (roleId: string) => {
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy', {
      Properties: {
        Roles: [{ Ref: stack.getLogicalId(stack.node.findChild(roleId).node.defaultChild as CfnElement) }],
      },
    });
    return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
  };
  return { statements };
}

describe('LibraryTable grants', () => {
  const { statements } = tableWithRoles();

  const table = { 'Fn::GetAtt': [expect.stringMatching(/^LibrarySchemaTable/), 'Arn'] };
  const keys = (...k: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': k } });

  it('scope a plain job to JOB#<job>: UpdateItem on its lease, PutItem and Query (the late-copy check) for its run records, no GetItem', () => {
    expect(statements('Job')).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: table,
        Condition: keys('JOB#daily-report'),
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:PutItem', 'dynamodb:Query'],
        Resource: table,
        Condition: keys('JOB#daily-report'),
      },
    ]);
  });

  it('add shard leases (JOB#<job>#*) and effect records (EFFECT#<job>#*) only for a job that uses them', () => {
    expect(statements('Sharded')).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem'],
        Resource: table,
        Condition: keys('JOB#settle', 'JOB#settle#*'),
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:PutItem', 'dynamodb:Query'],
        Resource: table,
        Condition: keys('JOB#settle'),
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: table,
        Condition: keys('EFFECT#settle#*'),
      },
    ]);
  });

  it('let the sweeper read leases (shard leases of sharded jobs) and query runs of its jobs, and put run records (abandoned marks, catch-up-limit skips)', () => {
    expect(statements('Sweeper')).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:Query'],
        Resource: table,
        Condition: keys('JOB#a', 'JOB#b'),
      },
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: table, Condition: keys('JOB#b#*') },
      { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: table, Condition: keys('JOB#a', 'JOB#b') },
    ]);
  });

  it('let a reader query run records and the problems index, read-only', () => {
    const [statement] = statements('Reader');
    expect(statement.Action).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(JSON.stringify(statement.Resource)).toContain('/index/problems');
    expect(statement.Condition).toBeUndefined();
  });

  it('never let one job name pattern match another job', () => {
    const patterns = jobLeadingKeys('daily', { shards: true, effects: true }).map(
      (p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`),
    );
    for (const key of ['JOB#daily-report', 'JOB#dailyx', 'EFFECT#daily-report#k', 'EFFECT#dailyk']) {
      expect(
        patterns.some((p) => p.test(key)),
        key,
      ).toBe(false);
    }
    for (const key of ['JOB#daily', 'JOB#daily#3', 'EFFECT#daily#payout#M1#2026-03-29']) {
      expect(
        patterns.some((p) => p.test(key)),
        key,
      ).toBe(true);
    }
  });
});

describe('the "no successful run within two periods" window', () => {
  it.each([
    [
      'every 5 minutes (one window of at least a sweeper period)',
      300,
      { periodSeconds: 900, evaluationPeriods: 1, capped: false },
    ],
    [
      'every 10.5 minutes (rounded to whole minutes)',
      630,
      { periodSeconds: 1260, evaluationPeriods: 1, capped: false },
    ],
    ['hourly', 3600, { periodSeconds: 7200, evaluationPeriods: 1, capped: false }],
    ['every 12 hours', 43_200, { periodSeconds: 86_400, evaluationPeriods: 1, capped: false }],
    ['daily', 86_400, { periodSeconds: 86_400, evaluationPeriods: 2, capped: false }],
    ['every 3 days (weekdays)', 3 * 86_400, { periodSeconds: 86_400, evaluationPeriods: 6, capped: false }],
    [
      'weekly (capped at CloudWatch’s 7 days)',
      7 * 86_400,
      { periodSeconds: 86_400, evaluationPeriods: 7, capped: true },
    ],
  ])('%s', (_what, period, expected) => {
    const window = noSuccessWindow(period);
    expect(window).toEqual(expected);
    const total = window.periodSeconds * window.evaluationPeriods;
    expect(total).toBeLessThanOrEqual(window.periodSeconds < 3600 ? 86_400 : 7 * 86_400);
  });
});
