/**
 * `why`'s classification (unit: pure, no table): the lease-only, sharded, not-due, grace, before-start and
 * DST-shift cases the integration tests do not reach, and the verdict from AWS's evidence alone.
 */
import { describe, expect, it } from 'vitest';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import { classifySlots } from '../../../operate/why/classify.js';
import type { WhyRecord } from '../../../operate/why/model.js';
import { deliveryVerdict } from '../../../operate/why/verdict.js';

const DAY = Date.parse('2026-11-20T00:00:00Z');
const slots = enumerateSlots(
  { schedule: 'cron(0 * * * ? *)', timeZone: 'UTC', dstGap: 'shift' },
  DAY - 1,
  DAY + 3 * 3_600_000,
);
const base = {
  slots,
  dstGap: 'skip' as const,
  timeZone: 'UTC',
  fromMs: DAY,
  toMs: DAY + 3 * 3_600_000,
  graceMs: 600_000,
};
const rec = (r: Partial<WhyRecord> & Pick<WhyRecord, 'slot' | 'runId' | 'outcome'>): WhyRecord => ({
  startedAtMs: DAY,
  ...r,
});

describe('classifySlots', () => {
  it('reads a running holder from the lease, a sharded occurrence missing a shard, the grace and the future', () => {
    const lines = classifySlots({
      ...base,
      shards: 2,
      nowMs: DAY + 2 * 3_600_000 + 60_000,
      lease: {
        owner: 'r-held',
        fence: 7,
        slot: '2026-11-20T00:00',
        holderState: 'running',
        leaseUntilMs: DAY + 30_000,
      } as never,
      records: [
        rec({ slot: '2026-11-20T01:00', runId: 'fan', outcome: 'succeeded' }),
        rec({ slot: '2026-11-20T01:00', runId: 's0', outcome: 'succeeded', shard: 0, shards: 2 }),
        rec({
          slot: '2026-11-20T01:00',
          runId: 's1',
          outcome: 'failed',
          reason: 'error',
          shard: 1,
          shards: 2,
          fence: 3,
          error: { name: 'Error', message: 'boom' },
        }),
      ],
    });
    expect(lines.map((l) => [l.slot, l.class, l.verdict])).toEqual([
      [
        '2026-11-20T00:00',
        'delivered-unfinished',
        'delivered, unfinished: run r-held (fence 7) claimed it and its lease ended at 2026-11-20T00:00:30Z without a record (the next claim or sweep marks it abandoned, and the sweeper catches it up)',
      ],
      [
        '2026-11-20T01:00',
        'failed',
        'shards 1 of 2 not done; shard 1: failed (error): Error: boom — run s1, fence 3',
      ],
      [
        '2026-11-20T02:00',
        'not-recorded',
        "due at 2026-11-20T02:00:00Z, no record yet (within the sweeper's 10 min grace)",
      ],
      ['2026-11-20T03:00', 'not-due', 'not due yet'],
    ]);
  });

  it('says what the overlap policies did: buffered, buffer-full, waiting for a named slot, waiting too long, replaced', () => {
    const holderSeen = { runId: 'r-hold', slot: '2026-11-20T00:00' };
    const lines = classifySlots({
      ...base,
      nowMs: DAY + 3 * 3_600_000 + 60_000,
      records: [
        rec({ slot: '2026-11-20T00:00', runId: 'r-rep', outcome: 'stale', reason: 'replaced', fence: 4 }),
        rec({
          slot: '2026-11-20T01:00',
          runId: 'r-buf',
          outcome: 'buffered',
          reason: 'overlap',
          holderSeen,
          details: { buffered: ['2026-11-20T01:00'] },
        }),
        rec({
          slot: '2026-11-20T02:00',
          runId: 'r-full',
          outcome: 'skipped',
          reason: 'buffer-full',
          holderSeen,
          details: { buffered: ['2026-11-20T01:00'] },
        }),
        rec({
          slot: '2026-11-20T03:00',
          runId: 'r-wait',
          outcome: 'skipped',
          reason: 'waiting-for-previous',
          details: { waitingFor: '2026-11-20T02:00' },
        }),
      ],
    });
    expect(lines.map((l) => [l.slot, l.class, l.verdict])).toEqual([
      [
        '2026-11-20T00:00',
        'stale',
        'stale (replaced): a newer occurrence took the lease from run r-rep, fence 4 (overlap replace); its later writes and sends were refused; the sweeper re-runs this slot as unfinished once the lease is free (catch-up runs never replace)',
      ],
      [
        '2026-11-20T01:00',
        'skipped',
        'delivered, buffered behind run r-hold (slot 2026-11-20T00:00) (overlap buffer-one / buffer-all; waiting: 2026-11-20T01:00): it runs once that run releases the lease, started by the release or the sweeper, whichever is first',
      ],
      [
        '2026-11-20T02:00',
        'skipped',
        'skipped buffer-full behind run r-hold (slot 2026-11-20T00:00): the buffer already held 2026-11-20T01:00, so it was not buffered (a problem: SlotNotRun); the catch-up rule decides whether it runs, as for a missed slot',
      ],
      [
        '2026-11-20T03:00',
        'skipped',
        'delivered, not run yet: skipped waiting-for-previous (overlap after-previous): slot 2026-11-20T02:00 has not succeeded; the sweeper starts this one once it has, in slot order',
      ],
    ]);
    const tooLong = classifySlots({
      ...base,
      nowMs: DAY + 3 * 3_600_000 + 60_000,
      records: [
        rec({
          slot: '2026-11-20T03:00',
          runId: 'sweeper-x',
          outcome: 'skipped',
          reason: 'waiting-too-long',
          details: { waitingFor: '2026-11-20T02:00' },
        }),
      ],
    }).find((l) => l.slot === '2026-11-20T03:00');
    expect(tooLong?.verdict).toBe(
      'waiting-too-long (a problem: SlotNotRun): slot 2026-11-20T02:00 has not succeeded within overlap.waitingProblemAfterSeconds; this one still runs once it has (see cronfence why on that slot)',
    );
  });

  it('lists occurrences before catchUp.since as not the job’s to run, and a DST-shifted one as the sweeper’s', () => {
    const berlin = enumerateSlots(
      { schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin', dstGap: 'shift' },
      Date.parse('2026-03-28T00:00:00Z'),
      Date.parse('2026-03-30T00:00:00Z'),
    );
    const lines = classifySlots({
      ...base,
      slots: berlin,
      dstGap: 'shift',
      timeZone: 'Europe/Berlin',
      fromMs: Date.parse('2026-03-28T00:00:00Z'),
      toMs: Date.parse('2026-03-30T00:00:00Z'),
      nowMs: Date.parse('2026-03-31T00:00:00Z'),
      floorMs: Date.parse('2026-03-29T00:00:00Z'),
      records: [],
    });
    expect(lines.map((l) => [l.slot, l.class, l.verdict])).toEqual([
      [
        '2026-03-28T02:30',
        'before-start',
        "before the job's start (catchUp.since 2026-03-29T00:00:00Z): not this job's to run",
      ],
      [
        '2026-03-29T02:30',
        'not-recorded',
        'DST gap: 02:30 does not exist in Europe/Berlin on 2026-03-29; shifted to 2026-03-29T01:00:00Z, run by the sweeper (no run recorded yet)',
      ],
    ]);
  });
});

describe('deliveryVerdict', () => {
  const none = { minute: {}, after: {} };
  it.each([
    [
      { schedule: { exists: false, mismatches: [] }, unreadable: [] },
      'never delivered: the schedule does not exist (deleted, or never deployed under this name)',
    ],
    [
      {
        schedule: {
          exists: true,
          state: 'ENABLED',
          mismatches: ['zone UTC deployed, Europe/Berlin defined'],
        },
        unreadable: [],
      },
      'never delivered as defined: the deployed schedule differs from the job definition (zone UTC deployed, Europe/Berlin defined)',
    ],
    [
      {
        scheduler: none,
        lambda: { minute: {}, after: { Throttles: 4, AsyncEventAge: 3_600_000 } },
        unreadable: [],
      },
      "handed to Lambda, throttled (Throttles 4, AsyncEventAge up to 3600 s): the event waits in Lambda's queue up to 6 h, then the DLQ",
    ],
    [
      { scheduler: { minute: { InvocationAttemptCount: 0 }, after: {} }, unreadable: [] },
      'never delivered: Scheduler made no attempt in that minute (InvocationAttemptCount 0)',
    ],
    [
      { unreadable: [{ source: 'schedule', reason: 'x' }] },
      'no record, and the evidence could not be read (schedule)',
    ],
  ])('judges %j', (evidence, verdict) => {
    expect(deliveryVerdict(evidence as never, DAY, DAY + 86_400_000)).toBe(verdict);
  });
});
