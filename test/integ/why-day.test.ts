/**
 * `cronfence why` on a scripted day (integ: DynamoDB Local): an hourly Europe/Berlin job on the spring-
 * forward day 2026-03-29 gets a success with a duplicate, a pause, the DST gap, a failure, an overlap, a
 * backfill, a catch-up, a not-on-schedule retry and occurrences never delivered; every line is asserted
 * exactly. The clock is frozen per run (durations 0 ms), so the only variable parts are the run ids,
 * taken from the deliveries' own summaries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver, lambdaContext } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import type { RunSummary } from '../../lib/runtime/run-summary.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { explainJob, type WhyReport } from '../../operate/why/explain.js';
import { formatLine } from '../../operate/why/render.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const JOB = 'why-hourly';
const NOW = Date.parse('2026-03-29T12:00:00Z');
const at = (utc: string) => Date.parse(`2026-03-29T${utc}:00Z`);
let stack: LocalStack;
let report: WhyReport;
const ids: Record<string, RunSummary> = {};

beforeAll(async () => {
  stack = await localStack();
  const clock = new ControlledClock(NOW - Date.now());
  clock.freeze();
  const w = stack.worker({ clock });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const job = defineJob({
    name: JOB,
    schedule: 'cron(30 * * * ? *)',
    timeZone: 'Europe/Berlin',
    lease: { durationSeconds: 60 },
    run: async (ctx) => {
      if (ctx.slot.id.endsWith('T03:30')) throw new Error('ledger unavailable');
      if (ctx.slot.id.endsWith('T04:30')) await gate;
    },
  }).withDeps(() => w.deps);
  const run = async (name: string, scheduledTimeMs: number, extra: { attemptNumber?: number } = {}) => {
    const r = await deliver(job, { job: JOB, scheduledTimeMs, label: name, ...extra });
    if (r.summary) ids[name] = r.summary;
    return r;
  };
  const invoke = async (name: string, event: Record<string, unknown>) => {
    ids[name] = (await job({ job: JOB, ...event }, lambdaContext(JOB, 60))) as RunSummary;
  };
  // 00:30 local (23:30Z the day before): runs; a duplicate copy is skipped.
  await run('00:30', Date.parse('2026-03-28T23:30:00Z'));
  await run('00:30 copy', Date.parse('2026-03-28T23:30:00Z'));
  // 01:30: paused by alice, then resumed.
  const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
  await pauses.pause({ job: JOB, shards: 1, by: 'alice', note: 'ledger migration', nowMs: NOW - 1000 });
  await run('01:30', at('00:30'));
  await pauses.resume({ job: JOB, shards: 1, pausedAtMs: NOW - 1000 });
  // 02:30 does not exist (spring forward): nothing is delivered. 03:30 fails.
  await run('03:30', at('01:30'));
  // 04:30 runs slowly; 05:30 arrives meanwhile and is skipped (overlap).
  const slow = run('04:30', at('02:30'));
  await new Promise((r) => setTimeout(r, 300));
  await run('05:30', at('03:30'));
  release();
  await slow;
  // 06:30 is never delivered. 07:30 is backfilled, 08:30 caught up by the sweeper.
  await invoke('07:30', {
    scheduledTime: '2026-03-29T05:30:00Z',
    trigger: 'manual',
    requestedBy: 'bob',
    reason: 'rerun after fix',
  });
  await invoke('08:30', {
    scheduledTime: '2026-03-29T06:30:00Z',
    trigger: 'catch-up',
    requestedBy: 'sweeper',
    reason: 'missed',
  });
  // A Scheduler retry of an occurrence the schedule does not have (an older :45 schedule).
  await run(':45 retry', at('05:45'), { attemptNumber: 2 });
  report = await explainJob({
    doc: stack.doc,
    tableName: stack.tableName,
    job: { name: JOB, definition: job.job },
    fromMs: Date.parse('2026-03-28T23:00:00Z'),
    toMs: Date.parse('2026-03-29T07:59:00Z'),
    nowMs: NOW,
    aws: { skipped: 'DynamoDB Local' },
  });
}, 60_000);

describe('why on a scripted day', () => {
  it('classifies every occurrence of the day, the DST gap and the off-schedule retry, line by line', () => {
    const run = (k: string) => ids[k]?.runId;
    expect(report.lines.map(formatLine)).toEqual([
      `2026-03-29T00:30      succeeded             ran: run ${run('00:30')} succeeded in 0ms, fence 1 (schedule); also 1 skipped/already-succeeded`,
      `2026-03-29T01:30      skipped               skipped: paused by alice at 2026-03-29T11:59:59Z ("ledger migration"); after resume the catch-up rule decides`,
      '2026-03-29T02:30      skipped               skipped: DST gap — 02:30 does not exist in Europe/Berlin on 2026-03-29 (dstGap: skip); Scheduler delivers nothing',
      `2026-03-29T03:30      failed                failed (error): Error: ledger unavailable — run ${run('03:30')}, fence 2`,
      `2026-03-29T04:30      succeeded             ran: run ${run('04:30')} succeeded in 0ms, fence 3 (schedule)`,
      `2026-03-29T05:30      skipped               delivered, not run yet: skipped overlap behind run ${run('04:30')} (slot 2026-03-29T04:30); the sweeper catches it up`,
      '2026-03-29T06:30      not-recorded          no record',
      `2026-03-29T07:30      backfilled            backfilled by bob ("rerun after fix"): run ${run('07:30')} succeeded in 0ms, fence 4`,
      `2026-03-29T05:45Z     not-on-schedule       delivered but not on the current schedule: recorded skipped/not-on-schedule (run ${run(':45 retry')}); never run`,
      `2026-03-29T08:30      caught-up             caught up by the sweeper (missed): run ${run('08:30')} succeeded in 0ms, fence 5`,
      '2026-03-29T09:30      not-recorded          no record',
    ]);
    expect(report.unreadable).toEqual([{ source: 'AWS evidence', reason: 'not read: DynamoDB Local' }]);
    expect(report.lines.find((l) => l.slot === '2026-03-29T00:30')?.attempts).toEqual({
      succeeded: 1,
      'skipped/already-succeeded': 1,
    });
  });
});
