/**
 * A run whose claim is in flight or answered at once (unit: in-memory store, a clock that counts its
 * armed timers): a timer is armed, a stop listener added and an event emitted only for a won claim; a
 * refused claim leaves none behind; a claim the store fails is recorded however the store fails it.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createMemoryDeps } from '../../harness/drills/memory-deps.js';
import { schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import { MemoryDb } from '../../harness/memory/index.js';
import { parseInvocationEvent } from '../../lib/core/event.js';
import type { Clock } from '../../lib/core/ports.js';
import { StoreError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import type { RuntimeEvent } from '../../lib/runtime/events.js';
import { RunSession } from '../../lib/runtime/run-session.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const job = defineJob({
  name: 'flight',
  schedule: 'rate(1 minute)',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async () => undefined,
});

/** A clock at a fixed time that counts the timers armed on it and not yet cancelled or fired. */
function countingClock(nowMs: number): Clock & { armed: () => number } {
  const live = new Set<object>();
  return {
    now: () => nowMs,
    setTimer: () => {
      const t = {};
      live.add(t);
      return () => live.delete(t);
    },
    armed: () => live.size,
  };
}

/** One event-loop turn (an immediate), as a request's wait for the network is. */
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * One invocation's session for `slotMs` on its own clock, stop signal and event list. `inFlight`: its
 * claim is answered two event-loop turns after it was sent (as a network round trip is), so what the
 * session builds in the meantime is built before the answer; else at once.
 */
function session(
  db: MemoryDb,
  slotMs: number,
  requestId: string,
  inFlight = false,
  claimInstead?: (req: unknown) => Promise<never>,
) {
  const clock = countingClock(slotMs + 5_000);
  const stop = new AbortController();
  const events: RuntimeEvent[] = [];
  const memory = createMemoryDeps({ db, clock, observe: (e) => events.push(e) });
  const leases = memory.leases;
  const claimLater = async (req: Parameters<typeof leases.claim>[0]) => {
    await turn();
    await turn();
    return leases.claim(req);
  };
  const claim = claimInstead ?? (inFlight ? claimLater : undefined);
  const deps = claim
    ? { ...memory, leases: Object.assign(Object.create(leases) as typeof leases, { claim }) }
    : memory;
  const lambda = {
    awsRequestId: requestId,
    getRemainingTimeInMillis: () => 100_000,
    stopSignal: stop.signal,
  };
  const s = new RunSession(
    job.job,
    job.expression,
    deps,
    parseInvocationEvent(schedulerPayload('flight', slotMs)),
    lambda,
  );
  return { s, clock, stop, events };
}

describe('the keeper and context built during the claim', () => {
  it.each([
    ['answered at once', false],
    ['answered after two event-loop turns', true],
  ])(
    'are started and shown only for a won claim (%s): two timers, one stop listener, its fence',
    async (_c, inFlight) => {
      const db = new MemoryDb(() => SLOT_MS + 5_000);
      const a = session(db, SLOT_MS, 'req-a', inFlight);
      const begun = await a.s.begin();
      await turn();
      if (begun.kind !== 'run') throw new Error(`expected a run, got ${begun.kind}`);
      expect(begun.ctx.fence).toBe(1);
      expect(begun.ctx.runId).toBe(a.s.runId);
      expect(begun.ctx.signal.aborted).toBe(false);
      expect(a.clock.armed()).toBe(2); // the renewal timer and the watchdog
      expect(getEventListeners(a.stop.signal, 'abort')).toHaveLength(1);
      expect(a.events.map((e) => e.type)).toEqual(['claim-won']);
      await a.s.succeed();
      expect(a.clock.armed()).toBe(0);
      expect(begun.ctx.fence).toBe(1);
    },
  );

  it.each([
    ['the same slot, held by a live holder', 0, 'lease-held', false],
    ['the next slot while the holder runs', 60_000, 'overlap', false],
    ['the same slot, answered after two turns', 0, 'lease-held', true],
    ['the next slot, answered after two turns', 60_000, 'overlap', true],
  ])(
    'leave nothing armed, listened to or emitted for a refused claim: %s',
    async (_c, laterMs, reason, inFlight) => {
      const db = new MemoryDb(() => SLOT_MS + 5_000);
      const holder = session(db, SLOT_MS, 'req-a');
      expect((await holder.s.begin()).kind).toBe('run');
      const b = session(db, SLOT_MS + laterMs, 'req-b', inFlight);
      const begun = await b.s.begin();
      await turn();
      expect(begun).toMatchObject({ kind: 'skipped', summary: { outcome: 'skipped', reason } });
      expect(b.clock.armed()).toBe(0);
      expect(getEventListeners(b.stop.signal, 'abort')).toHaveLength(0);
      expect(b.events.map((e) => [e.type, 'reason' in e ? e.reason : undefined])).toEqual([
        ['claim-lost', reason],
        ['recording', reason],
        ['finish', undefined],
      ]);
      // The holder's own keeper is untouched by the refused claim.
      expect(holder.clock.armed()).toBe(2);
      await holder.s.succeed();
    },
  );
});

describe('a claim the store refuses', () => {
  it.each([
    ['throwing at once', true],
    ['rejecting later', false],
  ])(
    'is recorded failed / store-error and its StoreError rethrown, whether the lease store is %s',
    async (_c, atOnce) => {
      const db = new MemoryDb(() => SLOT_MS + 5_000);
      const refused = new StoreError('UpdateItem (claim lease)', new Error('throttled'));
      const claim = atOnce
        ? (): Promise<never> => {
            throw refused;
          }
        : async (): Promise<never> => {
            await turn();
            throw refused;
          };
      const a = session(db, SLOT_MS, 'req-a', false, claim);
      await expect(a.s.begin()).rejects.toBe(refused);
      expect(a.s.unclaimedFailure).toMatchObject({ outcome: 'failed', reason: 'store-error' });
      expect(a.clock.armed()).toBe(0);
    },
  );
});
