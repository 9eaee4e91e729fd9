/**
 * The LeaseStore contract (docs/design.md steps 0, 1, 2, 6): every implementation must pass it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { on, throttlingError } from '../../../harness/faults/sdk-faults.js';
import { LeaseLostError, StoreError } from '../../../lib/errors.js';
import type { StoreFixture } from './fixture.js';

const NOW = 1_780_000_000_000;
const claimOf = (runId: string, slotId: string, nowMs = NOW, leaseMs = 60_000) => ({
  job: 'contract-job',
  runId,
  slotId,
  nowMs,
  leaseUntilMs: nowMs + leaseMs,
  lambdaRequestId: `req-${runId}`,
});

/** Define the lease-store contract tests for one implementation. */
export function leaseStoreContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`${name}: LeaseStore contract`, () => {
    let s: StoreFixture;
    beforeEach(async () => {
      s = await make();
    });

    it('gives the first claim fence 1 and no previous holder', async () => {
      const d = await s.leases.claim(claimOf('r1', 'S1'));
      expect(d).toEqual({ kind: 'acquired', fence: 1, doneSlots: new Set(), ownWrite: false, open: [] });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        owner: 'r1',
        fence: 1,
        slot: 'S1',
        holderState: 'running',
        leaseUntilMs: NOW + 60_000,
        lambdaRequestId: 'req-r1',
      });
    });

    it.each([
      ['the same slot', 'S1', true],
      ['another slot', 'S2', false],
    ])('refuses a claim for %s while the lease is held, naming the holder', async (_l, slot, sameSlot) => {
      await s.leases.claim(claimOf('r1', 'S1'));
      const d = await s.leases.claim(claimOf('r2', slot, NOW + 1_000));
      expect(d).toEqual({
        kind: 'held',
        holderRunId: 'r1',
        holderSlot: 'S1',
        leaseUntilMs: NOW + 60_000,
        fence: 1,
        sameSlot,
        renewedAtMs: NOW,
        acquiredAtMs: NOW,
        holderState: 'running',
        buffered: [],
      });
    });

    it('takes over an expired lease with fence + 1 and reports the unreleased holder as abandoned', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      const d = await s.leases.claim(claimOf('r2', 'S1', NOW + 60_001));
      expect(d).toMatchObject({
        kind: 'acquired',
        fence: 2,
        ownWrite: false,
        previous: { runId: 'r1', slot: 'S1', fence: 1, leaseUntilMs: NOW + 60_000, abandoned: true },
      });
    });

    it('extends the lease for its owner and refuses a renewal by another owner or fence', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      await s.leases.renew({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 20_000,
        leaseUntilMs: NOW + 80_000,
      });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        leaseUntilMs: NOW + 80_000,
        renewedAtMs: NOW + 20_000,
      });
      for (const wrong of [
        { runId: 'r2', fence: 1 },
        { runId: 'r1', fence: 2 },
      ]) {
        const err = await s.leases
          .renew({ job: 'contract-job', ...wrong, nowMs: NOW, leaseUntilMs: NOW + 90_000 })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(LeaseLostError);
        expect((err as LeaseLostError).message).toContain('holder is r1 with fence 1');
        expect((err as LeaseLostError).item).toMatchObject({ owner: 'r1', fence: 1 });
      }
    });

    it('never moves the lease end back: an earlier renewal landing after a later one is a no-op for its holder, and the lease stays held', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      // The renewal sent at +20 s is held in the network; the one sent at +40 s lands first.
      await s.leases.renew({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 40_000,
        leaseUntilMs: NOW + 100_000,
      });
      await s.leases.renew({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 20_000,
        leaseUntilMs: NOW + 80_000,
      });
      // One ending where the lease already ends (both capped at the invocation's deadline).
      await s.leases.renew({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 41_000,
        leaseUntilMs: NOW + 100_000,
      });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        owner: 'r1',
        fence: 1,
        leaseUntilMs: NOW + 100_000,
        renewedAtMs: NOW + 40_000,
      });
      // Past the earlier renewal's end the lease is still held: no claim gets in.
      expect(await s.leases.claim(claimOf('r2', 'S1', NOW + 81_000))).toMatchObject({
        kind: 'held',
        fence: 1,
      });
      // Not ours: still refused, naming the holder.
      const err = await s.leases
        .renew({
          job: 'contract-job',
          runId: 'r2',
          fence: 1,
          nowMs: NOW + 42_000,
          leaseUntilMs: NOW + 50_000,
        })
        .catch((e: unknown) => e);
      expect((err as LeaseLostError).message).toContain('holder is r1 with fence 1');
    });

    it('remembers a released slot as done: a later claim of it is already-succeeded, a forced one acquires', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      await s.leases.release({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 5,
        doneSlots: new Set(['S1']),
      });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        leaseUntilMs: 0,
        holderState: 'released',
        releasedAtMs: NOW + 5,
        doneSlots: new Set(['S1']),
      });
      expect(await s.leases.claim(claimOf('r2', 'S1', NOW + 10))).toEqual({
        kind: 'already-succeeded',
        fence: 1,
      });
      const forced = await s.leases.claim({ ...claimOf('r3', 'S1', NOW + 10), force: true });
      expect(forced).toMatchObject({
        kind: 'acquired',
        fence: 2,
        doneSlots: new Set(['S1']),
        previous: { runId: 'r1', abandoned: false },
      });
    });

    it('refuses a release by a holder that lost the lease', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      await s.leases.claim(claimOf('r2', 'S1', NOW + 60_001));
      const err = await s.leases
        .release({ job: 'contract-job', runId: 'r1', fence: 1, nowMs: NOW })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LeaseLostError);
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        owner: 'r2',
        fence: 2,
        holderState: 'running',
      });
    });

    it('makes release terminal for its owner and fence: a renewal delivered after it is refused and revives nothing', async () => {
      // A renewal held in the network lands after the release.
      await s.leases.claim(claimOf('r1', 'S1'));
      await s.leases.release({ job: 'contract-job', runId: 'r1', fence: 1, nowMs: NOW + 5_000 });
      const err = await s.leases
        .renew({ job: 'contract-job', runId: 'r1', fence: 1, nowMs: NOW + 1_000, leaseUntilMs: NOW + 61_000 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LeaseLostError);
      expect((err as Error).message).toContain('already released it');
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        owner: 'r1',
        fence: 1,
        holderState: 'released',
        leaseUntilMs: 0,
      });
      // the next slot's on-time delivery claims at once (no `overlap`)
      expect(await s.leases.claim(claimOf('r2', 'S2', NOW + 6_000))).toMatchObject({
        kind: 'acquired',
        fence: 2,
      });
    });

    it('accepts its own release again when the first response was lost', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      s.faults.add({ name: 'release response lost', match: on.release, action: { kind: 'apply-then-fail' } });
      await s.leases.release({ job: 'contract-job', runId: 'r1', fence: 1, nowMs: NOW + 5_000 });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        holderState: 'released',
        fence: 1,
      });
    });

    it('treats a claim that was applied but whose response was lost as its own (same fence, ownWrite)', async () => {
      s.faults.add({ name: 'claim response lost', match: on.claim, action: { kind: 'apply-then-fail' } });
      const d = await s.leases.claim(claimOf('r1', 'S1'));
      expect(d).toEqual({ kind: 'acquired', fence: 1, doneSlots: new Set(), ownWrite: true, open: [] });
      expect(s.faults.fired).toEqual([{ rule: 'claim response lost', command: 'UpdateItemCommand' }]);
    });

    it('retries a throttled claim and fails with StoreError naming the step when throttling persists', async () => {
      s.faults.add({
        name: 'throttle once',
        match: on.claim,
        action: { kind: 'fail', error: throttlingError },
      });
      expect(await s.leases.claim(claimOf('r1', 'S1'))).toMatchObject({ kind: 'acquired', fence: 1 });
      s.faults.add({
        name: 'throttle',
        match: on.claim,
        action: { kind: 'fail', error: throttlingError },
        times: 10,
      });
      const err = await s.leases.claim(claimOf('r2', 'S2', NOW + 60_001)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).message).toContain(
        'DynamoDB UpdateItem (claim lease) failed: ProvisionedThroughputExceededException',
      );
      expect(s.faults.ops.get('claim')).toBe(6); // 2 for the first claim, then 4 attempts (DynamoDB client default)
    });

    it('ignores a done set written under another definition id, and honours one written under its own', async () => {
      const d1 = await s.leases.claim({ ...claimOf('r1', 'S1'), def: 'tokyo' });
      if (d1.kind !== 'acquired') throw new Error(d1.kind);
      await s.leases.release({
        job: 'contract-job',
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 5,
        doneSlots: new Set(['S1']),
        def: 'tokyo',
        clearOpen: true,
      });
      expect(await s.leases.claim({ ...claimOf('r2', 'S1', NOW + 10), def: 'tokyo' })).toEqual({
        kind: 'already-succeeded',
        fence: 1,
      });
      const la = await s.leases.claim({ ...claimOf('r3', 'S1', NOW + 10), def: 'los-angeles' });
      expect(la).toMatchObject({ kind: 'acquired', fence: 2, doneSlots: new Set() });
    });

    it('keeps every unreleased claim on the open list, with its fence, until a release clears it', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      await s.leases.claim(claimOf('r2', 'S1', NOW + 60_001));
      const d = await s.leases.claim(claimOf('r3', 'S1', NOW + 120_002));
      expect(d).toMatchObject({
        kind: 'acquired',
        fence: 3,
        open: [
          { runId: 'r1', slot: 'S1', fence: 1, leaseUntilMs: NOW + 60_000 },
          { runId: 'r2', slot: 'S1', fence: 2, leaseUntilMs: NOW + 120_001 },
        ],
      });
      await s.leases.release({
        job: 'contract-job',
        runId: 'r3',
        fence: 3,
        nowMs: NOW + 120_010,
        clearOpen: true,
      });
      expect((await s.leases.get({ job: 'contract-job' }))?.open).toBeUndefined();
      expect(await s.leases.claim(claimOf('r4', 'S2', NOW + 120_020))).toMatchObject({ fence: 4, open: [] });
    });

    it('releases after a failed claim only when the item still names the run as a running owner', async () => {
      await s.leases.claim(claimOf('r1', 'S1'));
      expect(
        await s.leases.releaseIfOwner({ job: 'contract-job', runId: 'r2', nowMs: NOW + 1 }),
      ).toBeUndefined();
      expect(
        await s.leases.releaseIfOwner({ job: 'contract-job', runId: 'r1', nowMs: NOW + 2 }),
      ).toMatchObject({
        owner: 'r1',
        fence: 1,
        holderState: 'running',
      });
      expect(await s.leases.get({ job: 'contract-job' })).toMatchObject({
        leaseUntilMs: 0,
        holderState: 'released',
      });
      expect(
        await s.leases.releaseIfOwner({ job: 'contract-job', runId: 'r1', nowMs: NOW + 3 }),
      ).toBeUndefined();
    });
  });
}
