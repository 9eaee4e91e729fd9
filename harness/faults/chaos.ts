/**
 * Seeded chaos for `npm start -- --chaos`: the same fault layer as drills and the explorer, injecting a
 * reproducible mix into the emulated run — throttling (ProvisionedThroughputExceededException),
 * writes applied with their responses lost, slow requests, and short pauses at pause points — on the
 * protocol's writes (never on reads, so the emulator's sweeper and the final verification see the truth).
 */
import type { PausePoint } from '../../lib/runtime/deps.js';
import { FaultInjector, type FaultRequest, protocolOpOf, throttlingError } from './sdk-faults.js';

/** Per-request probabilities, each in [0, 1]. */
export interface ChaosRates {
  /** Throttled once (the SDK retries). @default 0.06 */
  readonly throttle?: number;
  /** Applied, response lost (the SDK retries and meets its own write). @default 0.03 */
  readonly lostResponse?: number;
  /** Delayed 5–80 ms. @default 0.05 */
  readonly slow?: number;
  /** A run pauses 5–40 ms at a pause point. @default 0.1 */
  readonly pause?: number;
}

/** A chaos source: attach its injector to the runs' client, pass its pause point to their deps. */
export interface Chaos {
  readonly seed: number;
  readonly injector: FaultInjector;
  readonly pausePoint: PausePoint;
  /** Faults injected so far, by kind and step (`throttle:claim`, `pause:before-write`, ...). */
  counts(): Record<string, number>;
}

/** mulberry32: a small seeded PRNG (same seed, same sequence of decisions for the same requests). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Build a seeded chaos source. */
export function createChaos(seed: number, rates: ChaosRates = {}): Chaos {
  const random = seededRandom(seed);
  const counts: Record<string, number> = {};
  const count = (k: string) => {
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const p = { throttle: 0.06, lostResponse: 0.03, slow: 0.05, pause: 0.1, ...rates };
  const opOf = (r: FaultRequest) => protocolOpOf(r);
  const writes = (r: FaultRequest) => !['read', 'other'].includes(opOf(r));
  const injector = new FaultInjector();
  const pick = (rate: number, kind: string) => (r: FaultRequest) => {
    if (!writes(r) || random() >= rate) return false;
    count(`${kind}:${opOf(r)}`);
    return true;
  };
  injector.add({
    name: 'chaos: throttled',
    match: pick(p.throttle, 'throttle'),
    action: { kind: 'fail', error: throttlingError },
    times: Number.MAX_SAFE_INTEGER,
  });
  injector.add({
    name: 'chaos: response lost',
    match: pick(p.lostResponse, 'lost-response'),
    action: { kind: 'apply-then-fail' },
    times: Number.MAX_SAFE_INTEGER,
  });
  injector.add({
    name: 'chaos: slow',
    match: pick(p.slow, 'slow'),
    action: { kind: 'delay', ms: 5 + Math.floor(random() * 75) },
    times: Number.MAX_SAFE_INTEGER,
  });
  const pausePoint: PausePoint = async (name) => {
    if (random() >= p.pause) return;
    count(`pause:${name}`);
    await new Promise((r) => setTimeout(r, 5 + Math.floor(random() * 35)));
  };
  return { seed, injector, pausePoint, counts: () => ({ ...counts }) };
}
