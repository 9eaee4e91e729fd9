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
      expect(await s.read(s.reports, report)).toEqual({
        reportDate: '2026-05-28',
        body: 'c',
        'cronfence:fence': 6,
        'cronfence:runId': 'r2',
        'cronfence:lease': LEASE,
        'cronfence:writtenAtMs': NOW,
      });
    });

    it('keeps one fence attribute per item: a fenced write with a lower fence is refused on an insert-once row', async () => {
      // insert-once stores `cronfence:fence` + `cronfence:lease` like a fenced write; the item is never "unfenced".
      await s.results.insertOnce({ tableName: s.reports, key: report }, { body: 'b' }, fc('r2', 2));
      const err = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { body: 'a' }, fc('r1', 1))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleFenceError);
      expect(err).toMatchObject({ fence: 1, storedFence: 2 });
      expect(await s.read(s.reports, report)).toEqual({
        reportDate: '2026-05-28',
        body: 'b',
        'cronfence:fence': 2,
        'cronfence:lease': LEASE,
        'cronfence:runId': 'r2',
        'cronfence:status': 'succeeded',
        'cronfence:writtenAtMs': NOW,
      });
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
      expect(await s.read(s.reports, unfenced)).toMatchObject({
        body: 'x',
        'cronfence:fence': 1,
        'cronfence:lease': LEASE,
      });
    });

    it('never compares fences of two leases: an item of another lease is taken over only once that lease is not running', async () => {
      // fence 1 under JOB#contract-job, then a shard lease JOB#contract-job#0 at fence 1.
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
        'cronfence:fence': 1,
        'cronfence:lease': shard,
        'cronfence:runId': 'new',
      });
    });

    const ownNames = { status: 'open', fence: 'F-9', runId: 'job-run-7', fencedBy: 'alice', writtenAtMs: 5 };

    it('stores an insert-once row exactly as the job gave it, beside the prefixed bookkeeping', async () => {
      const result = await s.results.insertOnce(
        { tableName: s.settlements, key: row },
        ownNames,
        fc('r1', 1),
      );
      const stored = {
        merchantId: 'M1',
        settlementDate: '2026-05-28',
        status: 'open',
        fence: 'F-9',
        runId: 'job-run-7',
        fencedBy: 'alice',
        writtenAtMs: 5,
        'cronfence:status': 'succeeded',
        'cronfence:fence': 1,
        'cronfence:lease': LEASE,
        'cronfence:runId': 'r1',
        'cronfence:writtenAtMs': NOW,
      };
      expect(await s.read(s.settlements, row)).toEqual(stored);
      expect(result).toEqual({ status: 'inserted', item: stored });
      // the job's own `status`/`fence`/`runId` do not confuse a second run: it gets the row back
      const again = await s.results.insertOnce({ tableName: s.settlements, key: row }, ownNames, fc('r2', 2));
      expect(again).toEqual({ status: 'existing', item: stored });
    });

    it('stores a fenced write exactly as the job gave it, beside the prefixed bookkeeping', async () => {
      await s.results.fencedPut({ tableName: s.reports, key: report }, ownNames, fc('r1', 3));
      expect(await s.read(s.reports, report)).toEqual({
        reportDate: '2026-05-28',
        ...ownNames,
        'cronfence:fence': 3,
        'cronfence:lease': LEASE,
        'cronfence:runId': 'r1',
        'cronfence:writtenAtMs': NOW,
      });
      const stale = await s.results
        .fencedPut({ tableName: s.reports, key: report }, { fence: 99 }, fc('r0', 2))
        .catch((e: unknown) => e);
      expect(stale).toMatchObject({ name: 'StaleFenceError', fence: 2, storedFence: 3 });
    });

    it('stores attributes named like the request placeholders (n0, n1, …) as given, the bookkeeping beside them', async () => {
      const placeholderNames = { n0: 'a', n1: 'b', n2: 'c', n3: 'd', n4: 'e', n5: 'f', n9: 'g' };
      await s.results.fencedPut({ tableName: s.reports, key: report }, placeholderNames, fc('r1', 3));
      expect(await s.read(s.reports, report)).toEqual({
        reportDate: '2026-05-28',
        ...placeholderNames,
        'cronfence:fence': 3,
        'cronfence:lease': LEASE,
        'cronfence:runId': 'r1',
        'cronfence:writtenAtMs': NOW,
      });
    });

    it.each(['fencedPut', 'insertOnce'] as const)(
      '%s refuses an attribute named with the bookkeeping prefix, naming it and the rule, and writes nothing',
      async (op) => {
        const ref = { tableName: s.reports, key: report };
        const attrs = { body: 'x', 'cronfence:fence': 100 };
        const err = await (op === 'fencedPut'
          ? s.results.fencedPut(ref, attrs, fc('r1', 1))
          : s.results.insertOnce(ref, attrs, fc('r1', 1))
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ResultConflictError);
        expect((err as Error).message).toBe(
          `${s.reports} {"reportDate":"2026-05-28"}: attribute "cronfence:fence" is refused: names starting with "cronfence:" are cronfence's bookkeeping on business items (cronfence:fence, cronfence:lease, cronfence:runId, cronfence:writtenAtMs, cronfence:status); rename it`,
        );
        expect(await s.read(s.reports, report)).toBeUndefined();
      },
    );

    describe('an item an earlier version wrote (unprefixed fence, fencedBy, runId, status, writtenAtMs)', () => {
      const legacyReport = {
        reportDate: '2026-05-28',
        body: 'legacy',
        fence: 6,
        fencedBy: LEASE,
        runId: 'r-old',
        writtenAtMs: NOW - 1,
      };

      it('fences a fenced write by the legacy attributes until cronfence writes the prefixed ones', async () => {
        await s.putRaw(s.reports, legacyReport);
        const stale = await s.results
          .fencedPut({ tableName: s.reports, key: report }, { body: 'stale' }, fc('r5', 5))
          .catch((e: unknown) => e);
        expect(stale).toMatchObject({ name: 'StaleFenceError', fence: 5, storedFence: 6 });
        expect(await s.read(s.reports, report)).toEqual(legacyReport);
        await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'new' }, fc('r7', 7));
        expect(await s.read(s.reports, report)).toEqual({
          ...legacyReport,
          body: 'new',
          'cronfence:fence': 7,
          'cronfence:lease': LEASE,
          'cronfence:runId': 'r7',
          'cronfence:writtenAtMs': NOW,
        });
        // from now on the prefixed fence decides; the legacy `fence` (6) is data, never compared
        const after = await s.results
          .fencedPut({ tableName: s.reports, key: report }, { body: 'six' }, fc('r6', 6))
          .catch((e: unknown) => e);
        expect(after).toMatchObject({ name: 'StaleFenceError', fence: 6, storedFence: 7 });
      });

      it('returns a legacy insert-once row as existing, and an insert-once of a newer holder of its lease as stale', async () => {
        const legacyRow = {
          ...row,
          amountCents: 10,
          status: 'succeeded',
          fence: 2,
          fencedBy: LEASE,
          runId: 'r2',
        };
        await s.putRaw(s.settlements, legacyRow);
        expect(
          await s.results.insertOnce(
            { tableName: s.settlements, key: row },
            { amountCents: 10 },
            fc('r3', 3),
          ),
        ).toEqual({ status: 'existing', item: legacyRow });
        expect(
          await s.results.insertOnce(
            { tableName: s.settlements, key: row },
            { amountCents: 10 },
            fc('r2', 2),
          ),
        ).toEqual({ status: 'inserted', item: legacyRow });
        const fencedRow = { ...row, amountCents: 10, fence: 5, fencedBy: LEASE, runId: 'r5' };
        await s.putRaw(s.settlements, fencedRow);
        const stale = await s.results
          .insertOnce({ tableName: s.settlements, key: row }, { amountCents: 10 }, fc('r4', 4))
          .catch((e: unknown) => e);
        expect(stale).toMatchObject({ name: 'StaleFenceError', fence: 4, storedFence: 5 });
      });

      it('reconciles a legacy item of another lease once that lease is not running', async () => {
        await s.putRaw(s.reports, { ...legacyReport, fencedBy: `${LEASE}#0`, fence: 40 });
        await s.leases.claim({
          job: 'contract-job',
          runId: 'r1',
          slotId: 'S1',
          nowMs: NOW,
          leaseUntilMs: NOW + 60_000,
        });
        await s.results.fencedPut({ tableName: s.reports, key: report }, { body: 'moved' }, fc('r1', 1));
        expect(await s.read(s.reports, report)).toMatchObject({
          body: 'moved',
          fence: 40,
          fencedBy: `${LEASE}#0`,
          'cronfence:fence': 1,
          'cronfence:lease': LEASE,
        });
      });
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
      expect(first.item).toMatchObject({
        amountCents: 10,
        'cronfence:status': 'succeeded',
        'cronfence:fence': 1,
        'cronfence:runId': 'r1',
      });
      const second = await s.results.insertOnce(
        { tableName: s.settlements, key: row },
        { amountCents: 10 },
        fc('r2', 2),
      );
      expect(second).toMatchObject({
        status: 'existing',
        item: { 'cronfence:runId': 'r1', 'cronfence:fence': 1 },
      });
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
      expect(later).toMatchObject({
        status: 'existing',
        item: { 'cronfence:runId': 'r5', 'cronfence:fence': 5, 'cronfence:lease': LEASE },
      });
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
