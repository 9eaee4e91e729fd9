/**
 * The overlap policies' writes on the lease item (lib/store/protocol/overlap-operations.ts and the
 * claim's overlap guards): buffer, replace, after-previous and unbuffer decide the same on every
 * implementation (DynamoDB Local in test/integ, the memory backend in test/unit).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { OverlapLeaseStore } from '../../../lib/core/overlap-ports.js';
import type { LeaseStore } from '../../../lib/core/ports.js';
import { LeaseLostError } from '../../../lib/errors.js';
import type { StoreFixture } from './fixture.js';

const NOW = 1_780_000_000_000;
const JOB = 'contract-overlap';
const at = (hhmm: string) => `2026-05-01T${hhmm}`;
const claimOf = (runId: string, slotId: string, nowMs = NOW) => ({
  job: JOB,
  runId,
  slotId,
  nowMs,
  leaseUntilMs: nowMs + 60_000,
});
const bufferOf = (slotId: string, nowMs = NOW + 1_000, maxBuffered = 2) => ({
  job: JOB,
  slotId,
  nowMs,
  maxBuffered,
});

/** Define the overlap contract tests for one implementation. */
export function overlapContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`${name}: overlap policies at the lease`, () => {
    let leases: LeaseStore & OverlapLeaseStore;
    let s: StoreFixture;
    beforeEach(async () => {
      s = await make();
      leases = s.leases as LeaseStore & OverlapLeaseStore;
    });

    it('buffers up to maxBuffered arrivals once each, refuses the rest, and claims them in buffer order', async () => {
      await leases.claim(claimOf('r1', at('10:00')));
      expect(await leases.buffer(bufferOf(at('10:03')))).toEqual({
        kind: 'buffered',
        buffered: [at('10:03')],
      });
      expect(await leases.buffer(bufferOf(at('10:03')))).toEqual({
        kind: 'already-buffered',
        buffered: [at('10:03')],
      });
      expect(await leases.buffer(bufferOf(at('10:06')))).toEqual({
        kind: 'buffered',
        buffered: [at('10:03'), at('10:06')],
      });
      expect(await leases.buffer(bufferOf(at('10:09')))).toEqual({
        kind: 'full',
        buffered: [at('10:03'), at('10:06')],
      });
      expect(await leases.buffer(bufferOf(at('10:00')))).toMatchObject({ kind: 'claim-decides' });
      const released = await leases.release({ job: JOB, runId: 'r1', fence: 1, nowMs: NOW + 2_000 });
      expect(released).toEqual({ buffered: [at('10:03'), at('10:06')] });
      // Free, but slots wait: a new arrival is not claimed past them.
      for (const [runId, slot] of [
        ['r4', at('10:09')],
        ['r5', at('10:06')], // a duplicate of a waiting slot that is not first: it does not jump the queue
      ] as const) {
        const refused = await leases.claim({
          ...claimOf(runId, slot, NOW + 3_000),
          overlap: { buffer: 'none-waiting' },
        });
        expect(refused).toMatchObject({
          kind: 'held',
          buffered: [at('10:03'), at('10:06')],
          holderState: 'released',
        });
      }
      const first = await leases.claim({
        ...claimOf('r2', at('10:03'), NOW + 3_000),
        overlap: { buffer: 'own-turn' },
      });
      expect(first).toMatchObject({ kind: 'acquired', fence: 2 });
      expect((await leases.get({ job: JOB }))?.buffered).toEqual(new Set(['0hn0gu']));
    });

    it('takes a slot that can no longer run off the buffer, once', async () => {
      await leases.claim(claimOf('r1', at('10:00')));
      await leases.buffer(bufferOf(at('10:03')));
      expect(await leases.unbuffer({ job: JOB, slotId: at('10:03') })).toBe(true);
      expect(await leases.unbuffer({ job: JOB, slotId: at('10:03') })).toBe(false);
      expect((await leases.get({ job: JOB }))?.buffered).toBeUndefined();
    });

    it('replaces a live holder of an older slot by raising the fence, and its renewal then says it was replaced', async () => {
      await leases.claim(claimOf('r1', at('10:00')));
      const d = await leases.replace({
        ...claimOf('r2', at('10:03'), NOW + 1_000),
        holder: { runId: 'r1', fence: 1 },
        replaceAfterSeconds: 0,
      });
      expect(d).toMatchObject({
        kind: 'acquired',
        fence: 2,
        previous: { runId: 'r1', fence: 1, abandoned: false },
      });
      expect(await leases.get({ job: JOB })).toMatchObject({
        owner: 'r2',
        fence: 2,
        replacedRunId: 'r1',
        replacedFence: 1,
      });
      const err = await leases
        .renew({ job: JOB, runId: 'r1', fence: 1, nowMs: NOW + 2_000, leaseUntilMs: NOW + 90_000 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LeaseLostError);
      expect((err as LeaseLostError).item).toMatchObject({ replacedRunId: 'r1', owner: 'r2' });
    });

    it.each([
      ['a holder younger than replaceAfterSeconds', at('10:03'), 30],
      ['a holder of a newer slot', at('09:57'), 0],
    ])('does not replace %s', async (_l, slot, replaceAfterSeconds) => {
      await leases.claim(claimOf('r1', at('10:00')));
      const d = await leases.replace({
        ...claimOf('r2', slot, NOW + 10_000),
        holder: { runId: 'r1', fence: 1 },
        replaceAfterSeconds,
      });
      expect(d).toMatchObject({ kind: 'held', holderRunId: 'r1', fence: 1 });
      expect(await leases.get({ job: JOB })).toMatchObject({ owner: 'r1', fence: 1 });
    });

    it('claims under after-previous only once the previous slot is in the done set (or nothing ever succeeded)', async () => {
      const first = await leases.claim({
        ...claimOf('r1', at('10:00')),
        overlap: { previousSlotId: at('09:57') },
      });
      expect(first).toMatchObject({ kind: 'acquired', fence: 1 });
      await leases.release({
        job: JOB,
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 1_000,
        doneSlots: new Set([at('10:00')]),
        succeededSlot: at('10:00'),
      });
      const early = await leases.claim({
        ...claimOf('r3', at('10:06'), NOW + 2_000),
        overlap: { previousSlotId: at('10:03') },
      });
      expect(early).toMatchObject({ kind: 'held', holderState: 'released', sameSlot: false });
      const next = await leases.claim({
        ...claimOf('r2', at('10:03'), NOW + 2_000),
        overlap: { previousSlotId: at('10:00') },
      });
      expect(next).toMatchObject({ kind: 'acquired', fence: 2 });
    });

    it('claims the first slot of an after-previous chain only while nothing succeeded (firstSlot)', async () => {
      await leases.claim(claimOf('r1', at('10:03')));
      await leases.release({
        job: JOB,
        runId: 'r1',
        fence: 1,
        nowMs: NOW + 1_000,
        doneSlots: new Set([at('10:03')]),
        succeededSlot: at('10:03'),
      });
      const before = await leases.claim({
        ...claimOf('r2', at('10:00'), NOW + 2_000),
        overlap: { firstSlot: true },
      });
      expect(before).toMatchObject({ kind: 'held', holderState: 'released', sameSlot: false });
      expect(await leases.get({ job: JOB })).toMatchObject({ owner: 'r1', fence: 1 });
    });

    it('claims under after-previous from the first slot only after it succeeded (fromFirstSlot: no fresh start)', async () => {
      const early = await leases.claim({
        ...claimOf('r1', at('10:03')),
        overlap: { previousSlotId: at('10:00'), fromFirstSlot: true },
      });
      expect(early).toMatchObject({ kind: 'held', sameSlot: false });
      expect(await leases.get({ job: JOB })).toBeUndefined();
      const first = await leases.claim(claimOf('r2', at('10:00'), NOW + 1_000));
      expect(first).toMatchObject({ kind: 'acquired', fence: 1 });
      await leases.release({
        job: JOB,
        runId: 'r2',
        fence: 1,
        nowMs: NOW + 2_000,
        doneSlots: new Set([at('10:00')]),
        succeededSlot: at('10:00'),
      });
      const next = await leases.claim({
        ...claimOf('r3', at('10:03'), NOW + 3_000),
        overlap: { previousSlotId: at('10:00'), fromFirstSlot: true },
      });
      expect(next).toMatchObject({ kind: 'acquired', fence: 2 });
    });
  });
}
