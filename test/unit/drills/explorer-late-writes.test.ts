/**
 * Two writes of a holder that land after the protocol moved on (unit: in memory, the explorer's Lambda
 * model), each found by `npm run explore -- --runs 20000` and shrunk:
 *
 * - seed 1, history 8327 (skip): a trigger's holder sent a renewal at +20 s that the network held for
 *   61 s; the lease keeper gave it up and its next renewals extended the lease to +142 s, but the held
 *   renewal was still delivered after them and set the lease's end back to +81 s, so the trigger's
 *   duplicate claimed the lease at +82 s while the holder counted on it for 60 s more (O1). A renewal
 *   now only extends (`leaseUntilMs < :until`); one that would not is a no-op for its holder.
 * - seed 2, history 15919 (replace): a trigger of 00:10 displaced the sweeper's catch-up run of 00:05
 *   39 ms before that run's next insert-once, of a row of its own slot that no other run writes, so the
 *   row's condition (`attribute_not_exists`) let it in (O2). Under `replace` a business write checks
 *   the lease in the same transaction.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';

const SLOW_RENEWAL = {
  skewsMs: [0, 0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 0,
  deliveries: [{ job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true }],
  faults: [{ kind: 'slow-request', worker: 1, op: 'renew', ms: 61000 }],
  lambda: true,
  overlap: {
    policy: 'skip',
    catchUp: 'all',
    backfill: {
      fromSlot: 0,
      count: 1,
      anchor: 'first-settle',
      offsetMs: 1000,
      worker: 1,
      duplicateAfterMs: 81000,
    },
  },
  lambdaShapes: {
    timeoutKill: { worker: 1, at: 'after-claim', ms: 121000 },
    freezeUntilNext: false,
    parallelBody: false,
    mixedWrites: false,
  },
} as HistorySpec;

const DISPLACED_OWN_ROW = {
  skewsMs: [0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 0,
  deliveries: [
    { job: 'settle', slot: 0, worker: 0, delayMs: 300501, attempt: 1, manual: true },
    { job: 'report', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
  ],
  faults: [],
  lambda: true,
  overlap: {
    policy: 'replace',
    catchUp: 'all',
    backfill: { fromSlot: 2, count: 1, anchor: 'first-settle', offsetMs: 600000, worker: 0 },
  },
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

const T0 = Date.parse('2026-01-05T00:00:00Z');

describe('history explorer: a holder’s write landing after the protocol moved on', () => {
  it('a renewal held in the network past later ones does not shorten the lease: the duplicate trigger is skipped lease-held', async () => {
    expect((await replayHistory(SLOW_RENEWAL)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SLOW_RENEWAL, memoryBackend, {});
    const settle = o.records
      .filter((r) => r.job === 'ex-settle' && r.trigger === 'manual')
      .map(
        (r) =>
          `${String(r.slot).slice(11)} ${r.outcome}/${r.reason ?? '-'} f${r.fence ?? '-'} at ${(Date.parse(String(r.startedAt)) - T0) / 1000} s`,
      );
    expect(settle.sort()).toEqual(['00:00 skipped/lease-held f- at 82 s', '00:00 succeeded/- f1 at 1 s']);
  }, 60_000);

  it('under replace, a displaced holder’s insert-once of its own slot’s row is refused by the lease check', async () => {
    expect((await replayHistory(DISPLACED_OWN_ROW)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(DISPLACED_OWN_ROW, memoryBackend, {});
    const early = o.records
      .filter((r) => r.job === 'ex-settle' && Date.parse(String(r.startedAt)) - T0 < 1_000_000)
      .map(
        (r) => `${String(r.slot).slice(11)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} f${r.fence ?? '-'}`,
      );
    expect(early).toEqual([
      '00:00 manual succeeded/- f1',
      '00:05 catch-up stale/replaced f2',
      '00:10 manual succeeded/- f3',
    ]);
    // The displaced run's second insert-once reached the store and was refused there, in its transaction.
    const refused = o.entries.filter(
      (e) => e.kind === 'request' && e.op === 'insert-once' && e.key === '[["id","2026-01-05T00:05#1"]]',
    );
    expect(refused.map((e) => (e.kind === 'request' ? `${e.command} f${e.fence}` : ''))).toEqual([
      'TransactWriteItemsCommand f2',
      'TransactWriteItemsCommand f4',
    ]);
  }, 60_000);
});
