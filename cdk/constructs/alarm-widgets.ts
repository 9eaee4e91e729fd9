/** The dashboard rows of cronfence's alarms: one per job (runs per hour, Lambda, dead letters), one for the sweeper. */
import { Duration } from 'aws-cdk-lib';
import {
  GraphWidget,
  type IWidget,
  type Metric,
  SingleValueWidget,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { RuntimeMetric } from '../../lib/core/metrics.js';
import type { ScheduledJob } from './scheduled-job.js';
import type { Sweeper } from './sweeper.js';

/** A job's dashboard row. */
export function jobWidgets(
  job: ScheduledJob,
  metric: (job: string, name: RuntimeMetric, period: Duration) => Metric,
): IWidget[] {
  const name = job.definition.name;
  const outcomes = [
    RuntimeMetric.RunSucceeded,
    RuntimeMetric.RunFailed,
    RuntimeMetric.RunStale,
    RuntimeMetric.RunAbandoned,
    RuntimeMetric.RunSkipped,
    RuntimeMetric.SlotNotRun,
  ].map((m) => metric(name, m, Duration.hours(1)));
  return [
    new TextWidget({
      markdown: `### ${name}\n\`${job.definition.schedule}\` ${job.definition.timeZone}`,
      width: 4,
    }),
    new GraphWidget({ title: `${name}: runs per hour`, left: outcomes, width: 8 }),
    new GraphWidget({
      title: `${name}: Lambda`,
      left: [job.function.metricErrors(), job.function.metricThrottles()],
      right: [job.function.metricDuration({ statistic: 'p99' })],
      width: 8,
    }),
    new SingleValueWidget({
      title: `${name}: dead letters`,
      metrics: [job.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })],
      width: 4,
    }),
  ];
}

/** The sweeper's dashboard row. */
export function sweeperWidgets(sweeper: Sweeper): IWidget[] {
  return [
    new TextWidget({ markdown: '### sweeper\nmissed-run detection and catch-up', width: 4 }),
    new GraphWidget({
      title: 'sweeper: Lambda',
      left: [sweeper.function.metricInvocations(), sweeper.function.metricErrors()],
      right: [sweeper.function.metricDuration({ statistic: 'p99' })],
      width: 16,
    }),
    new SingleValueWidget({
      title: 'sweeper: dead letters',
      metrics: [sweeper.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })],
      width: 4,
    }),
  ];
}
