/**
 * Drills about deliveries and lost responses: one slot delivered 10 times concurrently and 3 times
 * late, a manual re-run of a settled date, and writes applied whose responses were lost.
 */
import { randomUUID } from 'node:crypto';
import type { JobHandler } from '../../../lib/runtime/define-job.js';
import { type FaultRequest, on } from '../../faults/sdk-faults.js';
import { check } from '../checks.js';
import type { Drill } from '../types.js';
import { recordIs, recordOf, recordsMatch, show, tally } from './helpers.js';

/** 10 concurrent copies (one Lambda request id) and 3 late Scheduler retries of one slot. */
export const duplicates: Drill = {
  name: 'duplicates-10-concurrent-3-late',
  injected:
    'one settlement slot delivered 10x at once (same request id, 10 environments) and 3x late (attempts 2-4)',
  expected:
    '1 succeeded; 9 skipped lease-held naming the winner; 3 skipped already-succeeded; 13 records; one row per merchant',
  async run(ctx) {
    const h = ctx.insertOnce;
    const requestId = randomUUID();
    const sends = [];
    for (let i = 0; i < 10; i++)
      sends.push(ctx.send(ctx.stage.worker(`W${i + 1}`), h, { label: `copy ${i + 1}`, requestId }));
    for (let i = 0; i < 3; i++)
      sends.push(
        ctx.send(ctx.stage.worker(`L${i + 1}`), h, {
          label: `late ${i + 1}`,
          attempt: i + 2,
          delayMs: (i + 1) * 300_000,
        }),
      );
    await ctx.stage.run();
    const results = await Promise.all(sends);
    const records = await ctx.tables.runRecords(h.job.name);
    const winner = results.find((r) => r.summary?.outcome === 'succeeded')?.summary;
    const held = results.filter((r) => r.summary?.reason === 'lease-held');
    const late = results.slice(10).filter((r) => r.summary?.reason === 'already-succeeded');
    return {
      observed: `${tally(results)}; ${records.length} records; winner ${winner?.runId} fence ${winner?.fence}`,
      jobs: [h],
      checks: [
        check(
          'exactly one copy succeeded',
          results.filter((r) => r.summary?.outcome === 'succeeded').length === 1,
          tally(results),
        ),
        check(
          '9 copies skipped lease-held naming the winner',
          held.length === 9 && held.every((r) => r.summary?.holderSeen?.runId === winner?.runId),
          `${held.length} lease-held, holders ${[...new Set(held.map((r) => r.summary?.holderSeen?.runId))].join(',')}`,
        ),
        check(
          '3 late retries skipped already-succeeded',
          late.length === 3,
          `${late.length} already-succeeded`,
        ),
        check('13 run records', records.length === 13, `${records.length} records`),
        recordsMatch(results, records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** An operator re-runs a settled date by hand. */
export const manualRerun: Drill = {
  name: 'manual-rerun-of-settled-date',
  injected: 'settlement slot succeeds; an hour later an operator sends trigger=manual (requestedBy, reason)',
  expected:
    'manual run claims past the done set (fence 2), records requestedBy, inserts 0 rows, finds every row existing',
  async run(ctx) {
    const h = ctx.insertOnce;
    const r1 = ctx.send(ctx.stage.worker('A'), h, { label: 'scheduled' });
    const r2 = ctx.send(ctx.stage.worker('OP'), h, {
      label: 'manual',
      delayMs: 3_600_000,
      extra: { trigger: 'manual', requestedBy: 'drill@cronfence', reason: 'auditor asked for a re-run' },
    });
    await ctx.stage.run();
    const [A, M] = [await r1, await r2];
    const records = await ctx.tables.runRecords(h.job.name);
    const m = recordOf(records, M.summary?.runId);
    const d = (m?.details ?? {}) as { inserted?: number; existing?: number };
    return {
      observed: `scheduled ${show(recordOf(records, A.summary?.runId))}; manual ${show(m)} by ${m?.requestedBy} inserted=${d.inserted} existing=${d.existing}`,
      jobs: [h],
      checks: [
        recordIs('scheduled run', recordOf(records, A.summary?.runId), { outcome: 'succeeded', fence: 1 }),
        recordIs('manual run', m, { outcome: 'succeeded', fence: 2 }),
        check(
          'manual record names who and why',
          m?.trigger === 'manual' &&
            m?.requestedBy === 'drill@cronfence' &&
            m?.requestReason === 'auditor asked for a re-run',
          `trigger=${m?.trigger} requestedBy=${m?.requestedBy} requestReason=${m?.requestReason}`,
        ),
        check(
          'manual run inserted nothing',
          d.inserted === 0 && (d.existing ?? 0) > 0,
          `inserted=${d.inserted} existing=${d.existing}`,
        ),
        recordsMatch([A, M], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** A write DynamoDB applied whose response was lost (the SDK retries it and meets its own write). */
export function uncertain(step: 'claim' | 'insert-once' | 'fenced-write'): Drill {
  const matcher: Record<typeof step, (r: FaultRequest) => boolean> = {
    claim: on.claim,
    'insert-once': on.insertOnce,
    'fenced-write': on.fencedWrite,
  };
  return {
    name: `uncertain-${step}`,
    injected: `the ${step} request is applied by DynamoDB but its response is lost (timeout); the SDK retries it`,
    expected: `the retry finds its own write (same run id and fence) and goes on: succeeded fence 1, one record, one result per key`,
    async run(ctx) {
      const h: JobHandler = step === 'fenced-write' ? ctx.fenced : ctx.insertOnce;
      const a = ctx.stage.worker('A');
      a.faults.add({
        name: `${step} response lost`,
        match: matcher[step],
        action: { kind: 'apply-then-fail' },
      });
      const ra = ctx.send(a, h, { label: 'A' });
      await ctx.stage.run();
      const A = await ra;
      const records = await ctx.tables.runRecords(h.job.name);
      const rec = recordOf(records, A.summary?.runId);
      const d = (rec?.details ?? {}) as { inserted?: number; existing?: number };
      const claim = ctx.stage.recorder.events('claim-won')[0];
      return {
        observed: `fault fired ${a.faults.fired.length}x; A ${show(rec)}${step === 'claim' ? ` (claim ownWrite=${claim?.ownWrite})` : ''}${step === 'insert-once' ? ` inserted=${d.inserted} existing=${d.existing}` : ''}`,
        jobs: [h],
        checks: [
          check('the response was lost once', a.faults.fired.length === 1, `${a.faults.fired.length} fired`),
          recordIs('A', rec, { outcome: 'succeeded', fence: 1 }),
          ...(step === 'claim'
            ? [
                check(
                  'the claim was recognised as its own',
                  claim?.ownWrite === true,
                  `ownWrite=${claim?.ownWrite}`,
                ),
              ]
            : []),
          ...(step === 'insert-once'
            ? [
                check(
                  'the lost insert counted as inserted, not existing',
                  d.existing === 0,
                  `existing=${d.existing}`,
                ),
              ]
            : []),
          recordsMatch([A], records),
          ...(await ctx.verifyApp([h])),
        ],
      };
    },
  };
}
