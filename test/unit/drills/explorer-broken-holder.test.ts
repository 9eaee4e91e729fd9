/**
 * The explorer catches the holder-only condition without the running state (unit: in memory): a
 * deliberately broken protocol backend strips `holderState = running` from every condition, and the
 * exploration finds a violation and shrinks it to a small, replayable history.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackendWith } from '../../../harness/drills/explorer/backends.js';
import { explore, replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { MemoryClient } from '../../../harness/memory/index.js';
import { MemoryBackend } from '../../../harness/memory/memory-backend.js';
import { TableEffectStore } from '../../../lib/store/effect-store.js';
import { TableLeaseStore } from '../../../lib/store/lease-store.js';
import type { Condition } from '../../../lib/store/protocol/expression.js';
import type { ProtocolBackend, ProtocolRequest } from '../../../lib/store/protocol/request.js';
import { TableResultStore } from '../../../lib/store/result-store.js';
import { TableRunStore } from '../../../lib/store/run-store.js';

/** The condition without any `holderState = running` clause (the broken condition the explorer must catch). */
function withoutRunning(c: Condition): Condition {
  if (c.kind === 'and' || c.kind === 'or')
    return {
      ...c,
      of: c.of
        .filter(
          (x) => !(x.kind === 'compare' && x.path === 'holderState' && x.op === '=' && x.value === 'running'),
        )
        .map(withoutRunning),
    };
  return c;
}

function broken(inner: ProtocolBackend): ProtocolBackend {
  return {
    send: (req: ProtocolRequest) =>
      inner.send({
        ...req,
        writes: req.writes.map((w) => ({
          ...w,
          condition: withoutRunning(w.condition),
        })) as unknown as ProtocolRequest['writes'],
      }),
    get: (table, key) => inner.get(table, key),
    query: (...args) => inner.query(...args),
  };
}

const brokenHolderOnly = memoryBackendWith((deps, p, db) => {
  const backend = broken(new MemoryBackend(new MemoryClient(db, { faults: p.faults })));
  return {
    ...deps,
    leases: new TableLeaseStore(backend, deps.tableName),
    runs: new TableRunStore(backend, deps.tableName),
    results: new TableResultStore(backend, deps.tableName),
    effects: (job: string) => new TableEffectStore(backend, deps.tableName, job),
  };
});

describe('history explorer: the holder-only condition without the running state', () => {
  it('is caught with a shrunk, replayable counterexample', async () => {
    const report = await explore({ runs: 1500, seed: 11, backend: brokenHolderOnly });
    expect(report.failure?.message).toMatch(/seed 11, path [\d:]+, after \d+ shrinks/);
    expect(report.failure?.message).toMatch(
      /I8 no lease revived after its release|I7 no provider call after/,
    );
    const violated = report.failure?.checks.filter((c) => !c.ok).map((c) => c.name.slice(0, 2)) ?? [];
    const replayed = await replayHistory(report.failure?.history as HistorySpec, brokenHolderOnly);
    expect(replayed.filter((c) => !c.ok).map((c) => c.name.slice(0, 2))).toEqual(violated);
    // The same history holds every invariant on the real protocol.
    expect((await replayHistory(report.failure?.history as HistorySpec)).filter((c) => !c.ok)).toEqual([]);
    expect(report.failure?.history.deliveries.length).toBeLessThanOrEqual(4);
  }, 300_000);
});
