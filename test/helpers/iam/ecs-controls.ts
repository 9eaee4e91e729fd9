/**
 * Negative controls of the ECS IAM test: authorizations that must be DENIED — a task writing another
 * job's lease, run records or table; a schedule running another job's task or passing another job's
 * roles (or a role that is no task role); the sweeper starting a task on another cluster or passing a
 * task role to Lambda; the task role assumed by a task of another account, or by Lambda.
 */
import { reportsTable, settlementsTable } from '../../../functions/tables.js';
import { libraryTable } from '../../../lib/store/schema.js';
import type { Deployment } from './deployment.js';
import { ecsTask } from './ecs.js';
import type { IamCheck } from './requests.js';
import { ACCOUNT, REGION } from './template.js';

/** The twelve controls of the example app deployed as ECS jobs. */
export function ecsNegativeControls(d: Deployment): IamCheck[] {
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
  return [
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
}
