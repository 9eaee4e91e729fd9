/**
 * Times in messages read as ISO instants, never as epoch ms (unit): the lease keeper's lapse and the
 * effect decision that cannot resend.
 */
import { describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import type { LeaseStore } from '../../lib/core/ports.js';
import { decideExisting } from '../../lib/effects/decide.js';
import { LeaseKeeper } from '../../lib/runtime/lease-keeper.js';

const UNTIL_MS = Date.parse('2026-11-30T10:00:01.288Z');

describe('times in messages', () => {
  it("names the instant a run's lease lapsed", () => {
    const clock = new ControlledClock();
    clock.freeze();
    clock.advance(UNTIL_MS - clock.now());
    const keeper = new LeaseKeeper({
      leases: {} as LeaseStore,
      clock,
      ref: { job: 'nightly', runId: 'r1', fence: 3 },
      leaseMs: 60_000,
      renewFraction: 1 / 3,
      leaseUntilMs: UNTIL_MS,
      remainingTimeMs: () => 600_000,
      skewBudgetMs: 1_000,
    });
    expect(() => keeper.assertHeld()).toThrow(
      'lease of nightly lapsed at 2026-11-30T10:00:01.288Z (less than the 1000 ms skew budget left) without a successful renewal',
    );
  });

  it('names when an effect was first sent when its key may be forgotten', () => {
    const d = decideExisting(
      {
        status: 'sending',
        requestHash: 'h',
        fence: 4,
        leaseKey: 'JOB#nightly',
        runId: 'run-a',
        createdAtMs: Date.parse('2026-11-29T08:00:00Z'),
      },
      {
        fence: 5,
        runId: 'run-b',
        requestHash: 'h',
        leaseKey: 'JOB#nightly',
        idempotencyKeys: true,
        canLookup: false,
        providerName: 'payments',
        keyRetentionMs: 3_600_000,
        nowMs: Date.parse('2026-11-30T08:00:00Z'),
        attemptedHere: false,
      },
    );
    expect(d).toEqual({
      kind: 'review',
      why: 'outcome of the call by run run-a (fence 4) is unknown and provider "payments" may have forgotten the key (first sent 2026-11-29T08:00:00.000Z, keys kept 3600000 ms) and has no lookup; not resent',
    });
  });
});
