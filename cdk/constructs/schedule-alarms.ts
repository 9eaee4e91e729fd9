/**
 * Scheduler's alarms (namespace `AWS/Scheduler`, dimension `ScheduleGroup`: Scheduler publishes metrics
 * per schedule group only). A group holding ONE schedule is watched as that schedule (CronfenceJobs gives
 * each job, and the sweeper, a group of its own); a group shared by several schedules gets group alarms
 * naming every job in it.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type { Alarm, IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IScheduleGroup, Schedule } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { SWEEPER_NAME } from './sweeper.js';

/** A job's schedule as the group alarms see it: a Lambda job (ScheduledJob) or an ECS job (EcsScheduledJob). */
export interface ScheduledTarget {
  readonly definition: JobDefinition;
  readonly schedule: Schedule;
}

/** What the alarms need of {@link CronfenceAlarms}: its scope, alarm names and its "at least" alarm. */

export interface AlarmFactory {
  readonly scope: Construct;
  alarmName(subject: string, what: string): string;
  atLeast(scope: Construct, id: string, name: string, description: string, metric: IMetric): Alarm;
}

/**
 * Scheduler's view of ONE job's schedule, alone in its group: target errors (the invoke failed: the
 * execution role cannot be assumed, the function is missing, Lambda refused), target throttles, and
 * invocations dropped after the retry policy (the event is in the job's dead-letter queue).
 */
export function watchSchedule(f: AlarmFactory, name: string, group: IScheduleGroup): Alarm[] {
  const scope = new Construct(f.scope, `Schedule-${name}`);
  const about = (what: string) =>
    name === SWEEPER_NAME
      ? `cronfence sweeper of ${Stack.of(f.scope).stackName}, its Scheduler schedule: ${what}.`
      : `cronfence job "${name}", its Scheduler schedule: ${what}. See \`cronfence why ${name}\`.`;
  const five = { period: Duration.minutes(5), statistic: 'Sum' };
  return [
    f.atLeast(
      scope,
      'TargetErrors',
      f.alarmName(name, 'TargetErrorCount'),
      about(
        "Scheduler's invoke of the function failed (role not assumable, function missing or refusing); it retries up to 24 h, then the dead-letter queue",
      ),
      group.metricTargetErrors(five),
    ),
    f.atLeast(
      scope,
      'TargetThrottled',
      f.alarmName(name, 'TargetErrorThrottledCount'),
      about(
        "Lambda throttled Scheduler's hand-off; Scheduler retries up to 24 h, then the dead-letter queue",
      ),
      group.metricTargetThrottled(five),
    ),
    f.atLeast(
      scope,
      'Dropped',
      f.alarmName(name, 'InvocationDroppedCount'),
      about("Scheduler dropped an invocation after its retries (see the job's dead-letter queue)"),
      group.metricDropped(five),
    ),
  ];
}

/** Scheduler's own view of a group: invocations throttled by the target, and invocations dropped. */
export function watchScheduleGroup(
  f: AlarmFactory,
  group: IScheduleGroup,
  jobs: readonly ScheduledTarget[],
): Alarm[] {
  const scope = new Construct(f.scope, `Schedules-${jobs.length}-${group.node.id}`);
  const names = jobs.filter((j) => j.schedule.scheduleGroup === group).map((j) => j.definition.name);
  const about = (what: string) => `cronfence schedules (${names.join(', ')}): ${what}.`;
  const five = { period: Duration.minutes(5), statistic: 'Sum' };
  return [
    f.atLeast(
      scope,
      'TargetThrottled',
      f.alarmName('schedules', 'TargetErrorThrottledCount'),
      about(
        "Lambda throttled Scheduler's hand-off; Scheduler retries up to 24 h, then the dead-letter queue",
      ),
      group.metricTargetThrottled(five),
    ),
    f.atLeast(
      scope,
      'Dropped',
      f.alarmName('schedules', 'InvocationDroppedCount'),
      about("Scheduler dropped an invocation after its retries (see the jobs' dead-letter queues)"),
      group.metricDropped(five),
    ),
  ];
}
