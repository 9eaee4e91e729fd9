/**
 * The seeded history explorer on the in-memory store (unit: no network): a bounded exploration in
 * every `npm test`, replays of the shrunk histories that found violations, and proof that a broken
 * store is caught with a shrunk, replayable counterexample.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend, memoryBackendWith } from '../../../harness/drills/explorer/backends.js';
import { explore, replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { INVARIANTS } from '../../../harness/drills/explorer/invariants.js';
import { SHAPES } from '../../../harness/drills/explorer/liveness.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';
import { SHAPES as SAFETY_SHAPES } from '../../../harness/drills/explorer/shapes.js';
import { MemoryBackend, MemoryClient } from '../../../harness/memory/index.js';
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../../../lib/core/ports.js';
import { notExists } from '../../../lib/store/protocol/expression.js';
import { fencedWrite } from '../../../lib/store/protocol/operations.js';
import { perform } from '../../../lib/store/protocol/request.js';

const provider = { idempotencyKeys: false, lookup: false, dropResponses: [] };

/** Shrunk histories the explorer printed when it found violations (now fixed). */
const FOUND: Record<string, HistorySpec> = {
  'a late copy beyond the done set released (clearing the open list) before its record, which failed: the run was never marked':
    {
      skewsMs: [0, 0],
      provider,
      workMs: 0,
      deliveries: [
        { job: 'settle', slot: 0, worker: 1, delayMs: 1_500_000, attempt: 1, manual: false },
        { job: 'settle', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
        { job: 'settle', slot: 1, worker: 0, delayMs: 0, attempt: 1, manual: true },
      ],
      faults: [
        { kind: 'throttle', worker: 1, op: 'run-record', times: 20 },
        { kind: 'conflict', worker: 0, op: 'release', times: 8 },
      ],
      lambda: true,
    },
  'a claim whose response was lost did not mark the killed holder it displaced abandoned': {
    skewsMs: [0, 0],
    provider,
    workMs: 0,
    deliveries: [
      { job: 'settle', slot: 0, worker: 0, delayMs: 0, attempt: 1, manual: true },
      { job: 'settle', slot: 1, worker: 1, delayMs: 0, attempt: 1, manual: true },
    ],
    faults: [
      { kind: 'lost-response', worker: 1, op: 'claim' },
      { kind: 'kill', worker: 0, at: 'after-claim', nth: 1 },
    ],
  },
  'a holder displaced by a claim that was applied but never acknowledged was never marked': {
    skewsMs: [0, 0],
    provider,
    workMs: 0,
    deliveries: [
      { job: 'settle', slot: 0, worker: 1, delayMs: 0, attempt: 1, manual: true },
      { job: 'settle', slot: 0, worker: 0, delayMs: 60_001, attempt: 1, manual: true },
    ],
    faults: [
      { kind: 'lost-response', worker: 0, op: 'claim' },
      { kind: 'kill', worker: 1, at: 'after-claim', nth: 1 },
      { kind: 'throttle', worker: 0, op: 'claim', times: 3 },
    ],
  },
};

describe('history explorer (in memory)', () => {
  it('explores 400 seeded histories of 2-8 workers (about half through the Lambda model, half listed with the safety shapes): every shape occurs, every invariant (liveness too) holds', async () => {
    let lambdaHistories = 0;
    const report = await explore({
      runs: 400,
      seed: 20_261_129,
      onHistory: (_n, o) => {
        if (o.lambda) lambdaHistories++;
      },
    });
    expect(lambdaHistories).toBeGreaterThan(100);
    expect(lambdaHistories).toBeLessThan(300);
    expect(report.violations).toEqual({ safety: 0, liveness: 0 });
    // off-schedule is rare (about 1 Lambda history in 600): its own test below explores enough for it
    for (const shape of SHAPES.filter((x) => x !== 'off-schedule'))
      expect(report.shapes[shape] ?? 0, shape).toBeGreaterThan(0);
    expect(report.shapes['lambda-delivery']).toBe(lambdaHistories);
    expect(report.failure?.message).toBeUndefined();
    expect(report.histories).toBe(400);
    expect(report.checks).toBe(400 * INVARIANTS.length);
    expect(report.workers).toEqual({ min: 2, max: 8 });
    for (const kind of [
      'kill',
      'suspend',
      'skew',
      'fail:claim',
      'apply-then-fail:insert-once',
      'delay:renew',
      'provider-response-lost',
    ])
      expect(report.faults[kind] ?? 0, kind).toBeGreaterThan(0);
    expect(report.outcomes.succeeded).toBeGreaterThan(0);
    // every safety shape is generated (harness/drills/explorer/shapes.ts)
    for (const shape of SAFETY_SHAPES) expect(report.safetyShapes[shape] ?? 0, shape).toBeGreaterThan(0);
    expect(report.outcomes['killed (never settled)']).toBeGreaterThan(0);
  }, 300_000);

  it('catches a runtime whose same-slot skip is final (and a sweeper that leaves delivered slots to catchUp): a shrunk, replayable liveness counterexample', async () => {
    const report = await explore({ runs: 300, seed: 2, variant: 'skip-is-final' });
    expect(report.violations.safety).toBe(0);
    expect(report.failure?.message).toMatch(
      /seed 2, path [\d:]+, after \d+ shrinks: liveness: silently lost: /,
    );
    const shrunk = report.failure?.history as HistorySpec;
    expect(shrunk.deliveries.length).toBeLessThanOrEqual(6);
    const broken = await replayHistory(shrunk, memoryBackend, { variant: 'skip-is-final' });
    expect(broken.find((c) => c.name === 'liveness')?.ok).toBe(false);
    const fixed = await replayHistory(shrunk);
    expect(fixed.filter((c) => !c.ok)).toEqual([]);
  }, 300_000);

  it.each(Object.entries(FOUND))(
    'replays the shrunk history where %s: every invariant holds now',
    async (_name, spec) => {
      const checks = await replayHistory(spec);
      expect(checks.filter((c) => !c.ok)).toEqual([]);
    },
  );

  it('ends a delivered slot a redeploy took off the schedule (skipped overlap, then cron 0/5 -> 0/10) with the sweeper`s not-on-schedule record', async () => {
    // Slot 0's event comes 5 min late and holds the lease when slot 1 (00:05) arrives: skipped overlap.
    // At +6 min the schedule becomes cron(0/10 ...): 00:05 is no longer a slot, so no catch-up reaches
    // it. The first sweep (+15 min) records it skipped / not-on-schedule, a problem record.
    const spec: HistorySpec = {
      skewsMs: [0, 0],
      provider: { idempotencyKeys: true, lookup: false, dropResponses: [] },
      workMs: 30_000,
      deliveries: [
        { job: 'report', slot: 0, worker: 0, delayMs: 300_000, attempt: 1, manual: false },
        { job: 'report', slot: 1, worker: 1, delayMs: 5_000, attempt: 1, manual: false },
      ],
      faults: [],
      lambda: true,
      redeploy: { afterMs: 360_000, change: 'schedule' },
    };
    const o = await runHistory(spec, memoryBackend);
    const at5 = o.records
      .filter((r) => r.scheduledTime === '2026-01-05T00:05:00.000Z')
      .map((r) => ({ outcome: r.outcome, reason: r.reason, trigger: r.trigger, runId: r.runId }));
    expect(at5).toEqual([
      { outcome: 'skipped', reason: 'overlap', trigger: 'schedule', runId: expect.any(String) },
      {
        outcome: 'skipped',
        reason: 'not-on-schedule',
        trigger: 'catch-up',
        runId: 'sweeper-not-on-schedule',
      },
    ]);
    const mark = o.records.find((r) => r.runId === 'sweeper-not-on-schedule');
    expect(mark).toMatchObject({
      slot: '2026-01-05T00:05',
      requestedBy: 'sweeper',
      startedAtMs: Date.parse('2026-01-05T00:15:00Z'), // the first sweep after the slot's grace
      details: { delivered: 'unfinished', currentSchedule: 'cron(0/10 * * * ? *)' },
    });
    expect((await replayHistory(spec)).filter((c) => !c.ok)).toEqual([]);
  });

  it('generates the off-schedule kind by itself (schedule-change / zone-change histories whose delivered slot the redeploy removed)', async () => {
    const report = await explore({ runs: 600, seed: 1, shape: { model: 'lambda' } });
    expect(report.violations).toEqual({ safety: 0, liveness: 0 });
    expect(report.shapes['schedule-change']).toBeGreaterThan(0);
    expect(report.shapes['zone-change']).toBeGreaterThan(0);
    expect(report.shapes['off-schedule']).toBe(1);
  }, 300_000);

  it('a slot delivered and skipped `overlap`, then a redeploy whose schedule no longer has it (seed 202 kind): the sweeper records it `skipped/not-on-schedule`, a problem record', async () => {
    const spec: HistorySpec = {
      skewsMs: [0, 0],
      provider,
      workMs: 90_000,
      deliveries: [
        { job: 'report', slot: 2, worker: 1, delayMs: 240_000, attempt: 1, manual: false },
        { job: 'report', slot: 3, worker: 0, delayMs: 0, attempt: 1, manual: false },
      ],
      faults: [],
      lambda: true,
      redeploy: { afterMs: 900_001, change: 'schedule' },
    };
    const broken = await replayHistory(spec, memoryBackend, { variant: 'skip-is-final' });
    expect(broken.find((c) => c.name === 'liveness')?.detail).toBe(
      'silently lost: ex-report 2026-01-05T00:15:00.000Z: skipped/overlap',
    );
    const outcome = await runHistory(spec, memoryBackend);
    const of15 = outcome.records
      .filter((r) => r.slot === '2026-01-05T00:15')
      .map(
        (r) =>
          `${r.outcome}/${r.reason} ${r.trigger} ${String(r.runId).startsWith('sweeper') ? String(r.runId) : 'run'}`,
      );
    expect(of15.sort()).toEqual([
      'skipped/not-on-schedule catch-up sweeper-not-on-schedule',
      'skipped/overlap schedule run',
    ]);
    const marker = outcome.records.find((r) => r.runId === 'sweeper-not-on-schedule');
    expect(marker).toMatchObject({
      job: 'ex-report',
      scheduledTime: '2026-01-05T00:15:00.000Z',
      businessDate: '2026-01-05',
      outcome: 'skipped',
      reason: 'not-on-schedule',
      requestedBy: 'sweeper',
      problem: 'skipped',
      details: { delivered: 'unfinished', currentSchedule: 'cron(0/10 * * * ? *)' },
    });
    const checks = await replayHistory(spec);
    expect(checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('replays one history the same way twice (virtual time, in memory)', async () => {
    const spec = Object.values(FOUND)[1] as HistorySpec;
    const shape = async () =>
      (await runHistory(spec, memoryBackend)).entries.map(
        (e) => `${e.atMs} ${e.kind} ${e.worker} ${'op' in e ? e.op : ''}`,
      );
    expect(await shape()).toEqual(await shape());
  });

  it('catches a store that accepts a lower fence and prints a shrunk, replayable history', async () => {
    const broken = memoryBackendWith((deps, p, db) => {
      const backend = new MemoryBackend(new MemoryClient(db, { faults: p.faults }));
      // Forgets the fenced write's condition: any fence overwrites what is stored.
      const unfenced: typeof fencedWrite = {
        ...fencedWrite,
        request: (w) => {
          const req = fencedWrite.request(w);
          return { ...req, writes: [{ ...req.writes[0], condition: notExists('no-such-attribute') }] };
        },
      };
      const results: ResultStore = {
        fencedPut: async (ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext) => {
          await perform(backend, unfenced, { ref, attributes, fc });
        },
        insertOnce: (ref: ItemRef, a: Record<string, unknown>, fc: FenceContext): Promise<InsertOnceResult> =>
          deps.results.insertOnce(ref, a, fc),
      };
      return { ...deps, results };
    });
    const report = await explore({ runs: 200, seed: 7, backend: broken });
    expect(report.failure?.message).toContain(
      'I2 no write accepted with a fence lower than one already stored',
    );
    expect(report.failure?.message).toMatch(/seed 7, path [\d:]+, after \d+ shrinks/);
    const replayed = await replayHistory(report.failure?.history as HistorySpec, broken);
    expect(replayed.find((c) => c.name.startsWith('I2'))?.ok).toBe(false);
    expect(report.failure?.history.deliveries.length).toBeLessThanOrEqual(4);
  }, 600_000); // CPU-bound, shrinking Lambda-model histories: sized for a loaded 2-core machine
});
