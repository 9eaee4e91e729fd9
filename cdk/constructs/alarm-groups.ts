/** The alarms of a schedule group (used by `CronfenceAlarms`). */
import { Duration } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IScheduleGroup, Schedule } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { JobDefinition } from '../../lib/core/job-definition.js';
import type { AlarmKit } from './ecs-alarms.js';

/** Scheduler's own view of a group: invocations throttled by the target, and invocations dropped. */
export function watchScheduleGroup(
  kit: AlarmKit,
  group: IScheduleGroup,
  jobs: readonly { readonly definition: JobDefinition; readonly schedule: Schedule }[],
): Alarm[] {
  const scope = new Construct(kit.parent, `Schedules-${jobs.length}-${group.node.id}`);
  const names = jobs.filter((j) => j.schedule.scheduleGroup === group).map((j) => j.definition.name);
  const about = (what: string) => `cronfence schedules (${names.join(', ')}): ${what}.`;
  const five = { period: Duration.minutes(5), statistic: 'Sum' };
  return [
    kit.atLeast(
      scope,
      'TargetThrottled',
      kit.alarmName('schedules', 'TargetErrorThrottledCount'),
      about(
        "Lambda throttled Scheduler's hand-off; Scheduler retries up to 24 h, then the dead-letter queue",
      ),
      group.metricTargetThrottled(five),
    ),
    kit.atLeast(
      scope,
      'Dropped',
      kit.alarmName('schedules', 'InvocationDroppedCount'),
      about("Scheduler dropped an invocation after its retries (see the jobs' dead-letter queues)"),
      group.metricDropped(five),
    ),
  ];
}
