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
  library.grantJob(role('Job'), 'daily-report');
  library.grantSweeper(role('Sweeper'), ['a', 'b']);
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

  it('scope a job to JOB#<job>, its shards and EFFECT#<job>#* with condition-check/get/put/update only', () => {
    expect(statements('Job')).toEqual([
      {
        Effect: 'Allow',
        Action: [
          'dynamodb:ConditionCheckItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^LibrarySchemaTable/), 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': ['JOB#daily-report', 'JOB#daily-report#*', 'EFFECT#daily-report#*'],
          },
        },
      },
    ]);
  });

  it('let the sweeper query and record runs of its jobs, never effects', () => {
    expect(statements('Sweeper')).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#a', 'JOB#a#*', 'JOB#b', 'JOB#b#*'] },
        },
      }),
    ]);
  });

  it('let a reader query run records and the problems index, read-only', () => {
    const [statement] = statements('Reader');
    expect(statement.Action).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(JSON.stringify(statement.Resource)).toContain('/index/problems');
    expect(statement.Condition).toBeUndefined();
  });

  it('never let one job name pattern match another job', () => {
    const patterns = jobLeadingKeys('daily', { effects: true }).map(
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
    ['every 5 minutes', 300, { periodSeconds: 300, evaluationPeriods: 2, capped: false }],
    [
      'every 90 seconds (rounded to whole minutes)',
      90,
      { periodSeconds: 120, evaluationPeriods: 2, capped: false },
    ],
    ['hourly', 3600, { periodSeconds: 3600, evaluationPeriods: 2, capped: false }],
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
