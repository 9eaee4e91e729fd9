/** The alarms and dashboard row of one ECS job (used by `CronfenceAlarms`). */
import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  GraphWidget,
  type IMetric,
  type IWidget,
  type Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { EFFECT_UNSETTLED_AFTER_MS } from '../../lib/core/effects.js';
import { PROBLEM_METRICS } from '../../lib/core/metrics.js';
import { PROBLEM_TEXT } from './alarm-rules.js';
import { RuntimeMetric } from './defaults.js';
import type { EcsScheduledJob } from './ecs-job.js';

/** What `CronfenceAlarms` lends the ECS job's alarms: its metric, alarm and naming rules. */
export interface AlarmKit {
  /** The scope of the job's alarms. */
  readonly parent: Construct;
  alarmName(subject: string, what: string): string;
  metric(job: string, name: RuntimeMetric, period?: Duration): Metric;
  atLeast(scope: Construct, id: string, name: string, description: string, metric: IMetric): Alarm;
  noSuccess(scope: Construct, job: EcsScheduledJob, about: (what: string) => string): Alarm;
}

/**
 * An ECS job's alarms: the runtime's problem metrics (the task writes them as EMF to its log group,
 * which CloudWatch Logs extracts as for a Lambda), effect alarms for a job with effects, its
 * dead-letter queue (Scheduler could not start a task), its failed tasks (a stopped task whose `job`
 * container exited non-zero or never started), and no successful run within two schedule periods.
 */
export function watchEcsJob(kit: AlarmKit, job: EcsScheduledJob): { alarms: Alarm[]; widgets: IWidget[] } {
  const name = job.definition.name;
  const scope = new Construct(kit.parent, `Job-${name}`);
  const table = job.libraryTable.table.tableName;
  const about = (what: string) => `cronfence job "${name}" (ECS task, library table ${table}): ${what}.`;
  const problems = ' Query the problems index of the library table (cronfence runs --failed).';
  const count = (metric: RuntimeMetric, what: string, period?: Duration) =>
    kit.atLeast(
      scope,
      metric,
      kit.alarmName(name, metric),
      about(what) + problems,
      kit.metric(name, metric, period),
    );
  const alarms = PROBLEM_METRICS.map((m) => count(m, PROBLEM_TEXT[m] ?? m));
  if (job.effects)
    alarms.push(
      count(RuntimeMetric.EffectNeedsReview, 'an external effect needs review'),
      count(
        RuntimeMetric.EffectUnsettled,
        'an external effect was left not terminal (outcome unknown); see `cronfence effects --status unsettled`',
        Duration.millis(EFFECT_UNSETTLED_AFTER_MS),
      ),
    );
  const five = { period: Duration.minutes(5), statistic: 'Maximum' };
  alarms.push(
    kit.atLeast(
      scope,
      'DeadLetters',
      kit.alarmName(name, 'DeadLetters'),
      about('messages in its dead-letter queue (Scheduler could not start a task)'),
      job.deadLetterQueue.metricApproximateNumberOfMessagesVisible(five),
    ),
    kit.atLeast(
      scope,
      'FailedTasks',
      kit.alarmName(name, 'FailedTasks'),
      about('a task stopped with a non-zero exit code or failed to start; its queue holds the ECS events'),
      job.failedTasks.metricApproximateNumberOfMessagesVisible(five),
    ),
  );
  if (job.periodSeconds !== undefined) alarms.push(kit.noSuccess(scope, job, about));
  const outcomes = [
    RuntimeMetric.RunSucceeded,
    RuntimeMetric.RunFailed,
    RuntimeMetric.RunStale,
    RuntimeMetric.RunAbandoned,
    RuntimeMetric.RunSkipped,
    RuntimeMetric.SlotNotRun,
  ].map((m) => kit.metric(name, m, Duration.hours(1)));
  const widgets: IWidget[] = [
    new TextWidget({
      markdown: `### ${name} (ECS)\n\`${job.definition.schedule}\` ${job.definition.timeZone}`,
      width: 4,
    }),
    new GraphWidget({ title: `${name}: runs per hour`, left: outcomes, width: 10 }),
    new GraphWidget({
      title: `${name}: dead letters, failed tasks`,
      left: [
        job.deadLetterQueue.metricApproximateNumberOfMessagesVisible(),
        job.failedTasks.metricApproximateNumberOfMessagesVisible(),
      ],
      width: 10,
    }),
  ];
  return { alarms, widgets };
}
