/**
 * An after-previous slot waiting behind a predecessor that failed for good (unit: in memory, the
 * explorer's Lambda model). Found by `npm run explore -- --runs 2000 --seed 2` (history 1582, shrunk):
 * slot 00:05 of the settle job ends `failed / effect-needs-review` (a provider without keys or lookup
 * whose response was lost), so 00:10, delivered 25 minutes late by hand, waits for it. The waiting slot
 * must become a counted problem once its bound (two 5-minute periods) has passed: the sweeper records
 * `skipped / waiting-too-long` once, and the liveness invariant holds.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';

const SPEC = {
  skewsMs: [0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [4] },
  workMs: 0,
  deliveries: [
    { job: 'settle', slot: 2, worker: 0, delayMs: 1500000, attempt: 1, manual: true },
    { job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
  ],
  faults: [],
  lambda: true,
  overlap: { policy: 'after-previous', catchUp: 'all' },
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

describe('history explorer: after-previous behind a predecessor that failed for good', () => {
  it('records the waiting slot skipped / waiting-too-long once, and every invariant holds', async () => {
    expect((await replayHistory(SPEC)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SPEC, memoryBackend, {});
    const rows = o.records
      .filter((r) => r.job === 'ex-settle')
      .map((r) => `${String(r.slot).slice(11, 16)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'}`)
      .sort();
    expect(rows).toEqual([
      '00:00 catch-up succeeded/-',
      '00:05 catch-up failed/effect-needs-review',
      '00:05 catch-up failed/effect-needs-review',
      '00:05 catch-up failed/error',
      '00:10 catch-up skipped/waiting-too-long',
      '00:10 manual skipped/waiting-for-previous',
    ]);
  }, 60_000);
});
