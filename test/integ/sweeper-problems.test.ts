/**
 * The sweeper's problems (integ: DynamoDB Local): one job's failed sweep never blocks another, and
 * every problem record the sweeper writes moves the metric its alarm counts; a run that recorded
 * `succeeded` and lost its release is never counted abandoned.
 * Lambda's Invoke error is built as the Lambda API reference gives it (`ResourceNotFoundException`,
 * HTTP 404, `Type: User`, "Function not found: <arn>"), with the SDK's own exception class.
 */
import { ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { on, timeoutError } from '../../harness/faults/sdk-faults.js';
import { deliver, lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import type { RuntimeEvent } from '../../lib/runtime/events.js';
import { createObserver, publishSweepMetrics } from '../../lib/runtime/observability.js';
import { type SweepTarget, sweep } from '../../lib/runtime/sweeper.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});
afterEach(() => vi.restoreAllMocks());

const SLOT = Date.parse('2026-05-01T03:00:00Z');
const at = (iso: string) => new ControlledClock(Date.parse(iso) - Date.now());
/** A sweep's clock, frozen at `iso`: its `sweep-failed` run ids carry the instant to the millisecond. */
const frozenAt = (iso: string) => {
  const c = at(iso);
  c.freeze();
  c.setTo(Date.parse(iso));
  return c;
};
const nightly = (name: string, failFirst: { n: number }) =>
  defineJob({
    name,
    schedule: 'cron(0 3 * * ? *)',
    timeZone: 'UTC',
    lease: { durationSeconds: 5 },
    run: async () => {
      if (failFirst.n-- > 0) throw new Error('bank unreachable');
    },
  });

describe('one job’s failure never blocks another', () => {
  it('records A failed / sweep-failed when its catch-up invoke is refused, and still catches B up in the same sweep', async () => {
    const w = stack.worker({ clock: at('2026-05-01T03:00:30Z') });
    const a = nightly('job-a', { n: 1 });
    const b = nightly('job-b', { n: 1 });
    // Both 03:00 slots were delivered and failed: unfinished.
    for (const j of [a, b])
      await deliver(
        j.withDeps(() => w.deps),
        { job: j.job.name, scheduledTimeMs: SLOT, label: 'on time' },
      );
    const notFound = new ResourceNotFoundException({
      message: 'Function not found: arn:aws:lambda:eu-central-1:123456789012:function:cronfence-job-a',
      $metadata: { httpStatusCode: 404 },
      Type: 'User',
    });
    const invoked: string[] = [];
    const target = (j: typeof a, invoke: SweepTarget['invoke']): SweepTarget => ({
      definition: j.job,
      expression: j.expression,
      invoke,
    });
    const targets = [
      target(a, async () => {
        throw notFound;
      }),
      target(b, async (payload) => {
        invoked.push(`job-b ${String(payload.scheduledTime)}`);
        await b.withDeps(() => w.deps)(payload, lambdaContext('job-b', 60));
      }),
    ];
    const clock = frozenAt('2026-05-01T03:20:00Z');
    const report = await sweep(
      { leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined },
      targets,
    );
    const why =
      'catch-up invoke of 2026-05-01T03:00 failed: ResourceNotFoundException: Function not found: arn:aws:lambda:eu-central-1:123456789012:function:cronfence-job-a';
    expect(report.decisions).toEqual([
      { job: 'job-a', slot: '2026-05-01T03:00', action: 'failed', reason: `sweep-failed: ${why}` },
      { job: 'job-b', slot: '2026-05-01T03:00', action: 'triggered', reason: 'unfinished' },
    ]);
    expect(invoked).toEqual(['job-b 2026-05-01T03:00:00Z']);
    expect(report.problems).toEqual([
      { job: 'job-a', slot: '2026-05-01T03:00', outcome: 'failed', reason: 'sweep-failed', error: why },
    ]);
    const aRecords = await stack.runRecords('job-a');
    expect(aRecords.map((r) => [r.slot, r.trigger, r.outcome, r.reason])).toEqual([
      ['2026-05-01T03:00', 'schedule', 'failed', 'error'],
      ['2026-05-01T03:00', 'catch-up', 'failed', 'sweep-failed'],
    ]);
    expect(aRecords[1]).toMatchObject({
      runId: 'sweeper-failed-2026-05-01T03:20:00.000Z',
      requestedBy: 'sweeper',
      error: { name: 'CatchUpInvokeError', message: why },
      problem: 'failed',
    });
    const bRecords = await stack.runRecords('job-b');
    expect(bRecords.map((r) => [r.slot, r.trigger, r.outcome]).sort()).toEqual([
      ['2026-05-01T03:00', 'catch-up', 'succeeded'],
      ['2026-05-01T03:00', 'schedule', 'failed'],
    ]);
    // The metrics the sweeper handler publishes (EMF): A's SweepFailed, named by its job dimension.
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const published = publishSweepMetrics(report);
    vi.restoreAllMocks();
    expect([...published].map(([job, m]) => [job, Object.fromEntries(m)])).toEqual([
      ['job-a', { SweepFailed: 1, RunSucceeded: 0 }],
      ['job-b', { RunSucceeded: 0 }],
    ]);
    const emf = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l));
    expect(
      emf.map((e) => [e.job, e.SweepFailed, e.RunSucceeded, e._aws.CloudWatchMetrics[0].Namespace]),
    ).toEqual([
      ['job-a', 1, 0, 'cronfence'],
      ['job-b', undefined, 0, 'cronfence'],
    ]);
    // The next sweep, A fixed: A's slot is caught up (the failed invoke counted as one attempt).
    const fixed = [
      target(a, async (p) => void (await a.withDeps(() => w.deps)(p, lambdaContext('job-a', 60)))),
      targets[1] as SweepTarget,
    ];
    const next = await sweep(
      {
        leases: w.deps.leases,
        runs: w.deps.runs,
        clock: frozenAt('2026-05-01T03:35:00Z'),
        log: () => undefined,
      },
      fixed,
    );
    expect(next.decisions).toEqual([
      { job: 'job-a', slot: '2026-05-01T03:00', action: 'triggered', reason: 'unfinished' },
    ]);
    expect(next.problems).toEqual([]);
  }, 60_000);
});

describe('a run that recorded succeeded is never counted abandoned', () => {
  it('keeps succeeded when its release was cut off: no abandoned mark, no abandoned-marked event, no sweeper problem', async () => {
    const events: RuntimeEvent[] = [];
    const job = nightly('cut-release', { n: 0 });
    const first = stack.worker({ clock: at('2026-05-01T03:00:30Z') });
    // The record is written, then the release never lands (the invocation timed out there).
    first.faults.add({
      name: 'release cut off',
      match: on.release,
      action: { kind: 'fail', error: () => timeoutError('injected: Lambda timed out before the release') },
      times: 10,
    });
    const r1 = await deliver(
      job.withDeps(() => first.deps),
      { job: 'cut-release', scheduledTimeMs: SLOT, label: 'on time' },
    );
    expect(r1.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    // The sweeper at 03:20 finds the holder still `running` with its lease over.
    const swept = await sweep(
      {
        leases: first.deps.leases,
        runs: first.deps.runs,
        clock: frozenAt('2026-05-01T03:20:00Z'),
        log: () => undefined,
      },
      [{ definition: job.job, expression: job.expression, invoke: async () => undefined }],
    );
    expect(swept.problems).toEqual([]);
    // The next day's claim displaces that holder: its record stays succeeded, nothing is counted.
    const second = stack.worker({ clock: at('2026-05-02T03:00:30Z') });
    const deps = { ...second.deps, observe: (e: RuntimeEvent) => void events.push(e) };
    const r2 = await deliver(
      job.withDeps(() => deps),
      { job: 'cut-release', scheduledTimeMs: SLOT + 86_400_000, label: 'next day' },
    );
    expect(r2.summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(events.filter((e) => e.type === 'abandoned-marked')).toEqual([]);
    const records = await stack.runRecords('cut-release');
    expect(records.map((r) => [r.slot, r.outcome, r.fence])).toEqual([
      ['2026-05-01T03:00', 'succeeded', 1],
      ['2026-05-02T03:00', 'succeeded', 2],
    ]);
  }, 60_000);
});

describe('a Lambda retry of an occurrence a redeploy removed', () => {
  it('is recorded skipped / not-on-schedule and counted by SlotNotRun (with RunSkipped per reason and RunSucceeded 0)', async () => {
    const job = nightly('moved', { n: 0 });
    const w = stack.worker({ clock: at('2026-05-01T02:31:00Z') });
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const deps = { ...w.deps, observe: createObserver() };
    // 02:30 was an occurrence of the schedule before the redeploy (cron(30 2 ...)); now it is cron(0 3 ...).
    const r = await deliver(
      job.withDeps(() => deps),
      {
        job: 'moved',
        scheduledTimeMs: Date.parse('2026-05-01T02:30:00Z'),
        attemptNumber: 2,
        label: 'retry of the old schedule',
      },
    );
    vi.restoreAllMocks();
    expect(r.summary).toMatchObject({ outcome: 'skipped', reason: 'not-on-schedule' });
    const [record] = await stack.runRecords('moved');
    expect(record).toMatchObject({
      slot: '2026-05-01T02:30Z',
      outcome: 'skipped',
      reason: 'not-on-schedule',
      problem: 'skipped',
    });
    const emf = lines
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(emf.map((e) => [e.job, e.Reason, e.SlotNotRun, e.RunSkipped, e.RunSucceeded])).toEqual([
      // published before the record is written (a timeout after the write cannot lose it), then the finish
      ['moved', undefined, 1, undefined, 0],
      ['moved', undefined, undefined, 1, undefined],
      ['moved', 'not-on-schedule', undefined, 1, undefined],
    ]);
  }, 60_000);
});
