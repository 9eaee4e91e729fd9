/**
 * The explorer catches an overlap policy the protocol does not enforce (unit: in memory): the broken
 * variant `overlap-ignored` runs the settle job as `skip` while the invariants judge it by its policy,
 * and the exploration finds a slot that succeeded before its predecessor under after-previous (O3),
 * shrunk to a small history whose O3 and every safety invariant hold on the real protocol.
 */
import { describe, expect, it } from 'vitest';
import { explore, replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';

describe('history explorer: an overlap policy the protocol ignores', () => {
  it('is caught by O3 with a shrunk, replayable after-previous history', async () => {
    const report = await explore({ runs: 60, seed: 1, variant: 'overlap-ignored' });
    expect(report.failure?.message).toMatch(/seed 1, path [\d:]+, after \d+ shrinks/);
    const history = report.failure?.history as HistorySpec;
    expect(history.overlap?.policy).toBe('after-previous');
    const violated = report.failure?.checks.filter((c) => !c.ok).map((c) => c.name) ?? [];
    expect(violated).toEqual(['O3 under after-previous, no slot succeeds before its predecessor']);
    const replayed = await replayHistory(history, undefined, { variant: 'overlap-ignored' });
    expect(replayed.filter((c) => !c.ok).map((c) => c.name)).toEqual(violated);
    const real = await replayHistory(history);
    expect(real.filter((c) => !c.ok && c.name !== 'liveness').map((c) => c.name)).toEqual([]);
    expect(history.deliveries.length).toBeLessThanOrEqual(3);
  }, 600_000);
});
