/**
 * Catch-up under `replace` (unit: in memory, the explorer's Lambda model). Found by `npm run explore --
 * --overlap replace --runs 1500 --seed 5` once O5 (an arrival never yields to a live holder of an older
 * slot) was added, shrunk to no settle delivery at all: the sweeper's catch-up `all` starts every missed
 * slot at once; each replaced the one before, so most ended `stale / replaced` or `stale-fence`, runs
 * raced to replace the same holder and yielded (`skipped / overlap` behind a live older holder), and the
 * next sweep started them all again. A catch-up run re-runs a past slot: it does not replace; it is
 * skipped behind the live holder, and the sweeps run the slots one after another in slot order.
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
  deliveries: [{ job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true }],
  faults: [],
  lambda: true,
  overlap: { policy: 'replace', catchUp: 'all' },
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

describe('history explorer: catch-up under replace', () => {
  it('runs the missed slots once each in slot order; catch-up runs skip behind a live holder, never replace it', async () => {
    expect((await replayHistory(SPEC)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SPEC, memoryBackend, {});
    const settle = o.records.filter((r) => r.job === 'ex-settle');
    expect(settle.filter((r) => r.outcome === 'stale')).toEqual([]);
    const ran = settle
      .filter((r) => r.outcome === 'succeeded')
      .sort((a, b) => Number(a.fence) - Number(b.fence))
      .map((r) => `${String(r.slot).slice(11, 16)} f${r.fence}`);
    expect(ran.slice(0, 4)).toEqual(['00:00 f1', '00:05 f2', '00:10 f3', '00:15 f4']);
    expect(ran).toHaveLength(24);
    expect(new Set(settle.map((r) => `${r.outcome}/${r.reason ?? '-'}`))).toEqual(
      new Set(['succeeded/-', 'skipped/overlap']),
    );
  }, 60_000);

  it('a manual copy of a slot that already succeeded, meeting a live older holder, replaces no one (O5 holds)', async () => {
    // Found by `npm run explore -- --runs 20000 --seed 2` (history 8840, shrunk).
    const copy = {
      ...SPEC,
      deliveries: [
        { job: 'settle', slot: 2, worker: 0, delayMs: 300501, attempt: 1, manual: true },
        { job: 'settle', slot: 2, worker: 0, delayMs: 0, attempt: 1, manual: true },
        { job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
      ],
    } as HistorySpec;
    expect((await replayHistory(copy)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(copy, memoryBackend, {});
    const of10 = o.records
      .filter((r) => r.job === 'ex-settle' && String(r.slot).endsWith('00:10'))
      .map((r) => `${r.trigger} ${r.outcome}/${r.reason ?? '-'} f${r.fence ?? '-'}`)
      .sort();
    expect(of10).toEqual(['manual skipped/overlap f-', 'manual succeeded/- f1']);
  }, 60_000);
});
