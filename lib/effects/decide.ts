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
import { CLOCK_SKEW_BUDGET_MS } from '../core/lease.js';

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
  /** This run's lease partition key; fences are compared only with an effect of the same lease. */
  readonly leaseKey?: string;
  /** This run's clock, epoch ms (for the key-retention horizon). */
  readonly nowMs?: number;
  /**
   * How long the provider remembers an idempotency key, ms ({@link EffectProvider.keyRetentionMs}).
   * Past it (from the first send, less the skew budget) a resend could execute again. @default unbounded
   */
  readonly keyRetentionMs?: number;
}

/** The stored fields a decision reads. */
export interface StoredEffect {
  readonly status: string;
  /** Absent after an operator's `not-executed` resolution. */
  readonly requestHash?: string;
  readonly fence: number;
  readonly runId: string;
  /** Lease partition key of the run that last moved it. */
  readonly leaseKey?: string;
  /** When the key was first sent (by the sender's clock), epoch ms. */
  readonly createdAtMs?: number;
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
  // No hash: an operator resolved it `not-executed` (released for resend): any request may be sent.
  if (stored.requestHash !== undefined && stored.requestHash !== me.requestHash) return { kind: 'conflict' };
  if ((FINAL_EFFECT_STATUSES as readonly string[]).includes(stored.status)) return { kind: 'stored' };
  // Fences are compared only within one lease. An effect another lease left (a resharded or renamed
  // job) is reconciled by the rules below; the store then also checks that lease is not running.
  const sameLease =
    stored.leaseKey === undefined || me.leaseKey === undefined || stored.leaseKey === me.leaseKey;
  if (sameLease && stored.fence > me.fence) return { kind: 'stale', storedFence: stored.fence };
  if (stored.status === EffectStatus.Pending) return { kind: 'send', resend: false };
  if (stored.status !== EffectStatus.Sending) {
    return { kind: 'review', why: `effect record has unknown status ${JSON.stringify(stored.status)}` };
  }
  const ours = stored.runId === me.runId && stored.fence === me.fence;
  // Our own `sending` write whose response was lost (the SDK retried it): we never called. Send.
  if (ours && !me.attemptedHere) return { kind: 'send', resend: false };
  const keyRemembered = keyStillRemembered(stored, me);
  if (me.idempotencyKeys && keyRemembered) return { kind: 'send', resend: true };
  if (me.canLookup) return { kind: 'lookup' };
  const who = ours ? 'this run' : `run ${stored.runId} (fence ${stored.fence})`;
  if (me.idempotencyKeys) {
    return {
      kind: 'review',
      why: `outcome of the call by ${who} is unknown and provider "${me.providerName}" may have forgotten the key (first sent ${new Date(Number(stored.createdAtMs)).toISOString()}, keys kept ${String(me.keyRetentionMs)} ms) and has no lookup; not resent`,
    };
  }
  return {
    kind: 'review',
    why: `outcome of the call by ${who} is unknown and provider "${me.providerName}" supports neither idempotency keys nor lookup; not resent`,
  };
}

/**
 * True while a resend under the key is surely still deduplicated by the provider: less than HALF its
 * key retention (and less the skew budget) has passed since the key was first sent, by the sender's
 * clock against ours. The half is the margin for clocks that left the budget (a clock frozen through a
 * VM freeze reads behind until it is corrected): a resend must never reach a provider that forgot the
 * key. Past it, lookup or `needs-review`. Unknown times count as expired.
 */
export function keyStillRemembered(stored: StoredEffect, me: EffectActor): boolean {
  if (me.keyRetentionMs === undefined) return true;
  if (me.nowMs === undefined || stored.createdAtMs === undefined) return false;
  return me.nowMs - Number(stored.createdAtMs) < me.keyRetentionMs / 2 - CLOCK_SKEW_BUDGET_MS;
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
