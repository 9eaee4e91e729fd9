/**
 * A holder whose `succeeded` record landed, whose release then found a successor, and whose correction
 * of the record could not be written (unit: in memory, the explorer's Lambda model). Found by
 * `npm run explore -- --runs 20000 --seed 2` (history 6106, shrunk): the handler reported `failed`
 * while the table said `succeeded`. The summary now says what the stored record says.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';

// W0 runs manual shard#8 (ex-shard 00:40) and records `succeeded` at once; its release is slow
// (61.4 s, past the 60 s lease); W1's duplicate claims at the lease's end, its abandoned mark is refused
// (the record exists); W0's release is refused and its correction to `stale / lease-lost` meets a
// partition (61.68 s).
const SPEC: HistorySpec = {
  skewsMs: [0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 0,
  deliveries: [
    { job: 'shard', slot: 8, worker: 1, delayMs: 21401, attempt: 1, manual: true },
    { job: 'shard', slot: 8, worker: 0, delayMs: 0, attempt: 1, manual: true },
    { job: 'report', slot: 8, worker: 0, delayMs: 0, attempt: 1, manual: true },
    { job: 'report', slot: 0, worker: 0, delayMs: 1500000, attempt: 1, manual: true },
    { job: 'report', slot: 0, worker: 1, delayMs: 260000, attempt: 1, manual: true },
  ],
  faults: [
    { kind: 'partition', worker: 0, ms: 61000 },
    { kind: 'slow-request', worker: 0, op: 'release', ms: 61401 },
    { kind: 'partition', worker: 0, ms: 61682 },
  ],
  lambda: true,
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

describe('history explorer: a displaced holder whose record correction cannot be written', () => {
  it('reports `succeeded`, as its stored record says, and every invariant holds', async () => {
    expect((await replayHistory(SPEC)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SPEC, memoryBackend, {});
    const manual = o.results.filter((r) => r.delivery.label.startsWith('manual shard#8'));
    const records = new Map(o.records.map((r) => [String(r.runId), r]));
    // The two manual deliveries and the Lambda retry none of them needs any more: W0 (slow release,
    // correction cut off), W1 (claimed at W0's lease end), and no retry of W0.
    expect(manual.map((r) => [r.delivery.label, r.summary?.outcome])).toEqual([
      ['manual shard#8', 'succeeded'],
      ['manual shard#8', 'succeeded'],
    ]);
    for (const r of manual) expect(records.get(String(r.summary?.runId))?.outcome).toBe('succeeded');
  });
});
