/**
 * The EffectStore contract (docs/design.md step 5): every transition is one conditional write; the
 * writes before a provider call re-check the lease in the same atomic step.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { on } from '../../../harness/faults/sdk-faults.js';
import type { StoreFixture } from './fixture.js';

const NOW = 1_780_000_000_000;
const LEASE = 'JOB#contract-job';
const fields = { requestHash: 'h1', job: 'contract-job', provider: 'payments' };
const fc = (runId: string, fence: number) => ({ leaseKey: LEASE, runId, fence, nowMs: NOW });
const succeeded = { status: 'succeeded', providerRef: 'po_1', responseDigest: 'd1' } as const;

/** Define the effect-store contract tests for one implementation. */
export function effectStoreContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`${name}: EffectStore contract`, () => {
    let s: StoreFixture;
    const claim = (runId: string, nowMs = NOW) =>
      s.leases.claim({ job: 'contract-job', runId, slotId: 'S1', nowMs, leaseUntilMs: nowMs + 60_000 });
    beforeEach(async () => {
      s = await make();
    });

    it('inserts an effect as sending only while its run holds the lease', async () => {
      await claim('r1');
      expect(await s.effects.beginSending('k1', fields, fc('r1', 1))).toEqual({ kind: 'sending' });
      expect(await s.effects.get('k1')).toMatchObject({
        key: 'k1',
        status: 'sending',
        attempts: 1,
        fence: 1,
        runId: 'r1',
        leaseKey: LEASE,
      });
      const other = await s.effects.beginSending('k2', fields, fc('r0', 1));
      expect(other.kind).toBe('lease-lost');
      expect(await s.effects.get('k2')).toBeUndefined();
    });

    it('returns the existing record to a second insert, and its own record to a retried one', async () => {
      await claim('r1');
      s.faults.add({ name: 'sending response lost', match: on.effect, action: { kind: 'apply-then-fail' } });
      const first = await s.effects.beginSending('k1', fields, fc('r1', 1));
      expect(['sending', 'existing']).toContain(first.kind);
      if (first.kind === 'existing')
        expect(first.item).toMatchObject({ runId: 'r1', fence: 1, status: 'sending' });
      const second = await s.effects.beginSending('k1', fields, fc('r1', 1));
      expect(second).toMatchObject({
        kind: 'existing',
        item: { status: 'sending', runId: 'r1', attempts: 1 },
      });
    });

    it('records its own outcome once; a second finish gets the stored record back', async () => {
      await claim('r1');
      await s.effects.beginSending('k1', fields, fc('r1', 1));
      const done = await s.effects.finish('k1', fc('r1', 1), succeeded);
      expect(done).toMatchObject({
        kind: 'recorded',
        item: { status: 'succeeded', providerRef: 'po_1', finishedAtMs: NOW },
      });
      const again = await s.effects.finish('k1', fc('r1', 1), succeeded);
      expect(again).toMatchObject({ kind: 'existing', item: { status: 'succeeded' } });
    });

    it('lets a newer holder take over a sending effect as it saw it, and refuses a changed one', async () => {
      await claim('r1');
      await s.effects.beginSending('k1', fields, fc('r1', 1));
      await claim('r2', NOW + 60_001);
      const seen = { status: 'sending', fence: 1, runId: 'r1' };
      expect(await s.effects.moveToSending('k1', seen, fc('r2', 2))).toEqual({ kind: 'sending' });
      expect(await s.effects.get('k1')).toMatchObject({
        status: 'sending',
        attempts: 2,
        fence: 2,
        runId: 'r2',
      });
      expect(await s.effects.moveToSending('k1', seen, fc('r2', 2))).toMatchObject({
        kind: 'existing',
        item: { fence: 2 },
      });
    });

    it('settles an effect left sending as needs-review with the problems-index attributes', async () => {
      await claim('r1');
      await s.effects.beginSending('k1', fields, fc('r1', 1));
      await claim('r2', NOW + 60_001);
      const r = await s.effects.settle('k1', { status: 'sending', fence: 1, runId: 'r1' }, fc('r2', 2), {
        status: 'needs-review',
        reviewReason: 'no keys, no lookup',
      });
      expect(r).toMatchObject({
        kind: 'recorded',
        item: { status: 'needs-review', problem: 'needs-review', problemAtMs: NOW, fence: 2, runId: 'r2' },
      });
    });

    describe('an operator resolve, conditioned on the record shown and its holder', () => {
      const resolution = { key: 'k1', as: 'not-executed', note: 'not at the bank', by: 'ops' } as const;
      const versionOf = (
        i: { status?: unknown; fence?: unknown; attempts?: unknown; updatedAtMs?: unknown } | undefined,
      ) => [i?.status, i?.fence, i?.attempts, i?.updatedAtMs].map(String).join(':');

      it('refuses a sending effect while its holder’s lease is live, naming the holder and its lease end; changes nothing', async () => {
        await claim('r1');
        await s.effects.beginSending('k1', fields, fc('r1', 1));
        const before = await s.effects.get('k1');
        const refused = await s.effects.resolve({ ...resolution, nowMs: NOW + 1_000 }).catch((e) => e);
        expect(refused).toMatchObject({
          name: 'EffectInFlightError',
          holderRunId: 'r1',
          leaseUntilMs: NOW + 60_000,
          message: `effect "k1" is sending under the live lease of run r1 (owner r1, fence 1, lease ${LEASE}), which ends at ${new Date(NOW + 60_000).toISOString()}: its provider call may be in flight: nothing changed; wait until that run records its outcome or its lease ends, then look again`,
        });
        expect(await s.effects.get('k1')).toEqual(before);
      });

      it('accepts it once that lease ended by the operator’s clock, as the version shown', async () => {
        await claim('r1');
        await s.effects.beginSending('k1', fields, fc('r1', 1));
        const shown = versionOf(await s.effects.get('k1'));
        expect(shown).toBe(`sending:1:1:${NOW}`);
        const after = await s.effects.resolve({ ...resolution, nowMs: NOW + 60_001, expect: shown });
        expect(after).toMatchObject({ status: 'pending', reviewedBy: 'ops', updatedAtMs: NOW + 60_001 });
      });

      it('refuses a version that is no longer the record’s, carrying the record as it is', async () => {
        await claim('r1');
        await s.effects.beginSending('k1', fields, fc('r1', 1));
        await claim('r2', NOW + 60_001);
        await s.effects.settle('k1', { status: 'sending', fence: 1, runId: 'r1' }, fc('r2', 2), {
          status: 'needs-review',
          reviewReason: 'no keys, no lookup',
        });
        const now = await s.effects.get('k1');
        const refused = await s.effects
          .resolve({ ...resolution, nowMs: NOW + 70_000, expect: `sending:1:1:${NOW}` })
          .catch((e) => e);
        expect(refused).toMatchObject({ name: 'EffectChangedError', expected: `sending:1:1:${NOW}` });
        expect(refused.item).toMatchObject({ status: 'needs-review', fence: 2, runId: 'r2' });
        expect(await s.effects.get('k1')).toEqual(now);
      });
    });

    it('appends the outcome of a call whose finish was refused, and keeps an unknown outcome’s error only while ours', async () => {
      await claim('r1');
      await s.effects.beginSending('k1', fields, fc('r1', 1));
      await s.effects.noteError('k1', fc('r1', 1), {
        name: 'EffectOutcomeUnknownError',
        message: 'HTTP 503',
      });
      await s.effects.noteError('k1', fc('r0', 1), { name: 'Other', message: 'not ours' });
      expect((await s.effects.get('k1'))?.lastError).toEqual({
        name: 'EffectOutcomeUnknownError',
        message: 'HTTP 503',
        atMs: NOW,
        at: new Date(NOW).toISOString(),
      });
      await claim('r2', NOW + 60_001);
      await s.effects.moveToSending('k1', { status: 'sending', fence: 1, runId: 'r1' }, fc('r2', 2));
      expect((await s.effects.finish('k1', fc('r1', 1), succeeded)).kind).toBe('existing');
      const late = await s.effects.recordLateOutcome('k1', fc('r1', 1), succeeded);
      expect(late).toMatchObject({ status: 'sending', fence: 2, runId: 'r2' });
      expect(late?.lateOutcomes).toEqual([
        {
          runId: 'r1',
          fence: 1,
          status: 'succeeded',
          providerRef: 'po_1',
          responseDigest: 'd1',
          atMs: NOW,
          at: new Date(NOW).toISOString(),
        },
      ]);
      expect(await s.effects.recordLateOutcome('missing', fc('r1', 1), succeeded)).toBeUndefined();
    });
  });
}
