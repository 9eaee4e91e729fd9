import { Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';

/**
 * The role EventBridge Scheduler assumes for the schedules of one group: it trusts only Scheduler acting
 * for this stack's account (`aws:SourceAccount`) and for `group` (`aws:SourceArn` = the group's ARN).
 * Scheduler presents the schedule GROUP ARN as `aws:SourceArn`, never a schedule's own ARN: the
 * EventBridge Scheduler User Guide, "Confused deputy prevention", says to use the group ARN and not to
 * scope it to one schedule (a condition on `…:schedule/<group>/<name>` denies every AssumeRole). The
 * caller adds what the role may do (invoke the target, send to the dead-letter queue).
 * @param scope the construct the role is created in, with the id `Role`.
 * @param description the role's IAM description.
 * @example const role = schedulerRole(this, group, 'EventBridge Scheduler: invoke daily-report');
 */
export function schedulerRole(scope: Construct, group: IScheduleGroup, description: string): Role {
  return new Role(scope, 'Role', {
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: {
          'aws:SourceAccount': Stack.of(scope).account,
          'aws:SourceArn': group.scheduleGroupArn,
        },
      },
    }),
    description,
  });
}
