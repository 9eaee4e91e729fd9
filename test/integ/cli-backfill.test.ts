/**
 * Backfill (integ, on DynamoDB Local): `JobHandle.backfill` / `planBackfill` in process — real slots
 * only, DST-aware, recorded as manual runs; asynchronous Lambda invocations against a stand-in for the
 * Lambda Invoke API (the response shapes of the Lambda API reference: 202 for an `Event` invocation,
 * 204 for a `DryRun`, 404 ResourceNotFoundException) that runs the real handler; bad input refused
 * naming the field (exit 2) and nothing invoked. Two refusals go through the binary.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillText } from '../../cli/backfill.js';
import { exitCodeFor } from '../../cli/exit-codes.js';
import { cliMessage } from '../../cli/flags.js';
import { handler as settlement } from '../../functions/merchant-settlement.js';
import { lambdaContext } from '../../harness/local/scheduler-emulator.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, stackEnv } from './cli-harness.js';
import { operatorOn, rejection } from './operate-harness.js';

let stack: LocalStack;
let lambda: Server;
let lambdaUrl: string;
/** Asynchronous events the stand-in Lambda accepted, and its DryRun checks. */
const events: Record<string, unknown>[] = [];
const dryRuns: string[] = [];

/** A minimal Lambda Invoke endpoint: one function, `cronfence-merchant-settlement`, run in this process. */
function startLambda(): Promise<void> {
  const w = stack.worker();
  const fn = settlement.withDeps(() => w.deps);
  lambda = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = decodeURIComponent(/\/functions\/([^/]+)\/invocations/.exec(req.url ?? '')?.[1] ?? '');
      if (name !== 'cronfence-merchant-settlement') {
        res.writeHead(404, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'ResourceNotFoundException',
        });
        res.end(JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }));
        return;
      }
      if (req.headers['x-amz-invocation-type'] === 'DryRun') {
        dryRuns.push(name);
        res.writeHead(204).end();
        return;
      }
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      events.push(event);
      res.writeHead(202).end();
      setTimeout(() => void fn(event, lambdaContext(name, 300)).catch(() => undefined), 20);
    });
  });
  return new Promise((ready) =>
    lambda.listen(0, '127.0.0.1', () => {
      lambdaUrl = `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`;
      ready();
    }),
  );
}

let op: Operator;
const lambdaBefore = process.env.AWS_ENDPOINT_URL_LAMBDA;

beforeAll(async () => {
  stack = await localStack();
  await startLambda();
  // The Lambda client reads its endpoint from the SDK's documented variable, as in the CLI's process.
  process.env.AWS_ENDPOINT_URL_LAMBDA = lambdaUrl;
  op = operatorOn(stack);
});
afterAll(async () => {
  op?.close();
  if (lambdaBefore === undefined) delete process.env.AWS_ENDPOINT_URL_LAMBDA;
  else process.env.AWS_ENDPOINT_URL_LAMBDA = lambdaBefore;
  await new Promise<void>((done) => lambda.close(() => done()));
});

const env = (extra: Record<string, string> = {}) =>
  stackEnv(stack, { AWS_ENDPOINT_URL_LAMBDA: lambdaUrl, ...extra });
const who = ['--requested-by', 'alice', '--reason', 'provider outage'];
const alice = { requestedBy: 'alice', reason: 'provider outage' };

async function expectNothingInvoked(): Promise<void> {
  const byEve = (await stack.runRecords('merchant-settlement')).filter((x) => x.requestedBy === 'eve');
  expect(byEve).toEqual([]);
  expect(events.filter((e) => e.requestedBy === 'eve')).toEqual([]);
}

describe('backfill --local', () => {
  it('runs each real slot once as a manual run and summarizes the run records it wrote', async () => {
    const s = await op
      .job('merchant-settlement')
      .backfill({ from: '2026-03-27', to: '2026-03-29', local: true, ...alice });
    expect(s.succeeded).toBe(true);
    expect(s.counts).toEqual({ succeeded: 3 });
    expect(s.slots.map((x) => [x.slot, x.scheduledTime, x.outcome, x.fence, x.attempts])).toEqual([
      ['2026-03-27T01:00', '2026-03-26T17:00:00Z', 'succeeded', 1, 1],
      ['2026-03-28T01:00', '2026-03-27T17:00:00Z', 'succeeded', 2, 1],
      ['2026-03-29T01:00', '2026-03-28T17:00:00Z', 'succeeded', 3, 1],
    ]);
    const records = await stack.runRecords('merchant-settlement');
    expect(records.map((x) => [x.slot, x.trigger, x.requestedBy, x.requestReason, x.outcome])).toEqual([
      ['2026-03-27T01:00', 'manual', 'alice', 'provider outage', 'succeeded'],
      ['2026-03-28T01:00', 'manual', 'alice', 'provider outage', 'succeeded'],
      ['2026-03-29T01:00', 'manual', 'alice', 'provider outage', 'succeeded'],
    ]);
    const rows = await stack.scan(stack.settlements);
    expect(rows).toHaveLength(36);
    expect([...new Set(rows.map((x) => x.settlementDate))].sort()).toEqual([
      '2026-03-26',
      '2026-03-27',
      '2026-03-28',
    ]);
  });

  it('re-runs a settled slot without a second result and prints the summary table', async () => {
    const result = await op
      .job('merchant-settlement')
      .backfill({ from: '2026-03-28T01:00', to: '2026-03-28T01:00', local: true, ...alice });
    expect(result.succeeded).toBe(true);
    const text = backfillText(result);
    expect(text).toMatch(
      /^Backfill of merchant-settlement: 1 run\(s\) for 1 slot\(s\) via local handler, requested by alice: "provider outage" \[backfill-[0-9a-f-]{36}\]$/m,
    );
    expect(text).toMatch(/^2026-03-28T01:00\s+2026-03-27T17:00:00Z\s+succeeded\s+-\s+4\s+1\s+\S+\s+-$/m);
    expect(text).toMatch(/^succeeded 1$/m);
    expect(await stack.scan(stack.settlements)).toHaveLength(36);
    const latest = (await stack.runRecords('merchant-settlement')).filter((x) => x.fence === 4);
    expect(latest.map((x) => x.details)).toEqual([
      { inserted: 0, existing: 12, payouts: 'not configured (PAYMENTS_URL unset)' },
    ]);
  });

  it('enumerates the DST-gap slot of Europe/Berlin and runs it at the first instant after the gap', async () => {
    const dry = await op.job('daily-report').planBackfill({ from: '2026-03-28', to: '2026-03-30' });
    expect(dry.slots).toEqual([
      { slot: '2026-03-28T02:30', scheduledTime: '2026-03-28T01:30:00Z', businessDate: '2026-03-28' },
      {
        slot: '2026-03-29T02:30',
        scheduledTime: '2026-03-29T01:00:00Z',
        businessDate: '2026-03-29',
        shifted: true,
      },
      { slot: '2026-03-30T02:30', scheduledTime: '2026-03-30T00:30:00Z', businessDate: '2026-03-30' },
    ]);
    expect(await stack.runRecords('daily-report')).toEqual([]);
    const r = await op
      .job('daily-report')
      .backfill({ from: '2026-03-29T02:30', to: '2026-03-29T02:30', local: true, ...alice });
    expect(r.counts).toEqual({ succeeded: 1 });
    const [record] = await stack.runRecords('daily-report');
    expect([record?.slot, record?.scheduledTime, record?.businessDate]).toEqual([
      '2026-03-29T02:30',
      '2026-03-29T01:00:00.000Z',
      '2026-03-29',
    ]);
    expect((await stack.scan(stack.reports)).map((x) => x.reportDate)).toEqual(['2026-03-29']);
  });
});

describe('backfill on the deployed function', () => {
  it('invokes asynchronously, one slot at a time, then reports the run records the function wrote', async () => {
    const s = await op
      .job('merchant-settlement')
      .backfill({ from: '2026-03-20', to: '2026-03-21', requestedBy: 'bob', reason: 'missed' });
    expect(s.succeeded).toBe(true);
    expect(dryRuns).toEqual(['cronfence-merchant-settlement']);
    const manual = { job: 'merchant-settlement', trigger: 'manual', requestedBy: 'bob', reason: 'missed' };
    expect(s.backfillId).toMatch(/^backfill-[0-9a-f-]{36}$/);
    expect(events).toEqual([
      { ...manual, scheduledTime: '2026-03-19T17:00:00Z', executionId: s.backfillId },
      { ...manual, scheduledTime: '2026-03-20T17:00:00Z', executionId: s.backfillId },
    ]);
    expect(s.target).toBe('lambda:cronfence-merchant-settlement');
    expect(s.counts).toEqual({ succeeded: 2 });
    expect(s.slots.map((x) => x.slot)).toEqual(['2026-03-20T01:00', '2026-03-21T01:00']);
  });
});

describe.concurrent('backfill refuses bad input with exit code 2 and invokes nothing', () => {
  const cases: [string, { from: string; to: string; functionName?: string }, RegExp, RegExp][] = [
    [
      'an inverted range',
      { from: '2026-03-10', to: '2026-03-01' },
      /invalid --to "2026-03-01": is before --from 2026-03-10/,
      /^invalid to "2026-03-01": is before `from` 2026-03-10$/,
    ],
    [
      'more than 1,000 slots without --yes',
      { from: '2020-01-01', to: '2026-01-01' },
      /invalid --from\/--to "2020-01-01\.\.2026-01-01": has more than 1,000 slots of job merchant-settlement: narrow the range or pass --yes/,
      /^invalid from\/to "2020-01-01\.\.2026-01-01": has more than 1,000 slots of job merchant-settlement: narrow the range or pass `yes: true`$/,
    ],
    [
      'a malformed date',
      { from: '2026-13-01', to: '2026-03-01' },
      /invalid --from "2026-13-01": is not a real date/,
      /^invalid from "2026-13-01": is not a real date/,
    ],
    [
      'a time that is not a slot',
      { from: '2026-03-01T02:00', to: '2026-03-02' },
      /invalid --from "2026-03-01T02:00": is not a slot of job merchant-settlement \(cron\(0 1 \* \* \? \*\), Asia\/Shanghai\); nearest slots: 2026-03-01T01:00, 2026-03-02T01:00/,
      /^invalid from "2026-03-01T02:00": is not a slot of job merchant-settlement/,
    ],
    [
      'a future date',
      { from: '2026-03-01', to: '2099-01-01' },
      /invalid --to "2099-01-01": is in the future/,
      /^invalid to "2099-01-01": is in the future/,
    ],
    [
      'a function that does not exist',
      { from: '2026-03-01', to: '2026-03-01', functionName: 'nope' },
      /invalid --function "nope": cannot be invoked \(ResourceNotFoundException: Function not found: nope\)/,
      /^invalid functionName "nope": cannot be invoked \(ResourceNotFoundException: Function not found: nope\); pass `functionName` with/,
    ],
  ];
  // The API names its options; the CLI prints the same refusal with its flags.
  it.each(cases)('refuses %s', async (_name, range, cliLine, apiMessage) => {
    const err = await rejection(
      op.job('merchant-settlement').backfill({ ...range, requestedBy: 'eve', reason: 'bad' }),
    );
    expect(exitCodeFor(err)).toBe(2);
    expect(err.message).toMatch(apiMessage);
    expect(cliMessage(err)).toMatch(cliLine);
    await expectNothingInvoked();
  });

  it('refuses an unknown job and a missing --requested-by through the binary', async () => {
    const unknown = await cli(
      ['backfill', 'nope', '--from', '2026-03-01', '--to', '2026-03-01', ...who],
      env(),
    );
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringMatching(/invalid <job> "nope"/)]);
    const anonymous = await cli(
      ['backfill', 'merchant-settlement', '--from', '2026-03-01', '--to', '2026-03-01', '--reason', 'x'],
      env(),
    );
    expect([anonymous.code, anonymous.stderr]).toEqual([
      2,
      expect.stringMatching(/required option '--requested-by <name>' not specified/),
    ]);
    await expectNothingInvoked();
  });
});
