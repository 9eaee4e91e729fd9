/**
 * The explorer catches a restore of the library table without the restore procedure (unit: in
 * memory): the broken backend restores the backup but neither raises the fences nor marks the leases,
 * so a re-run of a slot whose effect record went with the restore sends it again. The exploration
 * finds the double execution and shrinks it to a small history that holds on the real procedure.
 */
import { describe, expect, it } from 'vitest';
import { type BackendFactory, memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { explore, replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';

/** The in-memory store whose restore skips the procedure (no fence headroom, no restore mark). */
const restoreWithoutProcedure: BackendFactory = async (now) => {
  const b = await memoryBackend(now);
  const backup = b.backupLibrary;
  return {
    ...b,
    ...(backup && {
      backupLibrary: () => {
        const restore = backup();
        return (mark) => restore({ ...mark, fenceHeadroom: 0, restoredAtMs: undefined as unknown as number });
      },
    }),
  };
};

describe('history explorer: a restore without the restore procedure', () => {
  it('is caught (a provider executes an effect twice) with a shrunk counterexample that holds with the procedure', async () => {
    const report = await explore({
      runs: 2000,
      seed: 7,
      backend: restoreWithoutProcedure,
      shape: { model: 'listed' },
    });
    expect(report.failure?.message).toMatch(/seed 7, path [\d:]+, after \d+ shrinks/);
    expect(report.failure?.message).toMatch(/I5 every effect executed by the provider at most once/);
    const history = report.failure?.history as HistorySpec;
    expect(history.shapes?.lifecycle?.kind).toBe('restore');
    const replayed = await replayHistory(history, restoreWithoutProcedure);
    expect(replayed.filter((c) => !c.ok).map((c) => c.name.slice(0, 2))).toContain('I5');
    // The same history holds every invariant with the procedure (fences raised, leases marked).
    expect((await replayHistory(history)).filter((c) => !c.ok)).toEqual([]);
  }, 300_000);
});
