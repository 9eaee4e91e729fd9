/**
 * The pause contract (docs/design.md "Pause"): the declared pause/resume writes and the claim's
 * `notPaused` clause decide the same on every backend (in memory and DynamoDB Local).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { JobNotPausedError, JobPausedError } from '../../../lib/errors.js';
import type { StoreFixture } from './fixture.js';

const NOW = 1_780_000_000_000;
const JOB = 'contract-job';
const claimOf = (runId: string, nowMs: number, extra: { shard?: number; force?: boolean } = {}) => ({
  job: JOB,
  runId,
  slotId: 'S1',
  nowMs,
  leaseUntilMs: nowMs + 60_000,
  ...extra,
});
const PAUSE = { by: 'ops-alice', atMs: NOW, note: 'INC-42 ledger freeze' };

/** Define the pause contract tests for one implementation (`pauses` on the fixture's library table). */
export function pauseContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`${name}: pause contract`, () => {
    let s: StoreFixture;
    beforeEach(async () => {
      s = await make();
    });

    it('refuses every claim while paused, forced (manual) ones too, naming the pause; a holder keeps its lease', async () => {
      await s.leases.claim(claimOf('r1', NOW - 1_000));
      await s.pauses.pause({
        job: JOB,
        shards: 1,
        by: 'ops-alice',
        note: ' INC-42 ledger freeze ',
        nowMs: NOW,
      });
      expect(await s.leases.get({ job: JOB })).toMatchObject({
        owner: 'r1',
        fence: 1,
        holderState: 'running',
      });
      for (const extra of [{}, { force: true }])
        expect(await s.leases.claim(claimOf('r2', NOW + 120_000, extra))).toEqual({
          kind: 'paused',
          pause: PAUSE,
          fence: 1,
        });
      expect(await s.leases.get({ job: JOB })).toMatchObject({ owner: 'r1', fence: 1 });
    });

    it('refuses a second pause naming the first; replaces one whose --until passed; the claim acquires after it', async () => {
      await s.pauses.pause({
        job: JOB,
        shards: 1,
        by: 'ops-alice',
        note: 'first',
        nowMs: NOW,
        untilMs: NOW + 10,
      });
      const err = await s.pauses
        .pause({ job: JOB, shards: 1, by: 'ops-bob', note: 'second', nowMs: NOW + 5 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobPausedError);
      expect((err as Error).message).toContain('already paused by ops-alice');
      expect(await s.leases.claim(claimOf('r1', NOW + 11))).toMatchObject({ kind: 'acquired', fence: 1 });
      await s.pauses.pause({ job: JOB, shards: 1, by: 'ops-bob', note: 'second', nowMs: NOW + 20 });
      expect(await s.pauses.pauseOf(JOB, NOW + 20)).toEqual({
        by: 'ops-bob',
        atMs: NOW + 20,
        note: 'second',
      });
    });

    it('pauses every shard lease of a sharded job; resume clears only the pause it read', async () => {
      await s.pauses.pause({
        job: JOB,
        shards: 3,
        by: 'ops-alice',
        note: 'INC-42 ledger freeze',
        nowMs: NOW,
      });
      for (const shard of [0, 1, 2])
        expect(await s.leases.claim(claimOf(`r${shard}`, NOW + 1, { shard }))).toEqual({
          kind: 'paused',
          pause: PAUSE,
          fence: 0,
        });
      const stale = await s.pauses
        .resume({ job: JOB, shards: 3, pausedAtMs: NOW - 1 })
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(JobNotPausedError);
      await s.pauses.resume({ job: JOB, shards: 3, pausedAtMs: NOW });
      expect(await s.leases.claim(claimOf('r9', NOW + 2, { shard: 2 }))).toMatchObject({
        kind: 'acquired',
        fence: 1,
      });
      expect(await s.leases.claim(claimOf('r8', NOW + 2))).toMatchObject({ kind: 'acquired', fence: 1 });
    });

    it('refuses an empty or 201-character note naming note, writing nothing', async () => {
      for (const note of ['  ', 'x'.repeat(201)]) {
        const err = await s.pauses
          .pause({ job: JOB, shards: 1, by: 'ops', note, nowMs: NOW })
          .catch((e) => e);
        expect((err as Error).message).toMatch(/^invalid note "/);
      }
      expect(await s.leases.get({ job: JOB })).toBeUndefined();
    });

    it('conditions a pause on the lease version shown: a claim since then refuses it, changing nothing', async () => {
      await s.leases.claim(claimOf('r1', NOW - 120_000));
      const shown = '1:-';
      await s.leases.claim(claimOf('r2', NOW - 30_000));
      const before = await s.leases.get({ job: JOB });
      const err = await s.pauses
        .pause({ job: JOB, shards: 1, by: 'ops', note: 'n', nowMs: NOW, expect: shown })
        .catch((e) => e);
      expect(err).toMatchObject({
        name: 'LeaseChangedError',
        expected: '1:-',
        item: { fence: 2, owner: 'r2' },
      });
      expect(await s.leases.get({ job: JOB })).toEqual(before);
      await s.pauses.pause({ job: JOB, shards: 1, by: 'ops', note: 'n', nowMs: NOW, expect: '2:-' });
      expect(await s.pauses.pauseOf(JOB, NOW)).toMatchObject({ by: 'ops', atMs: NOW });
      const stale = await s.pauses.resume({ job: JOB, shards: 1, pausedAtMs: NOW, fence: 1 }).catch((e) => e);
      expect(stale).toBeInstanceOf(JobNotPausedError);
      await s.pauses.resume({ job: JOB, shards: 1, pausedAtMs: NOW, fence: 2 });
      expect(await s.pauses.pauseOf(JOB, NOW)).toBeUndefined();
    });
  });
}
