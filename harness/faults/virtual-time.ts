/**
 * Virtual time for drills and the history explorer: one simulated "true" time line, per-worker clocks
 * with skew, per-worker timers (the lease keeper's renewals run on them through `Clock.setTimer`),
 * suspension (a GC pause or VM freeze: the worker runs nothing while the wall clock goes on) and
 * kill. A history of minutes of lease time runs in milliseconds and, on the in-memory store, in the
 * same order every time (all other asynchrony is microtasks).
 */
import type { Clock } from '../../lib/core/ports.js';

interface Timer {
  atMs: number;
  readonly seq: number;
  readonly fn: () => void;
  readonly owner: string | undefined;
}

/** The simulated time line and its timer queue. */
export class VirtualTime {
  private t: number;
  private seq = 0;
  private queue: Timer[] = [];
  private readonly suspendedUntil = new Map<string, number>();
  private readonly dead = new Set<string>();
  /** Owners frozen until {@link thaw}: their timers wait, however long (a returned Lambda environment). */
  private readonly frozen = new Set<string>();
  /** Timers fired so far. */
  fired = 0;

  /** @param startMs the true time the simulation starts at, epoch ms */
  constructor(startMs: number) {
    this.t = startMs;
  }

  /** The true time, epoch ms. */
  get nowMs(): number {
    return this.t;
  }

  /** Run `fn` after `delayMs` of true time, as `owner` (a worker). Returns a cancel function. */
  schedule(delayMs: number, fn: () => void, owner?: string): () => void {
    if (owner !== undefined && this.dead.has(owner)) return () => undefined;
    const timer: Timer = { atMs: this.t + Math.max(0, delayMs), seq: this.seq++, fn, owner };
    this.queue.push(timer);
    return () => {
      this.queue = this.queue.filter((x) => x !== timer);
    };
  }

  /** A promise that resolves after `ms` of true time (as `owner`). */
  sleep(ms: number, owner?: string): Promise<void> {
    return new Promise((resolve) => {
      this.schedule(ms, resolve, owner);
    });
  }

  /** Suspend `owner` until true time `untilMs`: its timers due earlier fire then (a GC pause). */
  suspend(owner: string, untilMs: number): void {
    this.suspendedUntil.set(owner, Math.max(untilMs, this.suspendedUntil.get(owner) ?? 0));
  }

  /** True while `owner` is suspended. */
  isSuspended(owner: string): boolean {
    return (this.suspendedUntil.get(owner) ?? 0) > this.t;
  }

  /**
   * Freeze `owner` until {@link thaw} (Lambda freezes a returned environment until its next invocation,
   * or forever): none of its timers fire meanwhile; due ones fire at the thaw.
   */
  freeze(owner: string): void {
    this.frozen.add(owner);
  }

  /** End {@link freeze}: `owner`'s timers due by now fire now. */
  thaw(owner: string): void {
    this.frozen.delete(owner);
  }

  /** True while `owner` is frozen by {@link freeze}. */
  isFrozen(owner: string): boolean {
    return this.frozen.has(owner);
  }

  /** Kill `owner`: drop its timers, now and later. */
  kill(owner: string): void {
    this.dead.add(owner);
    this.queue = this.queue.filter((x) => x.owner !== owner);
  }

  /** Number of pending timers. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Let every ready continuation run: yields to the event loop until `busy()` (e.g. requests in flight
   * to a real DynamoDB) is false twice in a row. On the in-memory store one yield drains everything.
   */
  async settle(busy: () => boolean = () => false): Promise<void> {
    let idle = 0;
    while (idle < 2) {
      await new Promise<void>((r) => setImmediate(r));
      idle = busy() ? 0 : idle + 1;
    }
  }

  /**
   * Fire timers in time order (settling after each) until `done()` holds or no timer is left.
   * @returns false when it stopped because `maxSteps` timers fired.
   */
  async run(
    options: { done?: () => boolean; busy?: () => boolean; maxSteps?: number; untilMs?: number } = {},
  ): Promise<boolean> {
    const max = options.maxSteps ?? 100_000;
    await this.settle(options.busy);
    for (let step = 0; step < max; ) {
      if (options.done?.()) return true;
      const next = this.pop(options.untilMs);
      if (!next) return true;
      // Everything due at the same instant starts before anything settles: concurrent deliveries
      // really race (their requests interleave at the store), as they would in production.
      const batch = [next];
      for (let more = this.pop(next.atMs); more; more = this.pop(next.atMs)) batch.push(more);
      for (const t of batch) {
        this.fired++;
        step++;
        t.fn();
      }
      await this.settle(options.busy);
    }
    return false;
  }

  private pop(untilMs?: number): Timer | undefined {
    for (;;) {
      let best = -1;
      for (let i = 0; i < this.queue.length; i++) {
        const a = this.queue[i] as Timer;
        if (a.owner !== undefined && this.frozen.has(a.owner)) continue; // waits for its thaw
        const b = this.queue[best] as Timer | undefined;
        if (!b || a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq)) best = i;
      }
      if (best < 0) return undefined;
      const timer = this.queue[best] as Timer;
      if (untilMs !== undefined && timer.atMs > untilMs) {
        this.t = Math.max(this.t, untilMs);
        return undefined;
      }
      const resume = timer.owner === undefined ? undefined : this.suspendedUntil.get(timer.owner);
      if (resume !== undefined && resume > timer.atMs) {
        timer.atMs = resume; // the worker was frozen: this timer fires late, when it wakes
        continue;
      }
      this.queue.splice(best, 1);
      this.t = Math.max(this.t, timer.atMs);
      return timer;
    }
  }
}

/** A worker's clock on a {@link VirtualTime}: true time + skew, timers owned by the worker. */
export class VirtualClock implements Clock {
  /** @param skewMs this worker's clock error (+ = fast). @default 0 */
  constructor(
    readonly time: VirtualTime,
    readonly owner: string,
    public skewMs = 0,
  ) {}

  now(): number {
    return this.time.nowMs + this.skewMs;
  }

  setTimer(fn: () => void, delayMs: number): () => void {
    return this.time.schedule(delayMs, fn, this.owner);
  }

  /** Sleep `ms` as this worker. */
  sleep(ms: number): Promise<void> {
    return this.time.sleep(ms, this.owner);
  }
}
