import { settlementsTable } from '../../../functions/tables.js';
import { libraryTable } from '../../../lib/store/schema.js';
import type { Deployment } from './deployment.js';
import type { IamCheck } from './requests.js';
import { ACCOUNT, REGION } from './template.js';

/**
 * Negative controls of the IAM test: authorizations that must be DENIED — a job writing another
 * job's lease, table or effects, a job without effects running an effect transaction, a read where no
 * run path reads, the sweeper updating a lease, a sharded job reaching a job whose name it prefixes,
 * a schedule role invoking another function, Scheduler acting for another group or account.
 */
export function negativeControls(
  example: Deployment,
  shardedStack: Deployment,
  shardedJob: string,
): IamCheck[] {
  const lib = example.t.attribute(
    [...example.tables].find(([, s]) => s === libraryTable)?.[0] as string,
    'Arn',
  );
  const settle = example.lookup.arnOf(settlementsTable.defaultName);
  const daily = example.fn('daily-report').role;
  const settlement = example.fn('merchant-settlement').role;
  const keys = (k: string) => ({ 'dynamodb:LeadingKeys': [k] });
  const scheduleRole = (job: string) => {
    const [, r] =
      example.t.ofType('AWS::Scheduler::Schedule').find(([, s]) => s.Properties?.Name === job) ?? [];
    return example.t.roleOf((r?.Properties?.Target as { RoleArn?: unknown } | undefined)?.RoleArn);
  };
  const dailySchedule = scheduleRole('daily-report');
  const groupArn = `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/`;
  const shardedRole = shardedStack.fn(shardedJob).role;
  const shardedLib = shardedStack.lookup.arnOf(libraryTable.defaultName);
  return [
    {
      role: daily,
      action: 'dynamodb:UpdateItem',
      resource: lib,
      context: keys('JOB#merchant-settlement'),
      what: "daily-report writes merchant-settlement's lease",
    },
    {
      role: settlement,
      action: 'dynamodb:UpdateItem',
      resource: lib,
      context: keys('JOB#daily-report'),
      what: "merchant-settlement writes daily-report's lease",
    },
    {
      role: daily,
      action: 'dynamodb:PutItem',
      resource: settle,
      context: keys('M001'),
      what: 'daily-report writes the settlements table',
    },
    {
      role: daily,
      action: 'dynamodb:ConditionCheckItem',
      resource: lib,
      // its fencedPut reconciliation checks leases of its own job only (JOB#daily-report, JOB#daily-report#*)
      context: { ...keys('JOB#merchant-settlement'), 'dynamodb:EnclosingOperation': 'TransactWriteItems' },
      what: "daily-report checks merchant-settlement's lease in a transaction",
    },
    {
      role: daily,
      action: 'dynamodb:PutItem',
      resource: lib,
      context: { ...keys('EFFECT#daily-report#x'), 'dynamodb:EnclosingOperation': 'TransactWriteItems' },
      what: 'daily-report (no effects) writes an effect record',
    },
    {
      role: settlement,
      action: 'dynamodb:GetItem',
      resource: lib,
      context: keys('EFFECT#merchant-settlement#payout#M001#2026-01-14'),
      what: 'merchant-settlement reads an effect record (no run path reads)',
    },
    {
      role: settlement,
      action: 'dynamodb:PutItem',
      resource: lib,
      context: keys('EFFECT#daily-report#x'),
      what: "merchant-settlement writes daily-report's effects",
    },
    {
      role: example.sweeper.role,
      action: 'dynamodb:UpdateItem',
      resource: lib,
      context: keys('JOB#daily-report'),
      what: 'the sweeper updates a lease',
    },
    {
      role: shardedRole,
      action: 'dynamodb:UpdateItem',
      resource: shardedLib,
      context: keys('JOB#sharded-settlement-x'),
      what: 'the sharded job writes a lease of a job whose name it prefixes',
    },
    {
      role: dailySchedule.logicalId,
      action: 'lambda:InvokeFunction',
      resource: example.fn('merchant-settlement').arn,
      context: {},
      what: "daily-report's schedule role invokes merchant-settlement",
    },
    {
      role: dailySchedule.logicalId,
      assumedBy: 'scheduler.amazonaws.com',
      action: 'sts:AssumeRole',
      resource: dailySchedule.arn,
      context: { 'aws:SourceArn': `${groupArn}other-group`, 'aws:SourceAccount': ACCOUNT },
      what: 'Scheduler assumes a schedule role for another schedule group',
    },
    {
      role: dailySchedule.logicalId,
      assumedBy: 'scheduler.amazonaws.com',
      action: 'sts:AssumeRole',
      resource: dailySchedule.arn,
      context: {
        'aws:SourceArn': String(
          example.t.resolve({
            'Fn::GetAtt': [example.t.ofType('AWS::Scheduler::ScheduleGroup')[0]?.[0], 'Arn'],
          }),
        ),
        'aws:SourceAccount': '444455556666',
      },
      what: 'Scheduler acting for another account',
    },
  ];
}
