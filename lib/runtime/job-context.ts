/**
 * What a job body receives: its slot, its fence, an AbortSignal, and fenced / insert-once writers
 * bound to its lease so a body cannot forget the fence.
 */

import type { EffectProvider, EffectResult } from '../core/effects.js';
import type { Trigger } from '../core/outcomes.js';
import type { Clock } from '../core/ports.js';
import type { Slot } from '../core/schedule/slot.js';
import type { FencedPutOptions, InsertOnceResult } from '../store/result-store.js';
import { Keys } from '../store/schema.js';
import type { PausePointName, RuntimeDeps } from './deps.js';
import type { RuntimeEvent } from './events.js';
import { type JobEffects, noEffects, type RunEffects } from './job-effects.js';

/** The argument of a job's `run(ctx)`. */
export interface JobContext {
  readonly job: string;
  /** The slot this run serves (identity, instant, local time, business date). */
  readonly slot: Slot;
  /** `slot.businessDate`, `yyyy-MM-dd`: the date to work on, computed by the library, never by `new Date()`. */
  readonly businessDate: string;
  readonly trigger: Trigger;
  /** This invocation attempt's owner token. */
  readonly runId: string;
  /** The fencing token of this run's lease claim. */
  readonly fence: number;
  /** Shard index of a fanned-out job. */
  readonly shard?: number;
  /** Aborted (reason: LeaseLostError or DeadlineError) when the run must stop. */
  readonly signal: AbortSignal;
  /** Milliseconds until the Lambda deadline. */
  remainingTimeMs(): number;
  /** Current time from the injected clock, epoch ms. */
  nowMs(): number;
  /** Throw the abort reason if the run must stop (call between units of work). */
  throwIfAborted(): void;
  /**
   * Create or overwrite a protected item under this run's fence (docs/design.md step 3): the job's
   * attributes are stored as given, beside cronfence's bookkeeping (`cronfence:fence`, `cronfence:lease`,
   * `cronfence:runId`, `cronfence:writtenAtMs`), like an insert-once row. An existing item that was
   * never fenced is refused unless `options.adoptUnfenced`.
   * @throws ResultConflictError (nothing written) for an attribute whose name starts with `cronfence:`.
   * @throws StaleFenceError when a newer holder of this lease wrote it (the stored fence is on the error).
   * @throws ResultConflictError when the item exists unfenced (not adopted), or another lease that still
   *   runs last wrote it (reconciled once that lease is released or expired).
   */
  fencedPut(
    tableName: string,
    key: Record<string, string | number>,
    attributes: Record<string, unknown>,
    options?: FencedPutOptions,
  ): Promise<void>;
  /**
   * Insert a business result once (docs/design.md step 4): the job's attributes as given, plus
   * `cronfence:status = succeeded` and the bookkeeping of `fencedPut`. Returns `existing` with the stored
   * row when an earlier run already wrote it.
   * @throws StaleFenceError when a newer holder owns the row.
   * @throws ResultConflictError (nothing written) for an attribute whose name starts with `cronfence:`.
   */
  insertOnce(
    tableName: string,
    key: Record<string, string | number>,
    attributes: Record<string, unknown>,
  ): Promise<InsertOnceResult>;
  /**
   * Perform an external side effect at most once per idempotency key (docs/design.md step 5): the
   * effect record at `EFFECT#<job>#<key>` goes `sending` (atomically with a lease ownership check) ->
   * `succeeded` | `failed` | `needs-review`. Later runs get the stored outcome with zero provider
   * calls; a run that finds `sending` resends with the SAME key if the provider honours keys, else
   * looks it up, else marks it `needs-review` (named on this run's record under `effectsNeedingReview`).
   * @example
   * const r = await ctx.effect(`payout#${m.id}#${ctx.businessDate}`, { merchantId: m.id, amountCents }, payments);
   * @throws InvalidArgumentError (empty or over-long key, before any write); IdempotencyConflictError
   *   (same key, different request; nothing sent); StaleFenceError / LeaseLostError (a newer run holds
   *   the lease or the effect; nothing sent); EffectOutcomeUnknownError (timeout, 5xx: stays `sending`);
   *   InvalidJobDefinitionError (field `effects`, nothing written) when the job's `defineJob` names no
   *   effect runner (`effects: effectRunner`).
   */
  effect<TRequest>(key: string, request: TRequest, provider: EffectProvider<TRequest>): Promise<EffectResult>;
  /** Attach a detail to this run's record (e.g. counts). Values must be DynamoDB-serialisable. */
  setDetail(name: string, value: unknown): void;
}

/**
 * The run a context serves (the run session implements it): its time left, its authority check, the
 * protected operations it waits for, its pause points and its events.
 */
export interface RunPort {
  /** Milliseconds until the Lambda deadline. */
  remainingTimeMs(): number;
  /**
   * Throw unless the run may still start work (LeaseKeeper.assertHeld: not aborted, lease not lapsed
   * by this clock minus the skew budget, deadline not reached). @default checks the context's `signal` only
   */
  assertHeld?(): void;
  /** Register a protected operation under way; the run's record waits for it. @default none */
  track?<T>(op: Promise<T>): Promise<T>;
  pause(name: PausePointName, key?: Record<string, unknown>): Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: the session fills the event's common fields
  emit(event: any): void;
}

/** A run's abort, as its lease keeper (LeaseKeeper) gives it. */
export interface RunAbort {
  /**
   * The run's signal ({@link JobContext.signal}), read when the context's `signal` is first read: the
   * lease keeper makes its controller then (see LeaseKeeper.signal).
   */
  readonly signal: AbortSignal;
  /** `body` raced against the run's abort (LeaseKeeper.race): what the job handler awaits. */
  race<T>(body: Promise<T>): Promise<T>;
}

/** What {@link createJobContext} binds a context to: one claimed run. */
export interface JobContextBinding {
  readonly deps: RuntimeDeps;
  readonly job: string;
  readonly slot: Slot;
  readonly trigger: Trigger;
  readonly shard?: number;
  readonly runId: string;
  readonly fence: number;
  /**
   * Business writes also check the lease in the same transaction (overlap `replace`:
   * {@link FenceContext.checkLease}). @default false
   */
  readonly checkLease?: boolean;
  /** The run's abort: its lease keeper (LeaseKeeper). */
  readonly abort: RunAbort;
  /** The run session the context's methods act through. */
  readonly run: RunPort;
  /** The run record's details, shared with the session (effects needing review are named there). */
  readonly details: Record<string, unknown>;
  /**
   * The lease item's restore mark, epoch ms (the table was restored; see `guardRestored`): effects a
   * provider could not deduplicate are not sent. @default none
   */
  readonly restoredAtMs?: number;
  /**
   * The job's effect runner (`defineJob`'s `effects`). @default none: `ctx.effect` throws
   * InvalidJobDefinitionError naming the option
   */
  readonly effects?: JobEffects;
}

/** Key of the abort a context's `signal` accessor reads (readable through a Proxy or `Object.create`). */
const ABORT_OF: unique symbol = Symbol('cronfence.abortOf');

/**
 * `signal` of every context, defined on the instance (a spread or destructuring reads it) with one
 * getter for all (every context keeps one shape): asks the binding for the signal when read, so the
 * keeper makes its controller only then.
 */
const SIGNAL_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { readonly [ABORT_OF]: RunAbort }): AbortSignal {
    return this[ABORT_OF].signal;
  },
};

/**
 * The JobContext of a claimed run. Its seven methods are the instance's own functions, not the
 * prototype's: a body may take them apart (`run: async ({ fencedPut, slot }) => ...`), and a spread
 * (`{ ...ctx }`) keeps them. What they share (the fence context, the authority check, tracking, the
 * effect runner) is private to the class, so a run makes no other function.
 */
class RunContext implements JobContext {
  readonly job: string;
  readonly slot: Slot;
  readonly businessDate: string;
  readonly trigger: Trigger;
  readonly runId: string;
  readonly fence: number;
  declare readonly shard?: number;
  /** An own enumerable accessor, read from the binding when first read: a spread keeps it. */
  declare readonly signal: AbortSignal;
  readonly remainingTimeMs: JobContext['remainingTimeMs'];
  readonly nowMs: JobContext['nowMs'];
  readonly throwIfAborted: JobContext['throwIfAborted'];
  readonly fencedPut: JobContext['fencedPut'];
  readonly insertOnce: JobContext['insertOnce'];
  readonly effect: JobContext['effect'];
  readonly setDetail: JobContext['setDetail'];
  /** Built at the body's first `ctx.effect` call: a run without effects never pays for the runner. */
  #runner: RunEffects | undefined;
  readonly #b: JobContextBinding;
  /** The run's abort, where the `signal` accessor reads the signal (a symbol: no key of the context's). */
  readonly [ABORT_OF]: RunAbort;

  /**
   * `body` raced against `ctx`'s run's abort (see {@link raceAbort}); a wrapper of a context (a Proxy,
   * `Object.create(ctx)`) races through its `signal`.
   */
  static race<T>(ctx: JobContext, body: Promise<T>): Promise<T> {
    return #b in ctx ? ctx.#b.abort.race(body) : raceSignal(ctx.signal, body);
  }

  constructor(b: JobContextBinding) {
    this.#b = b;
    this.job = b.job;
    this.slot = b.slot;
    this.businessDate = b.slot.businessDate;
    this.trigger = b.trigger;
    this.runId = b.runId;
    this.fence = b.fence;
    if (b.shard !== undefined) this.shard = b.shard;
    // An own accessor (a spread and destructuring read it), one getter for every context reading its
    // source through a symbol (a Proxy or `Object.create` of the context reads it too): the keeper
    // makes the signal when it is first read.
    this[ABORT_OF] = b.abort;
    Object.defineProperty(this, 'signal', SIGNAL_PROPERTY);
    const { run, deps } = b;
    const { clock } = deps;
    this.remainingTimeMs = () => run.remainingTimeMs();
    this.nowMs = () => clock.now();
    this.throwIfAborted = () => this.#guard();
    // A run that knows it lost its lease stops before writing; the fence refuses the ones that do not know.
    this.fencedPut = (tableName, key, attributes, options) =>
      this.#tracked(async () => {
        deps.access?.table(tableName, 'fencedPut');
        await run.pause('before-write', key);
        this.#guard();
        return deps.results.fencedPut({ tableName, key }, attributes, this.#fenceContext(), options);
      });
    this.insertOnce = (tableName, key, attributes) =>
      this.#tracked(async () => {
        deps.access?.table(tableName, 'insertOnce');
        await run.pause('before-write', key);
        this.#guard();
        return deps.results.insertOnce({ tableName, key }, attributes, this.#fenceContext());
      });
    this.effect = (key, request, provider) =>
      this.#tracked(async () => {
        deps.access?.effects();
        return this.#effects().run(key, request, provider);
      });
    this.setDetail = (name, value) => {
      b.details[name] = value;
    };
  }

  /** The fence context of a write now: this run's lease, fence and clock. */
  #fenceContext() {
    const b = this.#b;
    return {
      leaseKey: Keys.lease(b.job, b.shard).pk,
      runId: b.runId,
      fence: b.fence,
      nowMs: b.deps.clock.now(),
      ...(b.checkLease === true && { checkLease: true }),
    };
  }

  /** Throw unless the run may still start work (see {@link RunPort.assertHeld}). */
  #guard(): void {
    const b = this.#b;
    if (b.run.assertHeld) b.run.assertHeld();
    else {
      const signal = b.abort.signal;
      if (signal.aborted) throw signal.reason;
    }
  }

  #tracked<T>(op: () => Promise<T>): Promise<T> {
    const { run } = this.#b;
    return run.track ? run.track(op()) : op();
  }

  #effects(): RunEffects {
    if (this.#runner !== undefined) return this.#runner;
    const b = this.#b;
    const { clock } = b.deps;
    this.#runner = (b.effects ?? noEffects)({
      deps: b.deps,
      job: b.job,
      fence: () => this.#fenceContext(),
      details: b.details,
      ...(b.restoredAtMs !== undefined && { restoredAtMs: b.restoredAtMs }),
      beforeWrite: async (key) => {
        this.#guard();
        await b.run.pause('before-write', { effect: key });
        this.#guard(); // a run paused at the pause point must not write on waking
      },
      // Right before the provider call: a run whose authority ended after its `sending` write never sends.
      beforeSend: () => this.#guard(),
      wait: (ms) => waitOn(clock, ms, b.abort.signal),
      remainingTimeMs: () => b.run.remainingTimeMs(),
      onTransition: (t) => b.run.emit({ type: 'effect-transition', ...t } satisfies Partial<RuntimeEvent>),
    });
    return this.#runner;
  }
}

/** Build the JobContext of a claimed run: every writer carries the run's fence and lease. */
export function createJobContext(b: JobContextBinding): JobContext {
  return new RunContext(b);
}

/**
 * `body` raced against the abort of `ctx`'s run: settles as `body` does, or rejects with the abort
 * reason (LeaseLostError, DeadlineError, TerminatedError) when the run is aborted first, at once when it
 * already is. A context of {@link createJobContext} races through its run's lease keeper (no listener
 * on its signal); any other JobContext through a listener on `ctx.signal`.
 */
export function raceAbort<T>(ctx: JobContext, body: T | Promise<T>): Promise<T> {
  return RunContext.race(ctx, Promise.resolve(body));
}

/** `body` raced against `signal`'s abort (its reason). */
function raceSignal<T>(signal: AbortSignal, body: Promise<T>): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  return Promise.race([body, aborted]);
}

/**
 * Wait `ms` on `clock` (its own timers when it has them: virtual time in drills), rejecting with the
 * abort reason as soon as `signal` aborts.
 */
function waitOn(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let cancel: () => void = () => undefined;
    const onAbort = () => {
      cancel();
      reject(signal.reason);
    };
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    if (clock.setTimer) cancel = clock.setTimer(done, ms);
    else {
      const t = setTimeout(done, ms);
      cancel = () => clearTimeout(t);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
