/**
 * Clock-skew drills: one worker 40 s fast, one 40 s slow (80 s apart — far beyond the documented
 * budget, docs/clock-skew.md). Safety must not depend on clocks: mutual exclusion may break, but no
 * stale write may be accepted; liveness (how soon a dead holder is replaced) pays for the skew.
 */

import { BusinessAttr } from '../../../lib/core/results.js';
import { forever } from '../../faults/pause-points.js';
import { check } from '../checks.js';
import type { Drill } from '../types.js';
import { leaseMs, recordIs, recordOf, recordsMatch, show } from './helpers.js';

const SKEW_MS = 40_000;

/** The slow worker holds; the fast one sees the lease expired 40 s early and claims. */
export const fastClaimsOverSlow: Drill = {
  name: 'clock-skew-fast-claims-over-slow',
  injected:
    'S (clock 40 s slow) holds the report lease, its body takes 10 s; F (clock 40 s fast) retries 5 s later',
  expected:
    'F takes the lease early (exclusion lost: skew beyond budget) and writes fence 2; S’s write is refused by the fence: stale/stale-fence',
  async run(ctx) {
    const h = ctx.fenced;
    const s = ctx.stage.worker('S', -SKEW_MS);
    const f = ctx.stage.worker('F', SKEW_MS);
    s.pauses.add({ name: 'slow body: 10 s', at: 'before-write', action: () => s.clock.sleep(10_000) });
    const rs = ctx.send(s, h, { label: 'S holder' });
    const rf = ctx.send(f, h, { label: 'F retry', attempt: 2, delayMs: 5_000 });
    await ctx.stage.run();
    const [S, F] = [await rs, await rf];
    const records = await ctx.tables.runRecords(h.job.name);
    const items = await ctx.businessItems();
    const refused = ctx.stage.recorder
      .events('stale-write-rejected')
      .filter((e) => e.runId === S.summary?.runId);
    const fClaim = ctx.stage.recorder.entries.find(
      (e) => e.kind === 'runtime' && e.event.type === 'claim-won' && e.worker === 'F',
    );
    const sClaim = ctx.stage.recorder.events('claim-won').find((e) => e.runId === S.summary?.runId);
    const overlapS = sClaim ? (sClaim.leaseUntilMs + SKEW_MS - Number(fClaim?.atMs)) / 1000 : Number.NaN;
    return {
      observed: `F claimed while S's lease had ${overlapS.toFixed(0)} s left; S ${show(recordOf(records, S.summary?.runId))} (stored fence ${refused[0]?.storedFence}); F ${show(recordOf(records, F.summary?.runId))}`,
      jobs: [h],
      checks: [
        recordIs('S', recordOf(records, S.summary?.runId), {
          outcome: 'stale',
          reason: 'stale-fence',
          fence: 1,
        }),
        check(
          'DynamoDB refused S’s write (stored fence 2)',
          refused[0]?.storedFence === 2,
          `storedFence ${refused[0]?.storedFence}`,
        ),
        recordIs('F', recordOf(records, F.summary?.runId), { outcome: 'succeeded', fence: 2 }),
        check(
          'the report is F’s',
          items.length === 1 && items[0]?.[BusinessAttr.runId] === F.summary?.runId,
          items.map((i) => `fence=${i[BusinessAttr.fence]}`).join(';'),
        ),
        recordsMatch([S, F], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** The fast worker holds and dies; the slow one waits 80 s more than the lease before taking over. */
export const slowWaitsForFast: Drill = {
  name: 'clock-skew-slow-waits-for-fast',
  injected:
    'F (clock 40 s fast) claims and is killed; S (clock 40 s slow) retries at lease+10 s and lease+90 s',
  expected:
    'S’s first retry still sees the lease held by its slow clock; F stopped renewing, so S waits until the lease ends by its own clock (not skipped: F may be dead), takes over fence 2 and marks F abandoned; the second retry is skipped already-succeeded',
  async run(ctx) {
    const h = ctx.insertOnce;
    const f = ctx.stage.worker('F', SKEW_MS);
    const s = ctx.stage.worker('S', -SKEW_MS);
    const s2 = ctx.stage.worker('S2', -SKEW_MS);
    f.pauses.add({
      name: 'kill after claim',
      at: 'after-claim',
      action: async () => {
        f.kill();
        return forever();
      },
    });
    void ctx.send(f, h, { label: 'F holder' });
    const r1 = ctx.send(s, h, { label: 'S retry 1', attempt: 2, delayMs: leaseMs(h) + 10_000 });
    const r2 = ctx.send(s2, h, { label: 'S retry 2', attempt: 3, delayMs: leaseMs(h) + 90_000 });
    await ctx.stage.run();
    const [R1, R2] = [await r1, await r2];
    const records = await ctx.tables.runRecords(h.job.name);
    const fId = ctx.runIdsOf(f)[0];
    return {
      observed: `S retry 1 ${show(recordOf(records, R1.summary?.runId))}; S retry 2 ${show(recordOf(records, R2.summary?.runId))}; F ${show(recordOf(records, fId))}`,
      jobs: [h],
      checks: [
        recordIs(
          'S retry 1 (true time past F’s lease, S’s clock not: waits, then takes over)',
          recordOf(records, R1.summary?.runId),
          { outcome: 'succeeded', fence: 2 },
        ),
        recordIs('S retry 2', recordOf(records, R2.summary?.runId), {
          outcome: 'skipped',
          reason: 'already-succeeded',
        }),
        recordIs('F (killed)', recordOf(records, fId), {
          outcome: 'abandoned',
          reason: 'not-released',
          fence: 1,
        }),
        recordsMatch([R1, R2], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};
