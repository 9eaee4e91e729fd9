/**
 * The explorer's operator backfills under the overlap shapes (unit: in memory, the explorer's Lambda
 * model): the history generator draws backfills and triggers by itself (some arriving while the settle
 * job's first holder is live, some delivered twice), and a backfill of slots 00:05 and 00:10, sent at
 * +10:30 while the 00:00 holder is stuck (800 s before its first write) and sent again 10 s later,
 * ends as each policy says, with every invariant holding: buffered (one, or both under buffer-all) and
 * started once the holder released, the duplicate not buffered twice; the stuck holder replaced; or
 * waiting for 00:00 and then run by the sweeper in slot order, one per sweep.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import { type HistorySpec, historyArbitrary } from '../../../harness/drills/explorer/history.js';
import { backfillSlots } from '../../../harness/drills/explorer/overlap-backfill.js';
import { overlapShapesOf } from '../../../harness/drills/explorer/overlap-shape.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';
import type { OverlapPolicyName } from '../../../lib/core/overlap.js';

const T0 = Date.parse('2026-01-05T00:00:00Z');

function spec(policy: OverlapPolicyName): HistorySpec {
  return {
    skewsMs: [0, 0],
    provider: { idempotencyKeys: true, lookup: false, dropResponses: [] },
    workMs: 0,
    deliveries: [{ job: 'settle', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: false }],
    faults: [],
    lambda: true,
    overlap: {
      policy,
      ...(policy === 'buffer-all' && { maxBuffered: 2 }),
      catchUp: policy === 'after-previous' ? 'all' : 'latest',
      stuck: { worker: 0, ms: 800_000 },
      backfill: {
        fromSlot: 1,
        count: 2,
        anchor: 'start',
        offsetMs: 630_000,
        worker: 1,
        duplicateAfterMs: 10_000,
      },
    },
    lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
  };
}

describe('history explorer: operator backfills under the overlap shapes', () => {
  it('draws backfills and triggers by itself, some delivered twice, within the past slots', () => {
    const specs = fc.sample(historyArbitrary({ model: 'lambda' }), { seed: 3, numRuns: 400 });
    const backfills = specs.flatMap((s) => (s.overlap?.backfill ? [s.overlap.backfill] : []));
    const shapes = new Set(specs.flatMap((s) => overlapShapesOf(s.overlap)));
    expect([...shapes].filter((x) => /backfill|trigger/.test(x)).sort()).toEqual([
      'overlap-backfill',
      'overlap-backfill-duplicate',
      'overlap-trigger',
    ]);
    expect(backfills.length).toBeGreaterThan(20);
    expect(backfills.some((b) => b.anchor === 'first-settle')).toBe(true);
    // A range is cut to the slots past when it arrives (slot k is k × 5 minutes after the start).
    const range = { anchor: 'start', offsetMs: 0, worker: 0 } as const;
    expect(backfillSlots({ ...range, fromSlot: 5, count: 4 }, 2 * 300_000 + 1)).toEqual([2]);
    expect(backfillSlots({ ...range, fromSlot: 1, count: 3 }, 10 * 300_000)).toEqual([1, 2, 3]);
  });

  it.each<[OverlapPolicyName, string[]]>([
    [
      'buffer-one',
      [
        '00:00 schedule succeeded/- fence 1 at 0 s',
        '00:05 manual buffered/overlap fence - at 630 s',
        '00:10 manual skipped/buffer-full fence - at 630 s',
        '00:05 manual skipped/lease-held fence - at 640 s',
        '00:10 manual skipped/buffer-full fence - at 640 s',
        '00:05 catch-up succeeded/- fence 2 at 901 s',
      ],
    ],
    [
      'buffer-all',
      [
        '00:00 schedule succeeded/- fence 1 at 0 s',
        '00:05 manual buffered/overlap fence - at 630 s',
        '00:10 manual buffered/overlap fence - at 630 s',
        '00:05 manual skipped/lease-held fence - at 640 s',
        '00:10 manual skipped/lease-held fence - at 640 s',
        '00:05 catch-up succeeded/- fence 2 at 901 s',
        '00:10 catch-up succeeded/- fence 3 at 901 s',
      ],
    ],
    [
      'replace',
      [
        '00:00 schedule stale/replaced fence 1 at 0 s',
        '00:05 manual succeeded/- fence 2 at 630 s',
        '00:10 manual succeeded/- fence 3 at 630 s',
        '00:05 manual succeeded/- fence 4 at 640 s',
        '00:10 manual succeeded/- fence 5 at 640 s',
        '00:00 catch-up succeeded/- fence 6 at 901 s',
      ],
    ],
    [
      'after-previous',
      [
        '00:00 schedule succeeded/- fence 1 at 0 s',
        '00:05 manual skipped/waiting-for-previous fence - at 630 s',
        '00:10 manual skipped/waiting-for-previous fence - at 630 s',
        '00:05 manual skipped/waiting-for-previous fence - at 640 s',
        '00:10 manual skipped/waiting-for-previous fence - at 640 s',
        '00:05 catch-up succeeded/- fence 2 at 901 s',
        '00:10 catch-up skipped/waiting-too-long fence - at 1800 s',
        '00:10 catch-up succeeded/- fence 3 at 1801 s',
      ],
    ],
  ])(
    'under %s, a backfill sent twice while the holder is stuck ends as the policy says',
    async (policy, expected) => {
      const s = spec(policy);
      expect((await replayHistory(s)).filter((c) => !c.ok)).toEqual([]);
      const o = await runHistory(s, memoryBackend, {});
      const early = o.records
        .filter((r) => r.job === 'ex-settle' && String(r.slot).slice(11, 16) <= '00:10')
        .sort((a, b) => Number(a.startedAtMs) - Number(b.startedAtMs))
        .map(
          (r) =>
            `${String(r.slot).slice(11, 16)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} fence ${r.fence ?? '-'} at ${Math.round((Number(r.startedAtMs) - T0) / 1000)} s`,
        );
      expect(early).toEqual(expected);
      const backfillRuns = o.records.filter((r) => r.requestedBy === 'explorer-backfill');
      expect(backfillRuns.map((r) => r.requestReason)).toEqual(Array(4).fill('explorer backfill'));
      expect(overlapShapesOf(s.overlap, o.records)).toEqual([
        `overlap-${policy}`,
        'overlap-backfill',
        'overlap-backfill-duplicate',
        'overlap-backfill-under-holder',
      ]);
    },
    60_000,
  );
});
