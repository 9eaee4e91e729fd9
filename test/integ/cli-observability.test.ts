/**
 * The operators' view from inside a function (integ: DynamoDB Local): a deployed handler (deps built
 * from the environment) logs one structured line per decision and emits per-job EMF metrics in
 * namespace `cronfence`, flushed when the invocation finishes.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import type { RuntimeEvent } from '../../lib/runtime/events.js';
import { createObserver } from '../../lib/runtime/observability.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

type Line = Record<string, unknown>;
let stack: LocalStack;

/** Capture what the process writes (Powertools writes through its own Console on stdout/stderr). */
async function capture(fn: () => Promise<unknown>): Promise<Line[]> {
  const lines: string[] = [];
  const grab = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(grab);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(grab);
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
}

const emf = (lines: Line[]) => lines.filter((l) => '_aws' in l);
const logs = (lines: Line[]) => lines.filter((l) => 'decision' in l);
const cw = (l: Line | undefined) =>
  (l?._aws as { CloudWatchMetrics: unknown[] } | undefined)?.CloudWatchMetrics[0];

beforeAll(async () => {
  stack = await localStack();
  process.env.DYNAMODB_ENDPOINT = stack.endpoint; // the deployed handler builds its deps from the environment
});
afterEach(() => vi.restoreAllMocks());

describe('a deployed handler', () => {
  const slotMs = Date.parse('2026-03-28T01:30:00Z');
  let first: RunSummary | undefined;

  it('logs claim and finish with job, slot, trigger, runId and fence, and emits RunSucceeded and RunDuration per job', async () => {
    const lines = await capture(async () => {
      first = (await deliver(dailyReport, { job: 'daily-report', scheduledTimeMs: slotMs, label: 'on-time' }))
        .summary;
    });
    expect(first?.outcome).toBe('succeeded');
    const common = {
      job: 'daily-report',
      slot: '2026-03-28T02:30',
      trigger: 'schedule',
      runId: first?.runId,
      fence: 1,
    };
    expect(logs(lines).map((l) => [l.decision, l.message, l.level, l.service])).toEqual([
      ['claim-won', 'claim won', 'INFO', 'cronfence'],
      ['finish', 'run succeeded', 'INFO', 'cronfence'],
    ]);
    for (const l of logs(lines)) expect(l).toMatchObject(common);
    const [doc] = emf(lines);
    expect(emf(lines)).toHaveLength(1);
    expect(cw(doc)).toEqual({
      Namespace: 'cronfence',
      Dimensions: [['service', 'job']],
      Metrics: [
        { Name: 'RunSucceeded', Unit: 'Count' },
        { Name: 'RunDuration', Unit: 'Milliseconds' },
      ],
    });
    expect(doc).toMatchObject({
      service: 'cronfence',
      job: 'daily-report',
      RunSucceeded: 1,
      RunDuration: first?.durationMs,
    });
  });

  it('emits RunSkipped per job and per Reason for a duplicate of a succeeded slot', async () => {
    const lines = await capture(() =>
      deliver(dailyReport, { job: 'daily-report', scheduledTimeMs: slotMs, attemptNumber: 2, label: 'late' }),
    );
    expect(logs(lines).map((l) => [l.decision, l.message, l.trigger, l.fence])).toEqual([
      ['claim-lost', 'claim lost: already-succeeded', 'retry', undefined],
      ['finish', 'run skipped: already-succeeded', 'retry', undefined],
    ]);
    const [doc] = emf(lines);
    expect(cw(doc)).toEqual({
      Namespace: 'cronfence',
      Dimensions: [
        ['service', 'job'],
        ['service', 'job', 'Reason'],
      ],
      Metrics: [{ Name: 'RunSkipped', Unit: 'Count' }],
    });
    expect(doc).toMatchObject({ job: 'daily-report', Reason: 'already-succeeded', RunSkipped: 1 });
  });
});

describe('the observer', () => {
  const base = { job: 'merchant-settlement', slot: '2026-03-29T01:00', runId: 'run-1', fence: 4, atMs: 0 };
  const summary = (outcome: RunSummary['outcome'], trigger: RunSummary['trigger']): RunSummary => ({
    job: base.job,
    slot: base.slot,
    scheduledTime: '2026-03-28T17:00:00.000Z',
    trigger,
    runId: base.runId,
    outcome,
    fence: 4,
    durationMs: 250,
  });

  it('counts abandoned holders, stale writes, effects needing review and catch-up runs in one flush at finish', async () => {
    const observe = createObserver();
    const events: RuntimeEvent[] = [
      {
        ...base,
        trigger: 'catch-up',
        type: 'abandoned-marked',
        abandonedRunId: 'run-0',
        abandonedSlot: '2026-03-28T01:00',
      },
      {
        ...base,
        trigger: 'catch-up',
        type: 'effect-transition',
        key: 'payout-1',
        from: 'sending',
        to: 'needs-review',
      },
      { ...base, trigger: 'catch-up', type: 'stale-write-rejected', target: 'settlements', storedFence: 5 },
    ];
    const before = await capture(async () => events.forEach(observe));
    expect(emf(before)).toEqual([]);
    expect(logs(before).map((l) => [l.decision, l.level])).toEqual([
      ['abandoned-marked', 'WARN'],
      ['effect-transition', 'WARN'],
      ['stale-write-rejected', 'WARN'],
    ]);
    const lines = await capture(async () =>
      observe({ ...base, trigger: 'catch-up', type: 'finish', summary: summary('stale', 'catch-up') }),
    );
    expect(logs(lines).map((l) => [l.decision, l.level, l.message])).toEqual([
      ['finish', 'WARN', 'run stale'],
    ]);
    expect(emf(lines)).toHaveLength(1);
    expect(emf(lines)[0]).toMatchObject({
      job: 'merchant-settlement',
      RunAbandoned: 1,
      EffectNeedsReview: 1,
      StaleWriteRejected: 1,
      RunStale: 1,
      RunDuration: 250,
      CatchUpTriggered: 1,
    });
  });
});
