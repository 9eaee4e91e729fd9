/**
 * Bad input at the handler (integ): a clear error naming the field and value, and nothing written.
 */

import getPort from 'get-port';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { CronfenceError, InvalidEventError, StoreError, UnknownJobError } from '../../lib/errors.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

async function invokeExpectingError(event: unknown): Promise<CronfenceError> {
  const w = stack.worker();
  const h = dailyReport.withDeps(() => w.deps);
  const err = await h(event, lambdaContext('daily-report', 120)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CronfenceError);
  return err as CronfenceError;
}

describe('bad events', () => {
  it.each([
    [
      'an event without scheduledTime',
      { job: 'daily-report' },
      InvalidEventError,
      /"scheduledTime" = undefined/,
    ],
    [
      'an empty event {} (named: job, not valibot\'s "Invalid key")',
      {},
      InvalidEventError,
      /^invalid event: field "job" = undefined: is required: the name of the job the event is for \(the schedule Input's "job"\)$/,
    ],
    [
      // middy hands the handler {} for an undefined event: the same refusal, naming job.
      'no event at all (undefined)',
      undefined,
      InvalidEventError,
      /^invalid event: field "job" = undefined: is required: the name of the job the event is for \(the schedule Input's "job"\)$/,
    ],
    [
      'an event that is a number, not an object',
      42,
      InvalidEventError,
      /^invalid event: field "\(event\)" = 42: is not a JSON object \(expected \{ "job", "scheduledTime", \.\.\. \}\)$/,
    ],
    [
      'an attemptNumber "0x2" (Scheduler sends decimal digits)',
      { ...schedulerPayload('daily-report', Date.UTC(2026, 2, 28, 1, 30)), attemptNumber: '0x2' },
      InvalidEventError,
      /^invalid event: field "attemptNumber" = "0x2": must be a whole number in decimal digits, e\.g\. "1"$/,
    ],
    [
      'a scheduledTime that is not ISO-8601',
      { job: 'daily-report', scheduledTime: 'yesterday' },
      InvalidEventError,
      /"scheduledTime" = "yesterday"/,
    ],
    [
      'an unknown job',
      { ...schedulerPayload('no-such-job', Date.UTC(2026, 2, 28, 1, 30)) },
      UnknownJobError,
      /"job" = "no-such-job"/,
    ],
    [
      'a job that is not this function’s',
      { ...schedulerPayload('merchant-settlement', Date.UTC(2026, 2, 28, 1, 30)) },
      UnknownJobError,
      /"merchant-settlement".*runs "daily-report"/,
    ],
    [
      'a shard for a job without shards',
      { ...schedulerPayload('daily-report', Date.UTC(2026, 2, 20, 1, 30)), shard: 7 },
      InvalidEventError,
      /"shard" = 7: job "daily-report" has no shards/,
    ],
    [
      'a slot in the future',
      { ...schedulerPayload('daily-report', Date.UTC(2099, 0, 1, 1, 30)) },
      InvalidEventError,
      /"scheduledTime" = "2099-01-01T01:30:00.000Z": is in the future/,
    ],
    [
      'a year before 1970',
      { job: 'daily-report', scheduledTime: '0000-06-01T00:30:00Z' },
      InvalidEventError,
      /is before 1970/,
    ],
    [
      'a catch-up slot that contradicts its scheduledTime',
      {
        job: 'daily-report',
        scheduledTime: '2026-03-18T01:30:00Z',
        trigger: 'catch-up',
        slot: '2026-01-01T02:30',
        requestedBy: 'sweeper',
      },
      InvalidEventError,
      /"slot" = "2026-01-01T02:30": runs at 2026-01-01T01:30:00.000Z, not at scheduledTime 2026-03-18T01:30:00.000Z/,
    ],
    [
      'a catch-up slot that is no real local time',
      {
        job: 'daily-report',
        scheduledTime: '2026-03-18T01:30:00Z',
        trigger: 'catch-up',
        slot: '2026-13-45T99:99',
        requestedBy: 'sweeper',
      },
      InvalidEventError,
      /^invalid event: field "slot" = "2026-13-45T99:99": is not a real local date and time$/,
    ],
  ])('rejects %s and writes nothing', async (_what, event, type, message) => {
    const err = await invokeExpectingError(event);
    expect(err).toBeInstanceOf(type);
    expect(err.message).toMatch(message);
    expect(await stack.scan(stack.tableName)).toEqual([]);
    expect(await stack.scan(stack.reports)).toEqual([]);
  });
});

describe('DynamoDB unreachable at claim', () => {
  it('throws a StoreError naming the claim, reports no run as succeeded and writes nothing', async () => {
    const port = await getPort({ host: '127.0.0.1' }); // nothing listens here
    const doc = createDocumentClient({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    const summaries: unknown[] = [];
    const h = dailyReport.withDeps(
      () => createDeps({ doc, tableName: stack.tableName }),
      (s) => summaries.push(s),
    );
    const err = await h(
      schedulerPayload('daily-report', Date.UTC(2026, 2, 28, 1, 30)),
      lambdaContext('daily-report', 120),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toMatch(/^DynamoDB UpdateItem \(claim lease\) failed/);
    expect(summaries).toEqual([]);
    expect(await stack.scan(stack.reports)).toEqual([]);
  });
});
