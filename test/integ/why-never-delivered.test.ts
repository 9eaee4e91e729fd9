/**
 * `why` for occurrences the table holds nothing of (integ: the table on DynamoDB Local; Scheduler,
 * CloudWatch, SQS and Lambda through recorded responses of the shapes the AWS API references give, see
 * test/unit/why/recorded-aws.ts — they have no local emulator). The drill: the schedule's execution role
 * cannot be assumed, so no invocation ever reaches the function and there is no record at all.
 */
import { describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { explainJob } from '../../operate/why/explain.js';
import { formatEvidence, formatLine } from '../../operate/why/render.js';
import { localStack } from '../helpers/local-stack.js';
import { DLQ_URL, GET_SCHEDULE, metricData, recordedClients } from '../unit/why/recorded-aws.js';

const SLOT_MS = Date.parse('2026-11-18T01:30:00Z'); // 02:30 in Europe/Berlin
const NOW = Date.parse('2026-11-20T09:00:00Z');

/** Scheduler's dead-letter event for the occurrence: the schedule's input as body, the error as attributes. */
const deadLetter = {
  MessageId: '5fea7756-0ea4-451a-a703-a558b933e274',
  ReceiptHandle: 'AQEB-recorded',
  Body: JSON.stringify({
    job: 'daily-report',
    scheduledTime: '2026-11-18T01:30:00Z',
    scheduleArn: GET_SCHEDULE.Arn,
    executionId: 'b7bc3c4d-1e3b-4a1c-9a5e-0f4e1f1f2d21',
    attemptNumber: '186',
  }),
  MessageAttributes: {
    ERROR_CODE: { StringValue: 'AccessDeniedException', DataType: 'String' },
    ERROR_MESSAGE: {
      StringValue:
        'Scheduler could not assume the role arn:aws:iam::123456789012:role/cronfence-daily-report-schedule',
      DataType: 'String',
    },
    RETRY_ATTEMPTS: { StringValue: '185', DataType: 'Number' },
  },
};

describe('why for an occurrence that was never delivered', () => {
  it('classifies the role drill "never delivered" from the DLQ message, with the schedule and metrics as evidence, peeking without consuming', async () => {
    const stack = await localStack();
    const { clients, sent } = recordedClients({
      GetScheduleCommand: GET_SCHEDULE,
      GetFunctionEventInvokeConfigCommand: {
        DestinationConfig: { OnFailure: { Destination: GET_SCHEDULE.Target.DeadLetterConfig.Arn } },
      },
      GetQueueUrlCommand: { QueueUrl: DLQ_URL },
      ReceiveMessageCommand: { Messages: [deadLetter] },
      // Every attempt fails before the target: Scheduler counts it a target error, then drops it.
      GetMetricDataCommand: metricData({
        InvocationAttemptCount: [
          [0, 1],
          [1, 1],
          [2, 1],
        ],
        TargetErrorCount: [
          [0, 1],
          [1, 1],
          [2, 1],
        ],
        InvocationDroppedCount: [[1439, 1]],
      }),
    });
    const report = await explainJob({
      doc: stack.doc,
      tableName: stack.tableName,
      job: { name: 'daily-report', definition: dailyReport.job },
      fromMs: SLOT_MS - 60_000,
      toMs: SLOT_MS + 60_000,
      nowMs: NOW,
      aws: {
        clients,
        target: {
          scheduleName: 'daily-report',
          scheduleGroup: 'cronfence-schedules',
          functionName: 'cronfence-daily-report',
        },
      },
    });
    const [line] = report.lines;
    expect(report.lines).toHaveLength(1);
    expect(formatLine(line as never)).toBe(
      '2026-11-18T02:30      not-recorded          never delivered: Scheduler dropped it after 185 retries (AccessDeniedException: Scheduler could not assume the role arn:aws:iam::123456789012:role/cronfence-daily-report-schedule) — see the DLQ message 5fea7756-0ea4-451a-a703-a558b933e274 in cronfence-daily-report-dlq',
    );
    expect(formatEvidence(line?.evidence as never)).toEqual([
      '    schedule (group cronfence-schedules): ENABLED, cron(30 2 * * ? *) in Europe/Berlin, as defined',
      '    Scheduler (group) that minute: InvocationAttemptCount 1, TargetErrorCount 1, TargetErrorThrottledCount 0; dropped in the 30 h after: 1',
      '    function in the 30 h after: Throttles 0, AsyncEventsDropped 0, AsyncEventAge max 0 s',
      '    dead-letter queues: cronfence-daily-report-dlq message 5fea7756-0ea4-451a-a703-a558b933e274 from scheduler (AccessDeniedException) (peeked, nothing consumed)',
    ]);
    // Peeked: visibility 0, and no DeleteMessage (or ChangeMessageVisibility) was ever sent.
    const receives = sent.filter((s) => s.command === 'ReceiveMessageCommand');
    expect(receives[0]?.input).toMatchObject({ QueueUrl: DLQ_URL, VisibilityTimeout: 0, WaitTimeSeconds: 0 });
    expect(sent.map((s) => s.command).filter((c) => /Delete|ChangeMessage/.test(c))).toEqual([]);
    // The schedule's queue and the function's on-failure destination are the same queue: peeked once.
    expect(sent.filter((s) => s.command === 'GetQueueUrlCommand')).toHaveLength(1);
    const metricQueries = sent.filter((s) => s.command === 'GetMetricDataCommand').map((s) => s.input);
    expect(
      metricQueries.map(
        (q) =>
          (q.MetricDataQueries as { MetricStat: { Metric: { Namespace: string; Dimensions: unknown } } }[])[0]
            ?.MetricStat.Metric,
      ),
    ).toEqual([
      {
        Namespace: 'AWS/Scheduler',
        MetricName: 'InvocationAttemptCount',
        Dimensions: [{ Name: 'ScheduleGroup', Value: 'cronfence-schedules' }],
      },
      {
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: [{ Name: 'FunctionName', Value: 'cronfence-daily-report' }],
      },
    ]);
  }, 30_000);

  it('names the IAM action an operator lacks, reads what it can, and judges from that', async () => {
    const stack = await localStack();
    const denied = (action: string) => ({
      throws: {
        name: 'AccessDeniedException',
        message: `User: arn:aws:iam::123456789012:user/ops is not authorized to perform: ${action}`,
      },
    });
    const { clients } = recordedClients({
      GetScheduleCommand: { ...GET_SCHEDULE, State: 'DISABLED' },
      GetFunctionEventInvokeConfigCommand: denied('lambda:GetFunctionEventInvokeConfig'),
      GetQueueUrlCommand: { QueueUrl: DLQ_URL },
      ReceiveMessageCommand: {
        throws: { name: 'AccessDenied', message: 'Access to the resource is denied.' },
      },
      GetMetricDataCommand: denied('cloudwatch:GetMetricData'),
    });
    const report = await explainJob({
      doc: stack.doc,
      tableName: stack.tableName,
      job: { name: 'daily-report', definition: dailyReport.job },
      fromMs: SLOT_MS,
      toMs: SLOT_MS,
      nowMs: NOW,
      aws: {
        clients,
        target: {
          scheduleName: 'daily-report',
          scheduleGroup: 'cronfence-schedules',
          functionName: 'cronfence-daily-report',
        },
      },
    });
    const line = report.lines[0];
    expect(line?.verdict).toBe('never delivered: the schedule is DISABLED');
    expect(line?.evidence?.unreadable.map((u) => [u.source, u.action])).toEqual([
      ['function', 'lambda:GetFunctionEventInvokeConfig'],
      ['dead-letter queue cronfence-daily-report-dlq', 'sqs:ReceiveMessage'],
      ['AWS/Scheduler', 'cloudwatch:GetMetricData'],
      ['AWS/Lambda', 'cloudwatch:GetMetricData'],
    ]);
    expect(line?.evidence?.unreadable[0]?.reason).toBe(
      'not permitted: the operator needs lambda:GetFunctionEventInvokeConfig (AccessDeniedException: User: arn:aws:iam::123456789012:user/ops is not authorized to perform: lambda:GetFunctionEventInvokeConfig)',
    );
  }, 30_000);
});
