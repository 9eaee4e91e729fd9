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
  });
}
