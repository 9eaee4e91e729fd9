/**
 * Drills about the lease holder: killed mid-run, renewals timing out, a pause longer than the lease
 * (with the clock running, and with the clock frozen), and the Lambda deadline reached mid-run.
 */

import { BusinessAttr } from '../../../lib/core/results.js';
import { forever } from '../../faults/pause-points.js';
import { on, timeoutError } from '../../faults/sdk-faults.js';
import { check, noWriteAfterFinish } from '../checks.js';
import type { Drill } from '../types.js';
import { leaseMs, nthCall, recordIs, recordOf, recordsMatch, show } from './helpers.js';

/** Holder killed before its 3rd insert-once write; a retry before and one after the lease's end. */
export const holderKilled: Drill = {
  name: 'holder-killed-mid-run',
  injected: 'holder A killed before its 3rd insert-once write; retry B at +30 s, retry C after the lease',
  expected:
    'B skipped lease-held naming A; C claims fence 2, marks A abandoned/not-released, inserts only the missing rows',
  async run(ctx) {
    const h = ctx.insertOnce;
    const a = ctx.stage.worker('A');
    const b = ctx.stage.worker('B');
    const c = ctx.stage.worker('C');
    a.pauses.add({
      name: 'kill before 3rd write',
      at: 'before-write',
      when: nthCall(3),
      action: async () => {
        a.kill();
        return forever();
      },
    });
    void ctx.send(a, h, { label: 'A holder' });
    const rb = ctx.send(b, h, { label: 'B retry (lease held)', attempt: 2, delayMs: 30_000 });
    const rc = ctx.send(c, h, { label: 'C retry (after lease)', attempt: 3, delayMs: leaseMs(h) + 5_000 });
    await ctx.stage.run();
    const [B, C] = [await rb, await rc];
    const records = await ctx.tables.runRecords(h.job.name);
    const aId = ctx.runIdsOf(a)[0];
    const A = recordOf(records, aId);
    const cRec = recordOf(records, C.summary?.runId);
    const details = (cRec?.details ?? {}) as { inserted?: number; existing?: number };
    return {
      observed: `A ${show(A)}; B ${show(recordOf(records, B.summary?.runId))} (holder ${B.summary?.holderSeen?.runId}); C ${show(cRec)} inserted=${details.inserted} existing=${details.existing}`,
      jobs: [h],
      checks: [
        recordIs('A (killed)', A, { outcome: 'abandoned', reason: 'not-released', fence: 1 }),
        recordIs('B', recordOf(records, B.summary?.runId), { outcome: 'skipped', reason: 'lease-held' }),
        check(
          'B names A as the holder',
          B.summary?.holderSeen?.runId === aId,
          `holderSeen ${B.summary?.holderSeen?.runId}`,
        ),
        recordIs('C', cRec, { outcome: 'succeeded', fence: 2 }),
        check(
          'C found the 2 rows A wrote and inserted the rest',
          details.existing === 2,
          `existing=${details.existing}`,
        ),
        recordsMatch([B, C], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** Every renewal request times out while the body is slow: the run must stop itself. */
export const renewalTimeout: Drill = {
  name: 'renewal-times-out',
  injected:
    'every renewal request of A times out (4 SDK attempts each) while its body takes 70 s; retry B at +75 s',
  expected:
    'A stops when its lease lapses: stale/lease-lost, no write after; B claims fence 2 and writes the report',
  async run(ctx) {
    const h = ctx.fenced;
    const a = ctx.stage.worker('A');
    const b = ctx.stage.worker('B');
    a.pauses.add({ name: 'slow body: 70 s', at: 'before-write', action: () => a.clock.sleep(70_000) });
    a.faults.add({
      name: 'renewal times out',
      match: on.renew,
      action: { kind: 'fail', error: () => timeoutError('injected: renewal timed out') },
      times: 1_000_000,
    });
    const ra = ctx.send(a, h, { label: 'A holder' });
    const rb = ctx.send(b, h, { label: 'B retry', attempt: 2, delayMs: 75_000 });
    await ctx.stage.run();
    const [A, B] = [await ra, await rb];
    const records = await ctx.tables.runRecords(h.job.name);
    const renewals = ctx.stage.recorder.events('renew').filter((e) => e.runId === A.summary?.runId);
    const items = await ctx.businessItems();
    return {
      observed: `A ${show(recordOf(records, A.summary?.runId))} after ${renewals.length} failed renewals; B ${show(recordOf(records, B.summary?.runId))}; report by ${items[0]?.[BusinessAttr.runId] === B.summary?.runId ? 'B' : String(items[0]?.[BusinessAttr.runId])}`,
      jobs: [h],
      checks: [
        recordIs('A', recordOf(records, A.summary?.runId), {
          outcome: 'stale',
          reason: 'lease-lost',
          fence: 1,
        }),
        check(
          'every renewal of A failed',
          renewals.length > 0 && renewals.every((r) => !r.ok),
          `${renewals.length} renewals, ${renewals.filter((r) => r.ok).length} ok`,
        ),
        noWriteAfterFinish(ctx.stage.recorder.entries),
        recordIs('B', recordOf(records, B.summary?.runId), { outcome: 'succeeded', fence: 2 }),
        check(
          'the report is B’s (fence 2)',
          items.length === 1 && items[0]?.[BusinessAttr.fence] === 2,
          items.map((i) => `fence=${i[BusinessAttr.fence]} runId=${i[BusinessAttr.runId]}`).join('; '),
        ),
        recordsMatch([A, B], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** A GC-like freeze longer than the lease, then resume. */
export function pausePastLease({ clockFrozen }: { clockFrozen: boolean }): Drill {
  return {
    name: clockFrozen ? 'pause-past-lease-clock-frozen' : 'pause-past-lease',
    injected: clockFrozen
      ? 'A frozen 90 s before its write with its clock frozen too (VM freeze; renewal in flight 5 s); B claims at +65 s'
      : 'A frozen 90 s before its write (GC pause; wall clock runs); B claims at +65 s and writes',
    expected: clockFrozen
      ? 'A’s write reaches DynamoDB and is refused by the fence (stored 2): A stale/stale-fence; report stays B’s'
      : 'A notices its lease lapsed on waking and does not write: A stale/lease-lost; report stays B’s',
    async run(ctx) {
      const h = ctx.fenced;
      const a = ctx.stage.worker('A');
      const b = ctx.stage.worker('B');
      a.pauses.add({
        name: 'freeze 90 s',
        at: 'before-write',
        action: () => a.suspend(90_000, { clockFrozen }),
      });
      if (clockFrozen)
        a.faults.add({
          name: 'renewal slow (5 s)',
          match: on.renew,
          action: { kind: 'delay', ms: 5_000 },
          times: 100,
        });
      const ra = ctx.send(a, h, { label: 'A holder' });
      const rb = ctx.send(b, h, { label: 'B retry', attempt: 2, delayMs: 65_000 });
      await ctx.stage.run();
      const [A, B] = [await ra, await rb];
      const records = await ctx.tables.runRecords(h.job.name);
      const items = await ctx.businessItems();
      const refused = ctx.stage.recorder
        .events('stale-write-rejected')
        .filter((e) => e.runId === A.summary?.runId);
      return {
        observed: `A ${show(recordOf(records, A.summary?.runId))}${refused.length ? ` (${refused[0]?.target})` : ''}; B ${show(recordOf(records, B.summary?.runId))}; report fence=${items[0]?.[BusinessAttr.fence]}`,
        jobs: [h],
        checks: [
          recordIs(
            'A',
            recordOf(records, A.summary?.runId),
            clockFrozen
              ? { outcome: 'stale', reason: 'stale-fence', fence: 1 }
              : { outcome: 'stale', reason: 'lease-lost', fence: 1 },
          ),
          ...(clockFrozen
            ? [
                check(
                  'DynamoDB refused A’s write with stored fence 2',
                  refused[0]?.storedFence === 2,
                  `stale-write-rejected: ${refused.map((r) => r.storedFence).join(',') || 'none'}`,
                ),
              ]
            : [noWriteAfterFinish(ctx.stage.recorder.entries)]),
          recordIs('B', recordOf(records, B.summary?.runId), { outcome: 'succeeded', fence: 2 }),
          check(
            'the report is B’s (fence 2)',
            items.length === 1 &&
              items[0]?.[BusinessAttr.runId] === B.summary?.runId &&
              items[0]?.[BusinessAttr.fence] === 2,
            items.map((i) => `fence=${i[BusinessAttr.fence]}`).join(';'),
          ),
          recordsMatch([A, B], records),
        ],
      };
    },
  };
}

/** The Lambda deadline arrives while the body is slow before its 3rd write. */
export const deadlineMidRun: Drill = {
  name: 'deadline-mid-run',
  injected: 'A’s body stalls before its 3rd insert-once write past the Lambda timeout; retry B after',
  expected:
    'A stops starting work at the deadline margin: failed/deadline, lease released, only 2 rows by A; B claims fence 2 and inserts the rest',
  async run(ctx) {
    const h = ctx.insertOnce;
    const a = ctx.stage.worker('A');
    const b = ctx.stage.worker('B');
    const timeoutMs = h.job.timeoutSeconds * 1000;
    a.pauses.add({
      name: 'stall past the timeout',
      at: 'before-write',
      when: nthCall(3),
      action: () => a.clock.sleep(timeoutMs + 10_000),
    });
    const ra = ctx.send(a, h, { label: 'A holder' });
    const rb = ctx.send(b, h, { label: 'B retry', attempt: 2, delayMs: timeoutMs + 20_000 });
    await ctx.stage.run();
    const [A, B] = [await ra, await rb];
    const records = await ctx.tables.runRecords(h.job.name);
    const aRec = recordOf(records, A.summary?.runId);
    const byA = (await ctx.businessItems()).filter((i) => i[BusinessAttr.runId] === A.summary?.runId);
    const bClaim = ctx.stage.recorder.events('claim-won').find((e) => e.runId === B.summary?.runId);
    const marked = ctx.stage.recorder.events('abandoned-marked');
    return {
      observed: `A ${show(aRec)} after ${(Number(aRec?.durationMs) / 1000).toFixed(1)} s, ${byA.length} rows; B ${show(recordOf(records, B.summary?.runId))}, previous holder ${bClaim?.previousRunId === A.summary?.runId ? 'A (released)' : 'unexpected'}`,
      jobs: [h],
      checks: [
        recordIs('A', aRec, { outcome: 'failed', reason: 'deadline', fence: 1 }),
        check(
          'A stopped before its timeout',
          Number(aRec?.durationMs) < timeoutMs,
          `durationMs ${aRec?.durationMs} < ${timeoutMs}`,
        ),
        check('A wrote 2 rows and started no new work', byA.length === 2, `${byA.length} rows by A`),
        noWriteAfterFinish(ctx.stage.recorder.entries),
        check(
          'A released its lease (B found it released, nothing abandoned)',
          bClaim?.previousRunId === A.summary?.runId && marked.length === 0,
          `previous ${bClaim?.previousRunId}, abandoned marks ${marked.length}`,
        ),
        recordIs('B', recordOf(records, B.summary?.runId), { outcome: 'succeeded', fence: 2 }),
        recordsMatch([A, B], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};
