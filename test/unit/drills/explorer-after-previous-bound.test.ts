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

// Manual runs of 00:00, 00:10 and (4 min late) 00:15: both wait for 00:05, pass their bound, and are
// recorded waiting-too-long by the sweeper under its one run id; then the chain runs in slot order.
// Found by `npm run explore -- --runs 20000 --seed 1` on merged main (I3 counted the sweeper's two
// records as one invocation's).
const TWO_WAITING = {
  skewsMs: [0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 0,
  deliveries: [
    { job: 'settle', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
    { job: 'settle', slot: 2, worker: 0, delayMs: 0, attempt: 1, manual: true },
    { job: 'settle', slot: 3, worker: 0, delayMs: 260000, attempt: 1, manual: true },
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

  it("keeps the sweeper's waiting-too-long records of two slots apart from invocations (I3 holds)", async () => {
    expect((await replayHistory(TWO_WAITING)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(TWO_WAITING, memoryBackend, {});
    const waiting = o.records
      .filter((r) => r.job === 'ex-settle' && r.reason === 'waiting-too-long')
      .map((r) => `${String(r.slot).slice(11, 16)} ${String(r.runId)}`)
      .sort();
    expect(waiting).toEqual(['00:10 sweeper-waiting-too-long', '00:15 sweeper-waiting-too-long']);
    const ran = o.records
      .filter((r) => r.job === 'ex-settle' && r.outcome === 'succeeded')
      .map((r) => String(r.slot).slice(11, 16));
    expect(ran).toHaveLength(24);
  }, 60_000);
});
