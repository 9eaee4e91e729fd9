/**
 * The RunStore and ResultStore contracts (docs/design.md steps 3, 4, 6): every implementation must pass.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { on, throttlingError } from '../../../harness/faults/sdk-faults.js';
import type { RunRecord } from '../../../lib/core/ports.js';
import { LeaseLostError, ResultConflictError, StaleFenceError, StoreError } from '../../../lib/errors.js';
import { Keys } from '../../../lib/store/schema.js';
import type { StoreFixture } from './fixture.js';

const NOW = 1_780_000_000_000;
const LEASE = 'JOB#contract-job';
const record = (runId: string, outcome: RunRecord['outcome'], extra: Partial<RunRecord> = {}): RunRecord => ({
  job: 'contract-job',
  slot: 'S1',
  scheduledTime: '2026-05-28T20:26:40.000Z',
  businessDate: '2026-05-28',
  runId,
  trigger: 'schedule',
  fence: 3,
  outcome,
  startedAtMs: NOW,
  finishedAtMs: NOW + 250,
  durationMs: 250,
  ...extra,
});
const fc = (runId: string, fence: number, leaseKey = LEASE) => ({ leaseKey, runId, fence, nowMs: NOW });

/** Define the run-store and result-store contract tests for one implementation. */
export function runAndResultStoreContract(name: string, make: () => Promise<StoreFixture>): void {
  let s: StoreFixture;
  const runItem = (runId: string) => s.read(s.tableName, Keys.run('contract-job', 'S1', runId));

  describe(`${name}: RunStore contract`, () => {
    beforeEach(async () => {
      s = await make();
    });

    it('stores a failed run with TTL (30 days from when it is written) and the problems-index attributes', async () => {
      const beforeS = Math.floor(Math.max(NOW + 250, Date.now()) / 1000);
      await s.runs.put(record('r1', 'failed', { reason: 'error' }), 30);
      const afterS = Math.floor(Math.max(NOW + 250, Date.now()) / 1000);
      const item = await runItem('r1');
      expect(item).toMatchObject({
        pk: 'JOB#contract-job',
        sk: 'RUN#S1#r1',
        outcome: 'failed',
        problem: 'failed',
        problemAtMs: NOW + 250,
      });
      expect(Number(item?.expiresAt)).toBeGreaterThanOrEqual(beforeS + 30 * 86_400);
      expect(Number(item?.expiresAt)).toBeLessThanOrEqual(afterS + 30 * 86_400);
    });

    it('writes a run record once: a second outcome fails, a lost-response retry of the same one is accepted', async () => {
      s.faults.add({
        name: 'record response lost',
        match: on.runRecord,
        action: { kind: 'apply-then-fail' },
      });
      await s.runs.put(record('r1', 'succeeded'), 30);
      const err = await s.runs.put(record('r1', 'failed'), 30).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).message).toContain('run record r1 already written as succeeded');
      expect((await runItem('r1'))?.outcome).toBe('succeeded');
    });

    it('lets a slow run replace the abandoned mark a successor left, and never lets a mark replace a record', async () => {
      const holder = { runId: 'r1', slot: 'S1', leaseUntilMs: NOW, fence: 3 };
      await s.runs.markAbandoned('contract-job', holder, 'r2', NOW + 1, 30);
      expect(await runItem('r1')).toMatchObject({
        outcome: 'abandoned',
        reason: 'not-released',
        details: { detectedBy: 'r2' },
      });
      await s.runs.put(record('r1', 'stale', { reason: 'lease-lost' }), 30);
      await s.runs.markAbandoned('contract-job', holder, 'r3', NOW + 2, 30);
      expect(await runItem('r1')).toMatchObject({ outcome: 'stale', reason: 'lease-lost' });
    });

    it('never records succeeded over an abandoned mark (the run was displaced), and lets stale correct its own succeeded', async () => {
      const holder = { runId: 'r1', slot: 'S1', leaseUntilMs: NOW, fence: 3 };
      await s.runs.markAbandoned('contract-job', holder, 'r2', NOW + 1, 30);
      const err = await s.runs.put(record('r1', 'succeeded'), 30).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LeaseLostError);
      expect((err as Error).message).toContain('run r2 took its lease and marked it abandoned');
      expect((await runItem('r1'))?.outcome).toBe('abandoned');
      await s.runs.put(record('r4', 'succeeded'), 30);
      await s.runs.put(record('r4', 'stale', { reason: 'lease-lost' }), 30);
      expect(await runItem('r4')).toMatchObject({ outcome: 'stale', reason: 'lease-lost', problem: 'stale' });
    });

    it('finds a succeeded record of a slot under its definition id (or none), per shard', async () => {
      await s.runs.put(record('r1', 'failed', { reason: 'error', def: 'd1' }), 30);
      expect(await s.runs.findSucceeded('contract-job', 'S1', 'd1')).toBeUndefined();
      await s.runs.put(record('r2', 'succeeded', { def: 'd0' }), 30);
      expect(await s.runs.findSucceeded('contract-job', 'S1', 'd1')).toBeUndefined();
      await s.runs.put(record('r3', 'succeeded', { def: 'd1' }), 30);
      expect(await s.runs.findSucceeded('contract-job', 'S1', 'd1')).toBe('r3');
      expect(await s.runs.findSucceeded('contract-job', 'S1', 'd1', 0)).toBeUndefined();
      await s.runs.put(record('r4', 'succeeded', { def: 'd1', shard: 0 }), 30);
      expect(await s.runs.findSucceeded('contract-job', 'S1', 'd1', 0)).toBe('r4');
      expect(await s.runs.findSucceeded('contract-job', 'S2', 'd1')).toBeUndefined();
    });
  });

  describe(`${name}: ResultStore contract`, () => {
    beforeEach(async () => {
      s = await make();
    });
    const report = { reportDate: '2026-05-28' };
    const row = { merchantId: 'M1', settlementDate: '2026-05-28' };

    it('accepts fenced writes with the same or a higher fence and refuses a lower one with the stored fence', async () => {
      await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'a' }, fc('r1', 5));
      await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'b' }, fc('r1', 5));
      await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'c' }, fc('r2', 6));
      const err = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { body: 'stale' }, fc('r0', 4))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleFenceError);
      expect(err).toMatchObject({ fence: 4, storedFence: 6 });
      expect(await s.read(s.reports, report)).toMatchObject({
        body: 'c',
        fence: 6,
        runId: 'r2',
        fencedBy: LEASE,
      });
    });

    it('keeps one fence attribute per item: a fenced write with a lower fence is refused on an insert-once row', async () => {
      // Case 3 of issue 12: insert-once stores `fence` + `fencedBy` like a fenced write; the item is never "unfenced".
      await s.results.insertOnce({ tableName: s.reports, key: report }, { body: 'b' }, fc('r2', 2));
      const err = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { body: 'a' }, fc('r1', 1))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleFenceError);
      expect(err).toMatchObject({ fence: 1, storedFence: 2 });
      expect(await s.read(s.reports, report)).toMatchObject({
        body: 'b',
        fence: 2,
        runId: 'r2',
        status: 'succeeded',
      });
      expect((await s.read(s.reports, report))?.lastFence).toBeUndefined();
    });

    it('refuses to overwrite an existing item that was never fenced unless told to adopt it', async () => {
      const unfenced = { reportDate: 'legacy-day' };
      await s.putRaw(s.reports, { ...unfenced, body: 'from before cronfence' });
      const err = await s.results
        .fencedPut({ tableName: s.reports, key: unfenced }, { body: 'x' }, fc('r1', 1))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResultConflictError);
      expect((err as Error).message).toContain('never written under a fence');
      expect(await s.read(s.reports, unfenced)).toEqual({ ...unfenced, body: 'from before cronfence' });
      await s.results.fencedPut({ tableName: s.reports, key: unfenced }, { body: 'x' }, fc('r1', 1), {
        adoptUnfenced: true,
      });
      expect(await s.read(s.reports, unfenced)).toMatchObject({ body: 'x', fence: 1, fencedBy: LEASE });
    });

    it('never compares fences of two leases: an item of another lease is taken over only once that lease is not running', async () => {
      // Case 4 of issue 12: fence 40 under JOB#contract-job, then a shard lease JOB#contract-job#0 at fence 1.
      const shard = `${LEASE}#0`;
      await s.leases.claim({
        job: 'contract-job',
        runId: 'old',
        slotId: 'S0',
        nowMs: NOW,
        leaseUntilMs: NOW + 60_000,
      });
      await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'old' }, fc('old', 1));
      const held = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { body: 'new' }, fc('new', 1, shard))
        .catch((e: unknown) => e);
      expect(held).toBeInstanceOf(ResultConflictError);
      expect((held as Error).message).toContain('still running');
      await s.leases.release({ job: 'contract-job', runId: 'old', fence: 1, nowMs: NOW + 1 });
      // the reconciling writer must hold its own lease (a stale holder of the shard lease may not)
      const stale = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { body: 'new' }, fc('new', 1, shard))
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(ResultConflictError);
      await s.leases.claim({
        job: 'contract-job',
        shard: 0,
        runId: 'new',
        slotId: 'S0',
        nowMs: NOW + 2,
        leaseUntilMs: NOW + 60_000,
      });
      await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'new' }, fc('new', 1, shard));
      expect(await s.read(s.reports, report)).toMatchObject({
        body: 'new',
        fence: 1,
        fencedBy: shard,
        runId: 'new',
      });
    });

    it('rejects an attribute name cronfence reserves', async () => {
      const err = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { lastFence: 1 }, fc('r1', 1))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResultConflictError);
      expect(await s.read(s.reports, report)).toBeUndefined();
    });

    it('inserts a result once; a second run gets the existing row, a lost response is recognised as its own', async () => {
      s.faults.add({
        name: 'insert response lost',
        match: on.insertOnce,
        action: { kind: 'apply-then-fail' },
      });
      const first = await s.results.insertOnce(
        { tableName: s.settlements, key: row },
        { amountCents: 10 },
        fc('r1', 1),
      );
      expect(first.status).toBe('inserted');
      expect(first.item).toMatchObject({ amountCents: 10, status: 'succeeded', fence: 1, runId: 'r1' });
      const second = await s.results.insertOnce(
        { tableName: s.settlements, key: row },
        { amountCents: 10 },
        fc('r2', 2),
      );
      expect(second).toMatchObject({ status: 'existing', item: { runId: 'r1', fence: 1 } });
    });

    it('refuses an insert-once on an item a newer holder of its lease fenced, with the stored fence', async () => {
      await s.results.fencedPut({ tableName: s.settlements, key: row }, { amountCents: 10 }, fc('r5', 5));
      const err = await s.results
        .insertOnce({ tableName: s.settlements, key: row }, { amountCents: 10 }, fc('r4', 4))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleFenceError);
      expect(err).toMatchObject({ fence: 4, storedFence: 5 });
      const later = await s.results.insertOnce(
        { tableName: s.settlements, key: row },
        { amountCents: 10 },
        fc('r6', 6),
      );
      expect(later).toMatchObject({ status: 'existing', item: { runId: 'r5', fence: 5, fencedBy: LEASE } });
    });

    it('fails a persistently throttled insert with StoreError naming the table and key', async () => {
      s.faults.add({
        name: 'throttle',
        match: on.insertOnce,
        action: { kind: 'fail', error: throttlingError },
        times: 10,
      });
      const err = await s.results
        .insertOnce({ tableName: s.settlements, key: row }, {}, fc('r1', 1))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).message).toContain(
        `PutItem (insert-once ${s.settlements} {"merchantId":"M1"`,
      );
      expect(await s.read(s.settlements, row)).toBeUndefined();
    });
  });
}
