/**
 * Pure effect decisions (docs/design.md step 5): given the effect record DynamoDB returned when our
 * insert was refused, what may this run do? No I/O: the runner turns decisions into requests.
 */
import {
  type EffectItem,
  type EffectResult,
  type EffectSource,
  EffectStatus,
  FINAL_EFFECT_STATUSES,
} from '../core/effects.js';

/** The run asking, and what its provider supports. */
export interface EffectActor {
  readonly runId: string;
  readonly fence: number;
  /** Hash of the request this run wants to send under the key. */
  readonly requestHash: string;
  /** True when this run already called the provider under this key (in an earlier `ctx.effect`). */
  readonly attemptedHere: boolean;
  readonly providerName: string;
  readonly idempotencyKeys: boolean;
  readonly canLookup: boolean;
}

/** The stored fields a decision reads. */
export interface StoredEffect {
  readonly status: string;
  readonly requestHash: string;
  readonly fence: number;
  readonly runId: string;
}

/** What to do with an existing effect record. */
export type EffectDecision =
  /** Same key, different request: refuse; nothing is sent. */
  | { readonly kind: 'conflict' }
  /** Final outcome recorded by an earlier call: return it, zero provider calls. */
  | { readonly kind: 'stored' }
  /** A run with a higher fence moved the effect: this run is stale and must not touch it. */
  | { readonly kind: 'stale'; readonly storedFence: number }
  /**
   * Move the record to this run (conditional on its current status, fence and run) together with a
   * lease ownership check, then call the provider with the SAME key. `resend` is true when an earlier
   * call may have reached the provider (safe only because the provider honours idempotency keys).
   */
  | { readonly kind: 'send'; readonly resend: boolean }
  /** The outcome of an earlier call is unknown and the provider can be asked: `lookup(key)` first. */
  | { readonly kind: 'lookup' }
  /** The outcome is unknown and cannot be found out safely: mark `needs-review`, no provider call. */
  | { readonly kind: 'review'; readonly why: string };

/**
 * Decide from the stored record. Order: request identity first (a conflict is reported even for a
 * settled key), then final statuses, then fences, then the unknown-outcome rules: resend with the same
 * key if the provider honours keys, else look it up, else needs-review. A new key is never minted.
 */
export function decideExisting(stored: StoredEffect, me: EffectActor): EffectDecision {
  if (stored.requestHash !== me.requestHash) return { kind: 'conflict' };
  if ((FINAL_EFFECT_STATUSES as readonly string[]).includes(stored.status)) return { kind: 'stored' };
  if (stored.fence > me.fence) return { kind: 'stale', storedFence: stored.fence };
  if (stored.status === EffectStatus.Pending) return { kind: 'send', resend: false };
  if (stored.status !== EffectStatus.Sending) {
    return { kind: 'review', why: `effect record has unknown status ${JSON.stringify(stored.status)}` };
  }
  const ours = stored.runId === me.runId && stored.fence === me.fence;
  // Our own `sending` write whose response was lost (the SDK retried it): we never called. Send.
  if (ours && !me.attemptedHere) return { kind: 'send', resend: false };
  if (me.idempotencyKeys) return { kind: 'send', resend: true };
  if (me.canLookup) return { kind: 'lookup' };
  const who = ours ? 'this run' : `run ${stored.runId} (fence ${stored.fence})`;
  return {
    kind: 'review',
    why: `outcome of the call by ${who} is unknown and provider "${me.providerName}" supports neither idempotency keys nor lookup; not resent`,
  };
}

/** The result a job sees, from a stored (or just written) effect record. */
export function resultOf(item: EffectItem, source: EffectSource): EffectResult {
  return {
    key: item.key,
    status: item.status as EffectResult['status'],
    source,
    ...(item.providerRef !== undefined && { providerRef: item.providerRef }),
    ...(item.responseDigest !== undefined && { responseDigest: item.responseDigest }),
    ...(item.error !== undefined && { error: item.error }),
    ...(item.reviewReason !== undefined && { reviewReason: item.reviewReason }),
    attempts: Number(item.attempts),
    fence: Number(item.fence),
  };
}
