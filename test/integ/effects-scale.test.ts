/**
 * Issue 4 scenario d (integ: DynamoDB Local + the local payment service): 200 merchants, 3 concurrent
 * duplicate invocations, the holder killed midway with a payout in flight — exactly 200 payouts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payoutKey } from '../../functions/merchant-settlement.js';
import type { Merchant } from '../../functions/merchants.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import type { PaymentService } from '../../harness/local/payment-service.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { effectItems, kill, paymentsSetup } from '../helpers/payment-fixture.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const DATE = '2026-03-28';
const JOB = 'settlement-200';
const MERCHANTS_200: readonly Merchant[] = Array.from({ length: 200 }, (_, i) => ({
  merchantId: `S${String(i + 1).padStart(3, '0')}`,
  name: `Merchant ${i + 1}`,
  currency: 'CNY',
  dailyVolumeCents: 10_000 + i,
}));
const KILL_AT = payoutKey('S100', DATE);
let stack: LocalStack;
let service: PaymentService | undefined;

beforeEach(async () => {
  stack = await localStack();
});
afterEach(async () => {
  await service?.stop();
});

describe('d. 200 merchants, 3 concurrent duplicate invocations, one kill midway', () => {
  it('executes exactly 200 payouts and one e-mail, and leaves 200 payout effects succeeded', async () => {
    const setup = await paymentsSetup(
      { idempotencyKeys: true, lookup: false },
      { name: JOB, merchants: MERCHANTS_200 },
    );
    service = setup.service;
    service.inject({ kind: 'drop-response', match: { key: KILL_AT } });
    const round1 = [stack.worker(), stack.worker(), stack.worker()];
    service.onExecute((op) => {
      if (op.key === KILL_AT) for (const w of round1) kill(w.faults); // the holder dies with S100 in flight
    });
    const r1 = await Promise.all(
      round1.map((w, i) =>
        deliver(
          setup.settlement.withDeps(() => w.deps),
          { job: JOB, scheduledTimeMs: SLOT_MS, awsRequestId: 'req-1', label: `copy ${i}` },
        ),
      ),
    );
    expect(r1.map((r) => r.summary?.outcome ?? r.error?.message).sort()).toEqual([
      'DynamoDB PutItem (run record) failed: Error: killed',
      'skipped',
      'skipped',
    ]);
    expect(service.payouts()).toHaveLength(100);

    const clock = new ControlledClock(121_000); // the killed holder's lease has run out
    const round2 = [stack.worker({ clock }), stack.worker({ clock }), stack.worker({ clock })];
    const r2 = await Promise.all(
      round2.map((w, i) =>
        deliver(
          setup.settlement.withDeps(() => w.deps),
          {
            job: JOB,
            scheduledTimeMs: SLOT_MS,
            attemptNumber: 2,
            awsRequestId: 'req-2',
            label: `retry ${i}`,
          },
        ),
      ),
    );
    expect(r2.map((r) => r.summary?.outcome).sort()).toEqual(['skipped', 'skipped', 'succeeded']);

    const payouts = service.payouts();
    expect(payouts).toHaveLength(200);
    expect(new Set(payouts.map((p) => p.key)).size).toBe(200);
    expect(service.payouts(KILL_AT)).toHaveLength(1);
    expect(service.emails()).toHaveLength(1);
    const effects = await effectItems(stack);
    const payoutEffects = effects.filter((e) => String(e.key).startsWith('payout#'));
    expect(payoutEffects).toHaveLength(200);
    expect(payoutEffects.filter((e) => e.status === 'succeeded')).toHaveLength(200);
    expect(payoutEffects.filter((e) => e.attempts === 2).map((e) => e.key)).toEqual([KILL_AT]);
    const records = await stack.runRecords(JOB);
    const seen = (r: Record<string, unknown>) => (r.holderSeen as { fence?: number } | undefined)?.fence;
    expect(records.map((r) => `${r.outcome}:${r.reason ?? '-'}:fence ${r.fence ?? seen(r)}`).sort()).toEqual([
      'abandoned:not-released:fence 1',
      'skipped:lease-held:fence 1',
      'skipped:lease-held:fence 1',
      'skipped:lease-held:fence 2',
      'skipped:lease-held:fence 2',
      'succeeded:-:fence 2',
    ]);
    const winner = records.find((r) => r.outcome === 'succeeded');
    expect(winner?.details).toMatchObject({
      inserted: 100,
      existing: 100,
      payouts: { stored: 99, resent: 1, sent: 100, succeeded: 200, failed: 0, needsReview: 0 },
      email: 'succeeded (sent)',
    });
  });
});
