/**
 * Recorded AWS responses for `why`'s evidence readers (unit tests). EventBridge Scheduler, CloudWatch,
 * SQS and the Lambda control plane have no local emulator, so these are responses of the shapes the AWS
 * API references give (Scheduler `GetSchedule` / `ListSchedules`, CloudWatch `GetMetricData`, SQS
 * `GetQueueUrl` / `ReceiveMessage`, Lambda `GetFunctionEventInvokeConfig`), as the SDK v3 clients return
 * them; error texts are illustrative. Every command sent is kept, with its input, for the tests to check.
 */
import type { EvidenceClients, SendPort } from '../../../operate/why/evidence-port.js';

/** A response by command name: an output, a function of the input, or an error to throw. */
export type Recorded = Record<
  string,
  unknown | ((input: Record<string, unknown>) => unknown) | { throws: { name: string; message: string } }
>;

/** A command the fake received. */
export interface Sent {
  readonly service: string;
  readonly command: string;
  readonly input: Record<string, unknown>;
}

function port(service: string, recorded: Recorded, sent: Sent[]): SendPort {
  return {
    async send(command: object) {
      const name = command.constructor.name;
      const input = (command as { input: Record<string, unknown> }).input;
      sent.push({ service, command: name, input });
      const r = recorded[name];
      if (r === undefined)
        throw Object.assign(new Error(`no recorded response for ${name}`), { name: 'NoRecording' });
      if (typeof r === 'function') return (r as (i: Record<string, unknown>) => unknown)(input);
      if (r && typeof r === 'object' && 'throws' in r) {
        const t = (r as { throws: { name: string; message: string } }).throws;
        throw Object.assign(new Error(t.message), { name: t.name });
      }
      return r;
    },
  };
}

/** Fake clients answering from `recorded` (one map for all four services; command names are unique). */
export function recordedClients(recorded: Recorded): { clients: EvidenceClients; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    clients: {
      scheduler: port('scheduler', recorded, sent),
      cloudwatch: port('cloudwatch', recorded, sent),
      sqs: port('sqs', recorded, sent),
      lambda: port('lambda', recorded, sent),
    },
    sent,
  };
}

export const ACCOUNT = '123456789012';
export const DLQ_ARN = `arn:aws:sqs:eu-central-1:${ACCOUNT}:cronfence-daily-report-dlq`;
export const DLQ_URL = `https://sqs.eu-central-1.amazonaws.com/${ACCOUNT}/cronfence-daily-report-dlq`;

/** GetSchedule of the deployed daily-report schedule (as the job defines it). */
export const GET_SCHEDULE = {
  Arn: `arn:aws:scheduler:eu-central-1:${ACCOUNT}:schedule/cronfence-schedules/daily-report`,
  Name: 'daily-report',
  GroupName: 'cronfence-schedules',
  State: 'ENABLED',
  ScheduleExpression: 'cron(30 2 * * ? *)',
  ScheduleExpressionTimezone: 'Europe/Berlin',
  FlexibleTimeWindow: { Mode: 'OFF' },
  Target: {
    Arn: `arn:aws:lambda:eu-central-1:${ACCOUNT}:function:cronfence-daily-report`,
    RoleArn: `arn:aws:iam::${ACCOUNT}:role/cronfence-daily-report-schedule`,
    DeadLetterConfig: { Arn: DLQ_ARN },
    RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
  },
};

/** GetMetricData answering `values[metricName]` as 1-minute points `[offsetMinutes, value]` from StartTime. */
export function metricData(values: Record<string, readonly [number, number][]>) {
  return (input: Record<string, unknown>) => {
    const start = (input.StartTime as Date).getTime();
    const queries = input.MetricDataQueries as {
      Id: string;
      MetricStat: { Metric: { MetricName: string } };
    }[];
    return {
      MetricDataResults: queries.map((q) => {
        const points = values[q.MetricStat.Metric.MetricName] ?? [];
        return {
          Id: q.Id,
          Label: q.MetricStat.Metric.MetricName,
          Timestamps: points.map(([m]) => new Date(start + m * 60_000)),
          Values: points.map(([, v]) => v),
          StatusCode: 'Complete',
        };
      }),
      Messages: [],
    };
  };
}
