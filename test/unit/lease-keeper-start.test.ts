/**
 * When the lease keeper arms its timers (unit, a clock that records the timers armed on it): in a
 * `process.nextTick` callback after `start`, timed from `start` — the first renewal one renew period
 * after it and the watchdog at the lease lapse less the skew budget, however long the body's synchronous
 * part held the thread — and not at all for a run that finished before that callback.
 */
import { describe, expect, it } from 'vitest';
import type { Clock, LeaseStore } from '../../lib/core/ports.js';
import { LeaseKeeper } from '../../lib/runtime/lease-keeper.js';

const START_MS = Date.parse('2026-12-05T10:00:00Z');
const LEASE_MS = 60_000;
const SKEW_MS = 1_000;

/** A clock at a time the test sets, recording the delay of every timer armed on it. */
function recordingClock() {
  let nowMs = START_MS;
  const delays: number[] = [];
  const clock: Clock = {
    now: () => nowMs,
    setTimer: (_fn, delayMs) => {
      delays.push(delayMs);
      return () => undefined;
    },
  };
  return { clock, delays, advance: (ms: number) => (nowMs += ms) };
}

function keeper(clock: Clock) {
  return new LeaseKeeper({
    leases: {} as LeaseStore,
    clock,
    ref: { job: 'nightly', runId: 'r1', fence: 0 },
    leaseMs: LEASE_MS,
    renewFraction: 1 / 3,
    leaseUntilMs: 0,
    remainingTimeMs: () => 600_000,
    skewBudgetMs: SKEW_MS,
  });
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('the lease keeper arms its timers once the body has started', () => {
  it('arms the watchdog and the renewal after start returns, timed from start: 20 s and 59 s', async () => {
    const c = recordingClock();
    const k = keeper(c.clock);
    k.start({ fence: 4, leaseUntilMs: START_MS + LEASE_MS });
    expect(c.delays).toEqual([]);
    await turn();
    expect(c.delays).toEqual([LEASE_MS - SKEW_MS, LEASE_MS / 3]);
    k.stop();
  });

  it('times them from start when the body held the thread 15 s before they are armed: 5 s and 44 s', async () => {
    const c = recordingClock();
    const k = keeper(c.clock);
    k.start({ fence: 4, leaseUntilMs: START_MS + LEASE_MS });
    c.advance(15_000);
    await turn();
    expect(c.delays).toEqual([LEASE_MS - SKEW_MS - 15_000, LEASE_MS / 3 - 15_000]);
    k.stop();
  });

  it('arms nothing for a run that finished before they are armed', async () => {
    const c = recordingClock();
    const k = keeper(c.clock);
    k.start({ fence: 4, leaseUntilMs: START_MS + LEASE_MS });
    k.finish();
    await turn();
    expect(c.delays).toEqual([]);
    expect(k.signal.aborted).toBe(true);
  });
});
