/**
 * Where an after-previous chain starts (unit: in memory, the explorer's Lambda model). Found by `npm run
 * explore -- --runs 20000 --seed 2` (history 19696, shrunk): slot 00:05 of a schedule whose first slot
 * is 00:00 is run by hand at 00:08, before 00:00 was ever delivered. "Nothing succeeded yet" let it
 * claim, so 00:05 ran first, and then 00:00 (the job's first slot, no predecessor, caught up by the
 * sweeper) ran after it: day N before day N−1. Now:
 * - with `catchUp.since` the chain starts at the job's first slot: 00:05 waits, 00:00 runs first;
 * - without, it starts at the first success (00:05) and the slot before it is held back for good
 *   (`skipped / waiting-for-previous`, then the counted `waiting-too-long` problem), never run after it.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';

const SPEC = {
  skewsMs: [0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 0,
  deliveries: [
    { job: 'settle', slot: 1, worker: 1, delayMs: 180500, attempt: 1, manual: true },
    { job: 'settle', slot: 1, worker: 0, delayMs: 1500000, attempt: 1, manual: true },
    { job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
  ],
  faults: [
    { kind: 'throttle', worker: 1, op: 'run-record', times: 20 },
    { kind: 'partition', worker: 1, ms: 61000 },
  ],
  lambda: true,
  overlap: { policy: 'after-previous', stuck: { worker: 7, ms: 360000 }, catchUp: 'all' },
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

const WITH_SINCE = { ...SPEC, overlap: { ...SPEC.overlap, since: true } } as HistorySpec;

const firstTwoOf = (o: Awaited<ReturnType<typeof runHistory>>) =>
  o.records
    .filter((r) => r.job === 'ex-settle' && ['00:00', '00:05'].includes(String(r.slot).slice(11, 16)))
    .map(
      (r) =>
        `${String(r.slot).slice(11, 16)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} fence ${r.fence ?? '-'}`,
    )
    .sort();

/** The slots that succeeded, in the order of their fences. */
const succeededInFenceOrder = (o: Awaited<ReturnType<typeof runHistory>>) =>
  o.records
    .filter((r) => r.job === 'ex-settle' && r.outcome === 'succeeded')
    .sort((a, b) => Number(a.fence) - Number(b.fence))
    .map((r) => String(r.slot));

describe('history explorer: where an after-previous chain starts', () => {
  it('without catchUp.since: starts at the first success (00:05) and never runs 00:00 after it', async () => {
    expect((await replayHistory(SPEC)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SPEC, memoryBackend, {});
    expect(firstTwoOf(o)).toEqual([
      '00:00 catch-up skipped/waiting-for-previous fence -',
      '00:00 catch-up skipped/waiting-for-previous fence -',
      '00:00 catch-up skipped/waiting-too-long fence -',
      '00:05 manual abandoned/not-released fence 1',
      '00:05 manual abandoned/not-released fence 2',
      '00:05 manual abandoned/not-released fence 3',
      '00:05 manual succeeded/- fence 4',
    ]);
    const succeeded = succeededInFenceOrder(o);
    expect(succeeded).toHaveLength(23);
    expect(succeeded[0]).toBe('2026-01-05T00:05');
    expect([...succeeded].sort()).toEqual(succeeded);
  }, 60_000);

  it('with catchUp.since: runs 00:00 before 00:05 although 00:05 was delivered first', async () => {
    expect((await replayHistory(WITH_SINCE)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(WITH_SINCE, memoryBackend, {});
    const settle = o.records.filter((r) => r.job === 'ex-settle');
    const firstTwo = settle
      .filter((r) => ['00:00', '00:05'].includes(String(r.slot).slice(11, 16)))
      .map(
        (r) =>
          `${String(r.slot).slice(11, 16)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} fence ${r.fence ?? '-'}`,
      )
      .sort();
    expect(firstTwo).toEqual([
      '00:00 catch-up succeeded/- fence 1',
      '00:05 catch-up skipped/already-succeeded fence -',
      '00:05 manual succeeded/- fence 2',
    ]);
    // Every slot of the bounded schedule succeeded once, and their fences rise in slot order.
    const succeeded = succeededInFenceOrder(o);
    expect(succeeded).toHaveLength(24);
    expect([...succeeded].sort()).toEqual(succeeded);
  }, 60_000);
});
