/**
 * The explorer catches an operator resolve without its condition (unit: in memory): a deliberately
 * broken effect store resolves without checking the version the operator was shown or the holder's
 * lease, and sends `effect-resolve` with only its status clause; the `operator-race` histories find a
 * resolve accepted while the call under its key is in flight (and a payout executed twice), shrunk to
 * a small, replayable history.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackendWith } from '../../../harness/drills/explorer/backends.js';
import { explore, replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { MemoryClient } from '../../../harness/memory/index.js';
import { MemoryBackend } from '../../../harness/memory/memory-backend.js';
import type { EffectItem } from '../../../lib/core/effects.js';
import type { EffectResolution } from '../../../lib/core/ports.js';
import { TableEffectStore } from '../../../lib/store/effect-store.js';
import {
  effectResolve,
  RESOLVABLE_STATUSES,
} from '../../../lib/store/protocol/effect-operator-operations.js';
import { eq, or } from '../../../lib/store/protocol/expression.js';
import { type ProtocolBackend, type ProtocolRequest, perform } from '../../../lib/store/protocol/request.js';

/** `effect-resolve` as it was before it was conditioned: any resolvable status, no lease check. */
function unconditionedResolve(inner: ProtocolBackend): ProtocolBackend {
  return {
    send: (req: ProtocolRequest) =>
      inner.send(
        req.tag.name === 'effect-resolve'
          ? {
              ...req,
              writes: [
                { ...req.writes[0], condition: or(...RESOLVABLE_STATUSES.map((s) => eq('status', s))) },
              ],
            }
          : req,
      ),
    get: (table, key) => inner.get(table, key),
    query: (...args) => inner.query(...args),
  };
}

/** The effect store whose resolve neither checks what the operator was shown nor conditions its write. */
class UnconditionedEffectStore extends TableEffectStore {
  constructor(
    private readonly broken: ProtocolBackend,
    private readonly tableName: string,
    private readonly jobName: string,
  ) {
    super(broken, tableName, jobName);
  }

  override async resolve(r: EffectResolution): Promise<EffectItem> {
    const { expect: _shown, ...resolution } = r;
    const item = (await this.get(r.key)) as EffectItem;
    const shown = { ...item, leaseKey: undefined };
    return perform(this.broken, effectResolve, {
      table: this.tableName,
      job: this.jobName,
      ...resolution,
      shown,
    });
  }
}

const brokenResolve = memoryBackendWith((deps, p, db) => {
  const backend = unconditionedResolve(new MemoryBackend(new MemoryClient(db, { faults: p.faults })));
  return { ...deps, effects: (job: string) => new UnconditionedEffectStore(backend, deps.tableName, job) };
});

describe('history explorer: an operator resolve without its condition', () => {
  it('is caught in operator-race histories with a shrunk, replayable counterexample', async () => {
    const report = await explore({ runs: 3000, seed: 5, backend: brokenResolve, shape: { model: 'listed' } });
    expect(report.failure?.message).toMatch(/seed 5, path [\d:]+, after \d+ shrinks/);
    expect(report.failure?.message).toMatch(
      /I9 no operator resolve accepted while a call under its key was in flight|I5 every effect executed by the provider at most once/,
    );
    const history = report.failure?.history as HistorySpec;
    expect(history.shapes?.operatorRace).toBeDefined();
    const violated = report.failure?.checks.filter((c) => !c.ok).map((c) => c.name.slice(0, 2)) ?? [];
    const replayed = await replayHistory(history, brokenResolve);
    expect(replayed.filter((c) => !c.ok).map((c) => c.name.slice(0, 2))).toEqual(violated);
    // The same history holds every invariant with the conditioned resolve.
    expect((await replayHistory(history)).filter((c) => !c.ok)).toEqual([]);
    expect(history.deliveries.length).toBeLessThanOrEqual(4);
  }, 300_000);
});
