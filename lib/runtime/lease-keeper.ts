/**
 * Keeps a claimed lease alive while the job body runs (docs/design.md step 2): renews every
 * `renewFraction` of the lease, and aborts the body through its AbortSignal when a renewal is
 * refused (lease lost), when the lease would lapse without a successful renewal, or when the
 * Lambda deadline is near. The deadline margin and the lapse are enforced by a watchdog timer of
 * their own, armed once the body has started (see {@link LeaseKeeper.start}) and after each successful
 * renewal: no renewal request, however long it hangs in the network, holds it back. Each renewal attempt is given up after one renew period (the
 * request's own timeout is the Document client's), so a hung request never delays the next attempt.
 */

import { CLOCK_SKEW_BUDGET_MS, leaseUntil } from '../core/lease.js';
import type { Clock, LeaseRef, LeaseStore } from '../core/ports.js';
import { LeaseLostError } from '../store/errors.js';
import { DeadlineError, RunFinishedError } from './errors.js';

/** Options of a {@link LeaseKeeper}. */
export interface LeaseKeeperOptions {
  readonly leases: LeaseStore;
  readonly clock: Clock;
  readonly ref: LeaseRef & { readonly runId: string; readonly fence: number };
  /** Lease duration, ms. */
  readonly leaseMs: number;
  /** Renew after this fraction of the lease. @default 1/3 */
  readonly renewFraction: number;
  /** Local view of the current expiry, epoch ms (the claim's leaseUntilMs). */
  readonly leaseUntilMs: number;
  /** Lambda time left, ms. */
  readonly remainingTimeMs: () => number;
  /** Stop work this long before the Lambda deadline, ms. @default 2000 */
  readonly deadlineMarginMs?: number;
  /** Stop work this long before the lease ends by this clock, ms. @default CLOCK_SKEW_BUDGET_MS */
  readonly skewBudgetMs?: number;
  /** Called after every renewal attempt (for logs/metrics). */
  readonly onRenew?: (result: { ok: boolean; leaseUntilMs: number; error?: unknown }) => void;
}

/**
 * The reason of every run's finish, without a captured stack: it is always raised by {@link
 * LeaseKeeper.finish} (a stack would say only that), and capturing one is most of its cost.
 */
function finishedReason(): RunFinishedError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new RunFinishedError();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Renewal loop + abort controller for one run. */
export class LeaseKeeper {
  /**
   * The signal's controller, made when {@link signal} is first read: a run whose body never reads it
   * (and that nothing aborts before) makes none, and its finish dispatches no abort event.
   */
  private controller: AbortController | undefined;
  /** Why the run must stop, once it must (see {@link reason}). */
  private abortReason: Error | undefined;
  /**
   * Set by a {@link finish} that found no signal made and no race waiting: the run's reason is a
   * RunFinishedError, made when first asked for.
   */
  private finishedQuietly = false;
  /** Rejects the pending {@link race} with the abort reason, while one is pending. */
  private rejectRace: ((reason: Error) => void) | undefined;
  private cancelTimer: (() => void) | undefined;
  private cancelWatchdog: (() => void) | undefined;
  /** Cancels the renewal in flight (its request and SDK retries), if any. */
  private cancelRenewal: (() => void) | undefined;
  private untilMs: number;
  /** The fence renewals carry: the options' own, or the one {@link start} was given. */
  private fence: number;
  private stopped = false;
  /** Number of successful renewals. */
  renewals = 0;

  constructor(private readonly o: LeaseKeeperOptions) {
    this.untilMs = o.leaseUntilMs;
    this.fence = o.ref.fence;
  }

  /**
   * Aborted with a LeaseLostError, DeadlineError or RunFinishedError as `reason`. Made when first read;
   * read after the run stopped, it is already aborted with that reason.
   */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      const reason = this.reason;
      if (reason !== undefined) this.controller.abort(reason);
    }
    return this.controller.signal;
  }

  /** True once the run must stop (lease lost or lapsed, deadline, stopped by the platform, finished). */
  get aborted(): boolean {
    return this.abortReason !== undefined || this.finishedQuietly;
  }

  /** The abort reason, once there is one (a quiet finish's RunFinishedError is made here, once). */
  get reason(): Error | undefined {
    if (this.abortReason === undefined && this.finishedQuietly) this.abortReason = finishedReason();
    return this.abortReason;
  }

  /**
   * `body`, raced against this keeper's abort: settles as `body` does, or rejects with the abort reason
   * if the keeper aborts first (at once when it already has). What the job handler awaits, in place of
   * a listener on {@link signal}: a run that never reads the signal makes no controller.
   */
  race<T>(body: T | PromiseLike<T>): Promise<T> {
    const settled = Promise.resolve(body);
    const reason = this.reason;
    if (reason !== undefined) {
      settled.catch(() => undefined); // the body's own outcome no longer decides the run
      return Promise.reject(reason);
    }
    let reject: (reason: Error) => void = () => undefined;
    const aborted = new Promise<never>((_, r) => {
      reject = r;
    });
    this.rejectRace = reject;
    // Once the body settled, a finish has no race to reject (it stays quiet).
    const done = () => {
      if (this.rejectRace === reject) this.rejectRace = undefined;
    };
    settled.then(done, done);
    // The body first: one that settled before an abort in the same turn decides the race.
    return Promise.race([settled, aborted]);
  }

  /** Current local view of the lease expiry, epoch ms. */
  get leaseUntilMs(): number {
    return this.untilMs;
  }

  /**
   * Start keeping the lease: the renewal timer and the watchdog are armed in a `process.nextTick`
   * callback queued now, which Node runs once the microtasks queued before it have run: after the
   * body's synchronous part and every step of it that waits only on promises (a body that ends within
   * them, as a trivial one does, stops the keeper before any timer is armed). A body step that waits on
   * a tick of its own (stream and emitter code does) runs after it: its timers are armed by then. A tick
   * rather than an immediate: `setImmediate` cost ~4 µs more on the claim path (BENCHMARKS.md section 9,
   * "Digits written in JavaScript"); a test faking timers (vitest fakes `setImmediate`, not
   * `process.nextTick`) sees them armed without advancing its fake timers. Both timers are timed from
   * now, not from when they are armed: the first renewal is due one renew period after `start`, the
   * watchdog at the lease lapse or the deadline margin, whatever the body's synchronous part took.
   * {@link assertHeld} checks the lease and the deadline without them meanwhile. A keeper built before
   * its claim was decided (no timer, no listener until then) is started with what the claim returned:
   * its fence and the lease end it set, epoch ms, which replace the options' `ref.fence` and
   * `leaseUntilMs`.
   */
  start(claimed?: { readonly fence: number; readonly leaseUntilMs: number }): void {
    if (claimed) {
      this.fence = claimed.fence;
      this.untilMs = claimed.leaseUntilMs;
    }
    const startedAtMs = this.o.clock.now();
    process.nextTick(() => {
      if (this.stopped) return;
      this.armWatchdog();
      this.schedule(this.o.leaseMs * this.o.renewFraction - (this.o.clock.now() - startedAtMs));
    });
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelWatchdog?.();
    this.cancelRenewal?.();
  }

  /**
   * End the run's authority: stop renewing and abort the signal with a {@link RunFinishedError}
   * (unless it is already aborted with another reason). Called before the run's record is written
   * and its lease released, whatever the outcome; from then on {@link assertHeld} throws.
   */
  finish(): void {
    if (this.aborted) this.stop();
    else if (this.controller === undefined && this.rejectRace === undefined) {
      // Nothing observes the abort now: the reason is made if the signal or the reason is read later.
      this.finishedQuietly = true;
      this.stop();
    } else this.abort(finishedReason());
  }

  /**
   * Throw unless this run may still start work: not aborted, its lease not within the skew budget of
   * its end by this clock, the Lambda deadline not within its margin. Checked synchronously before
   * every protected write, so a run that was paused (GC, freeze) never sends one after its lease or
   * deadline, even before the renewal timer notices.
   * @throws LeaseLostError (lapsed / lost) or DeadlineError — the abort reason.
   */
  assertHeld(): void {
    if (!this.aborted && !this.stopped) {
      const verdict = this.verdict();
      if (verdict) this.abort(verdict);
    }
    const reason = this.reason;
    if (reason !== undefined) throw reason;
    if (this.stopped) throw new RunFinishedError(); // stopped without a reason: authority ended all the same
  }

  /** Why the run must stop now, if it must. */
  private verdict(): Error | undefined {
    const remaining = this.o.remainingTimeMs();
    if (remaining <= (this.o.deadlineMarginMs ?? 2_000))
      return new DeadlineError(remaining, 'continue the job body');
    if (this.o.clock.now() >= this.untilMs - (this.o.skewBudgetMs ?? CLOCK_SKEW_BUDGET_MS)) {
      return new LeaseLostError(
        `lease of ${this.o.ref.job} lapsed at ${new Date(this.untilMs).toISOString()} (less than the ${this.o.skewBudgetMs ?? CLOCK_SKEW_BUDGET_MS} ms skew budget left) without a successful renewal`,
      );
    }
    return undefined;
  }

  /** Abort the body with `reason` and stop renewing. */
  abort(reason: Error): void {
    if (!this.aborted) {
      this.abortReason = reason;
      this.controller?.abort(reason);
      this.rejectRace?.(reason);
      this.rejectRace = undefined;
    }
    this.stop();
  }

  /** Run `fn` after `delayMs` on the run's clock (virtual in drills); returns its cancel function. */
  private timer(fn: () => void, delayMs: number): () => void {
    if (this.o.clock.setTimer) return this.o.clock.setTimer(fn, delayMs);
    const timer = setTimeout(fn, delayMs);
    timer.unref?.();
    return () => clearTimeout(timer);
  }

  /** Time until the deadline margin or the lease lapse (less the skew budget), whichever is first, ms. */
  private untilVerdictMs(): number {
    const untilDeadline = this.o.remainingTimeMs() - (this.o.deadlineMarginMs ?? 2_000);
    const untilLapse = this.untilMs - (this.o.skewBudgetMs ?? CLOCK_SKEW_BUDGET_MS) - this.o.clock.now();
    return Math.max(0, Math.min(untilDeadline, untilLapse));
  }

  /**
   * Arm the watchdog for the deadline margin / lease lapse: it aborts the body when that time comes,
   * whatever a renewal in flight is doing; re-armed after each successful renewal moves the lapse.
   */
  private armWatchdog(): void {
    this.cancelWatchdog?.();
    if (this.stopped) return;
    this.cancelWatchdog = this.timer(() => {
      if (this.stopped) return;
      const verdict = this.verdict();
      if (verdict) this.abort(verdict);
      else this.armWatchdog();
    }, this.untilVerdictMs());
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.cancelTimer = this.timer(
      () => void this.tick(),
      Math.max(0, Math.min(delayMs, this.untilVerdictMs())),
    );
  }

  /** One renewal request, given up (as a transient failure) after one renew period. */
  private renewWithin(until: number, now: number): Promise<void> {
    const periodMs = this.o.leaseMs * this.o.renewFraction;
    // Given up means cancelled: an SDK retry of this renewal sent after the lapse (a partition that
    // heals) would otherwise extend a lease this run has already stopped acting under.
    const cancelRequest = new AbortController();
    this.cancelRenewal = () => cancelRequest.abort();
    let cancel: (() => void) | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      cancel = this.timer(() => {
        cancelRequest.abort();
        reject(
          Object.assign(new Error(`lease renewal took longer than the renew period (${periodMs} ms)`), {
            name: 'TimeoutError',
          }),
        );
      }, periodMs);
    });
    const request = this.o.leases.renew(
      { ...this.o.ref, fence: this.fence, nowMs: now, leaseUntilMs: until },
      { abortSignal: cancelRequest.signal },
    );
    request.catch(() => undefined);
    return Promise.race([request, givenUp]).finally(() => {
      cancel?.();
      this.cancelRenewal = undefined;
    });
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const verdict = this.verdict();
    if (verdict) {
      this.abort(verdict);
      return;
    }
    const now = this.o.clock.now();
    const until = leaseUntil(now, this.o.leaseMs, this.o.remainingTimeMs());
    try {
      await this.renewWithin(until, now);
      if (this.stopped) return;
      this.untilMs = until;
      this.renewals++;
      this.o.onRenew?.({ ok: true, leaseUntilMs: until });
      this.armWatchdog();
      this.schedule(this.o.leaseMs * this.o.renewFraction);
    } catch (err) {
      this.o.onRenew?.({ ok: false, leaseUntilMs: this.untilMs, error: err });
      if (err instanceof LeaseLostError) {
        this.abort(err);
        return;
      }
      if (this.stopped) return;
      // Transient (throttled, timeout): try again soon; the watchdog bounds how long.
      this.schedule(Math.min(1_000, this.o.leaseMs / 10));
    }
  }
}
