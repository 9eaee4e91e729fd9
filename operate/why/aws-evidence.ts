/**
 * `why`'s evidence readers for an occurrence the table holds nothing of, through {@link EvidenceClients}:
 * the deployed schedule (Scheduler `GetSchedule`), Scheduler's and the function's CloudWatch metrics
 * (`GetMetricData`), and the job's dead-letter queues (SQS `ReceiveMessage`, peeked without consuming).
 * Each read that fails becomes an {@link Unreadable} naming the source and, for a refused permission,
 * the IAM action (docs/deploy.md "Operator permissions").
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { GetFunctionEventInvokeConfigCommand } from '@aws-sdk/client-lambda';
import { GetScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type DeployedTarget, type EvidenceClients, unreadable } from './evidence-port.js';
import type { MetricFacts, Unreadable } from './model.js';

/** Scheduler metrics read for the occurrence's minute (`AWS/Scheduler`, per `ScheduleGroup`). */
export const SCHEDULER_METRICS = [
  'InvocationAttemptCount',
  'TargetErrorCount',
  'TargetErrorThrottledCount',
  'InvocationDroppedCount',
] as const;
/** The function's async metrics (`AWS/Lambda`, per `FunctionName`); `AsyncEventAge` is read as Maximum, ms. */
export const LAMBDA_METRICS = ['Throttles', 'AsyncEventsDropped', 'AsyncEventAge'] as const;

/** How long after an occurrence its event can still be dropped: Scheduler's 24 h, then Lambda's 6 h, ms. */
export const DELIVERY_WINDOW_MS = 30 * 3_600_000;

/** What GetSchedule returned (the fields `why` compares), or `undefined` when there is no such schedule. */
export interface RawSchedule {
  readonly group: string;
  readonly state?: string;
  readonly expression?: string;
  readonly timeZone?: string;
  readonly startMs?: number;
  readonly endMs?: number;
  readonly deadLetterArn?: string;
}

type Read<T> = { value: T } | { unreadable: Unreadable };

/** The schedule named after the job: GetSchedule in the given group, else the group ListSchedules finds. */
export async function readSchedule(
  clients: EvidenceClients,
  target: DeployedTarget,
): Promise<Read<RawSchedule | undefined>> {
  let group = target.scheduleGroup;
  if (group === undefined) {
    try {
      const page = (await clients.scheduler.send(
        new ListSchedulesCommand({ NamePrefix: target.scheduleName }),
      )) as { Schedules?: { Name?: string; GroupName?: string }[] };
      group = page.Schedules?.find((s) => s.Name === target.scheduleName)?.GroupName;
      if (group === undefined) return { value: undefined };
    } catch (err) {
      return { unreadable: unreadable('schedule', 'scheduler:ListSchedules', err) };
    }
  }
  try {
    const s = (await clients.scheduler.send(
      new GetScheduleCommand({ Name: target.scheduleName, GroupName: group }),
    )) as {
      State?: string;
      ScheduleExpression?: string;
      ScheduleExpressionTimezone?: string;
      StartDate?: Date;
      EndDate?: Date;
      Target?: { DeadLetterConfig?: { Arn?: string } };
    };
    return {
      value: {
        group,
        ...(s.State !== undefined && { state: s.State }),
        ...(s.ScheduleExpression !== undefined && { expression: s.ScheduleExpression }),
        ...(s.ScheduleExpressionTimezone !== undefined && { timeZone: s.ScheduleExpressionTimezone }),
        ...(s.StartDate && { startMs: new Date(s.StartDate).getTime() }),
        ...(s.EndDate && { endMs: new Date(s.EndDate).getTime() }),
        ...(s.Target?.DeadLetterConfig?.Arn && { deadLetterArn: s.Target.DeadLetterConfig.Arn }),
      },
    };
  } catch (err) {
    if ((err as Error)?.name === 'ResourceNotFoundException') return { value: undefined };
    return { unreadable: unreadable('schedule', 'scheduler:GetSchedule', err) };
  }
}

/**
 * One GetMetricData of `names` (1-minute Sum; `AsyncEventAge` Maximum) from the occurrence's minute to
 * the end of its delivery window (or now): the minute's values, and the sums over the window.
 */
export async function readMetrics(
  clients: EvidenceClients,
  namespace: 'AWS/Scheduler' | 'AWS/Lambda',
  dimension: { Name: string; Value: string },
  names: readonly string[],
  slotMs: number,
  nowMs: number,
): Promise<Read<MetricFacts>> {
  const startMs = Math.floor(slotMs / 60_000) * 60_000;
  const endMs = Math.max(startMs + 60_000, Math.min(startMs + DELIVERY_WINDOW_MS, nowMs));
  try {
    const out = (await clients.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(startMs),
        EndTime: new Date(endMs),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: names.map((name, i) => ({
          Id: `m${i}`,
          Label: name,
          MetricStat: {
            Metric: { Namespace: namespace, MetricName: name, Dimensions: [dimension] },
            Period: 60,
            Stat: name === 'AsyncEventAge' ? 'Maximum' : 'Sum',
          },
          ReturnData: true,
        })),
      }),
    )) as { MetricDataResults?: { Id?: string; Timestamps?: Date[]; Values?: number[] }[] };
    const minute: Record<string, number> = {};
    const after: Record<string, number> = {};
    names.forEach((name, i) => {
      const r = out.MetricDataResults?.find((x) => x.Id === `m${i}`);
      const points = (r?.Values ?? []).map((v, j) => ({
        v,
        at: new Date(r?.Timestamps?.[j] ?? 0).getTime(),
      }));
      const max = name === 'AsyncEventAge';
      const fold = (ps: typeof points) => ps.reduce((acc, p) => (max ? Math.max(acc, p.v) : acc + p.v), 0);
      minute[name] = fold(points.filter((p) => p.at === startMs));
      after[name] = fold(points);
    });
    return { value: { minute, after } };
  } catch (err) {
    return { unreadable: unreadable(namespace, 'cloudwatch:GetMetricData', err) };
  }
}

/** The function's on-failure destination (its async dead-letter queue), from its event invoke config. */
export async function lambdaDeadLetterArn(
  clients: EvidenceClients,
  functionName: string,
): Promise<Read<string | undefined>> {
  try {
    const c = (await clients.lambda.send(
      new GetFunctionEventInvokeConfigCommand({ FunctionName: functionName }),
    )) as { DestinationConfig?: { OnFailure?: { Destination?: string } } };
    return { value: c.DestinationConfig?.OnFailure?.Destination };
  } catch (err) {
    if ((err as Error)?.name === 'ResourceNotFoundException') return { value: undefined };
    return { unreadable: unreadable('function', 'lambda:GetFunctionEventInvokeConfig', err) };
  }
}

/** A message as peeked: its id, body and attributes. */
export interface PeekedMessage {
  readonly queue: string;
  readonly messageId: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** How many ReceiveMessage calls one peek makes at most (10 messages each). */
export const PEEK_CALLS = 10;

/**
 * Peek at a queue without consuming: ReceiveMessage with `VisibilityTimeout: 0` (each message stays
 * visible to every other reader at once) and never DeleteMessage, so a message stays for the team's
 * redrive. Peeking does count toward a message's receive count (the cronfence queues have no redrive
 * policy that would act on it). Up to {@link PEEK_CALLS} short polls, de-duplicated by message id.
 */
export async function peekQueue(clients: EvidenceClients, queueArn: string): Promise<Read<PeekedMessage[]>> {
  const [, , , , account, name] = queueArn.split(':');
  let url: string | undefined;
  try {
    url = (
      (await clients.sqs.send(
        new GetQueueUrlCommand({ QueueName: name, ...(account && { QueueOwnerAWSAccountId: account }) }),
      )) as { QueueUrl?: string }
    ).QueueUrl;
  } catch (err) {
    return { unreadable: unreadable(`dead-letter queue ${name}`, 'sqs:GetQueueUrl', err) };
  }
  const seen = new Map<string, PeekedMessage>();
  try {
    for (let i = 0; i < PEEK_CALLS; i++) {
      const page = (await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
        }),
      )) as {
        Messages?: {
          MessageId?: string;
          Body?: string;
          MessageAttributes?: Record<string, { StringValue?: string }>;
        }[];
      };
      const fresh = (page.Messages ?? []).filter((m) => m.MessageId && !seen.has(m.MessageId));
      if (fresh.length === 0) break;
      for (const m of fresh)
        seen.set(m.MessageId as string, {
          queue: name ?? queueArn,
          messageId: m.MessageId as string,
          body: m.Body ?? '',
          attributes: Object.fromEntries(
            Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
          ),
        });
    }
  } catch (err) {
    return { unreadable: unreadable(`dead-letter queue ${name}`, 'sqs:ReceiveMessage', err) };
  }
  return { value: [...seen.values()] };
}
