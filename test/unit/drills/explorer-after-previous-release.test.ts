/**
 * After-previous when a success's release never lands (unit: in memory, the explorer's Lambda model).
 * Found by `npm run explore -- --runs 20000 --seed 2` (history 16015, shrunk): a trigger of 00:10 was the
 * job's first run; it recorded `succeeded`, but its release was throttled every time, so the lease knew
 * of no success; the sweeper's catch-up of 00:00 took the expired lease on "nothing succeeded yet" and
 * succeeded after the chain had started at 00:10 (O3). The claimer now finds 00:10's own succeeded
 * record (its abandoned mark refused), counts it done, records 00:00 waiting-for-previous, and its
 * release adds 00:10 to the done set: the chain goes on from 00:15, in slot order.
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
  faults: [{ kind: 'throttle', worker: 0, op: 'release', times: 20 }],
  lambda: true,
  overlap: {
    policy: 'after-previous',
    catchUp: 'all',
    backfill: { fromSlot: 2, count: 1, anchor: 'first-settle', offsetMs: 600000, worker: 0 },
  },
  lambdaShapes: { freezeUntilNext: false, parallelBody: false, mixedWrites: false },
} as HistorySpec;

/** The settle job's first five records in start order: `hh:mm trigger outcome/reason f<fence>`. */
function firstSettleRecords(o: Awaited<ReturnType<typeof runHistory>>): string[] {
  return o.records
    .filter((r) => r.job === 'ex-settle')
    .sort((a, b) => String(a.startedAt).localeCompare(String(b.startedAt)))
    .slice(0, 5)
    .map(
      (r) => `${String(r.slot).slice(11)} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} f${r.fence ?? '-'}`,
    );
}

describe('history explorer: after-previous, a success whose release never landed', () => {
  it('counts it done for the next claimer: the earlier slot waits, the chain goes on in slot order', async () => {
    expect((await replayHistory(SPEC)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(SPEC, memoryBackend, {});
    expect(firstSettleRecords(o)).toEqual([
      '00:10 manual succeeded/- f1',
      '00:00 catch-up skipped/waiting-for-previous f2',
      '00:00 catch-up skipped/waiting-too-long f-',
      '00:15 catch-up succeeded/- f3',
      '00:20 catch-up succeeded/- f4',
    ]);
    const succeeded = o.records.filter((r) => r.job === 'ex-settle' && r.outcome === 'succeeded');
    expect(succeeded.filter((r) => String(r.slot).endsWith('00:00'))).toEqual([]);
    expect(new Set(succeeded.map((r) => r.slot)).size).toBe(succeeded.length);
  }, 60_000);

  it('an attempt whose record never landed is not a success: the chain starts at the first landed one', async () => {
    // Found by `npm run explore -- --runs 20000 --seed 2` (history 19696, shrunk): a manual run of 00:05,
    // the job's first, did its work but its record was throttled every time (and its retries' too);
    // 00:00 then succeeded first, and 00:05 after it. O3 had taken the first `recording succeeded`
    // event, the failed 00:05's, for the chain's start.
    const spec = {
      ...SPEC,
      deliveries: [{ job: 'settle', slot: 1, worker: 0, delayMs: 0, attempt: 1, manual: true }],
      faults: [{ kind: 'throttle', worker: 0, op: 'run-record', times: 20 }],
      overlap: { policy: 'after-previous', catchUp: 'all' },
    } as HistorySpec;
    expect((await replayHistory(spec)).filter((c) => !c.ok)).toEqual([]);
    const o = await runHistory(spec, memoryBackend, {});
    expect(firstSettleRecords(o)).toEqual([
      '00:05 manual abandoned/not-released f1',
      '00:05 manual abandoned/not-released f2',
      '00:05 manual failed/store-error f3',
      '00:00 catch-up succeeded/- f4',
      '00:05 catch-up succeeded/- f5',
    ]);
  }, 60_000);
});
