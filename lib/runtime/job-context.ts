/**
 * What a job body receives: its slot, its fence, an AbortSignal, and fenced / insert-once writers
 * bound to its lease so a body cannot forget the fence.
 */
import type { Trigger } from '../core/outcomes.js';
import type { Slot } from '../core/schedule/slot.js';
import type { EffectProvider, EffectResult } from '../effects/types.js';
import type { InsertOnceResult } from '../store/result-store.js';

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
   * Create or overwrite a protected item under this run's fence (DESIGN.md protocol 3).
   * @throws StaleFenceError when a newer holder wrote it (the stored fence is on the error).
   */
  fencedPut(
    tableName: string,
    key: Record<string, string | number>,
    attributes: Record<string, unknown>,
  ): Promise<void>;
  /**
   * Insert a business result once (DESIGN.md protocol 4). Returns `existing` with the stored row when
   * an earlier run already wrote it. @throws StaleFenceError when a newer holder owns the row.
   */
  insertOnce(
    tableName: string,
    key: Record<string, string | number>,
    attributes: Record<string, unknown>,
  ): Promise<InsertOnceResult>;
  /**
   * Perform an external side effect at most once per idempotency key (DESIGN.md protocol 5): the
   * effect record at `EFFECT#<key>` goes `sending` (atomically with a lease ownership check) ->
   * `succeeded` | `failed` | `needs-review`. Later runs get the stored outcome with zero provider
   * calls; a run that finds `sending` resends with the SAME key if the provider honours keys, else
   * looks it up, else marks it `needs-review` (named on this run's record under `effectsNeedingReview`).
   * @example
   * const r = await ctx.effect(`payout#${m.id}#${ctx.businessDate}`, { merchantId: m.id, amountCents }, payments);
   * @throws InvalidArgumentError (empty or over-long key, before any write); IdempotencyConflictError
   *   (same key, different request; nothing sent); StaleFenceError / LeaseLostError (a newer run holds
   *   the lease or the effect; nothing sent); EffectOutcomeUnknownError (timeout, 5xx: stays `sending`).
   */
  effect<TRequest>(key: string, request: TRequest, provider: EffectProvider<TRequest>): Promise<EffectResult>;
  /** Attach a detail to this run's record (e.g. counts). Values must be DynamoDB-serialisable. */
  setDetail(name: string, value: unknown): void;
}
