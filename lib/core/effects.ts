/**
 * The vocabulary of external effects (docs/design.md step 5): effect statuses, what a provider adapter
 * declares and answers, the stored effect record, and what a job gets back from `ctx.effect(...)`.
 */

/** Where an effect record stands. `as const` object with a derived union (docs/design.md "Conventions" 6). */
export const EffectStatus = {
  /** Intent recorded, provider not called yet. cronfence inserts directly as `sending` (see effect-store). */
  Pending: 'pending',
  /** The provider may have been called; the outcome is not recorded yet. */
  Sending: 'sending',
  /** The provider accepted the request; `providerRef` and `responseDigest` are stored. */
  Succeeded: 'succeeded',
  /** The provider rejected the request permanently (4xx). Never retried. */
  Failed: 'failed',
  /** The outcome is unknown and the provider can neither deduplicate nor be asked: a human decides. */
  NeedsReview: 'needs-review',
} as const;
/** Union of {@link EffectStatus} values. */
export type EffectStatus = (typeof EffectStatus)[keyof typeof EffectStatus];

/** Statuses after which no run calls the provider again for the key. */
export const FINAL_EFFECT_STATUSES: readonly EffectStatus[] = [
  EffectStatus.Succeeded,
  EffectStatus.Failed,
  EffectStatus.NeedsReview,
];

/** What one provider call produced. Adapters return this and do not throw. */
export type SendResult =
  /** Accepted (2xx). `providerRef` is the provider's id for the operation. */
  | { readonly kind: 'succeeded'; readonly providerRef: string; readonly response: unknown }
  /** Rejected permanently (4xx other than 408/409/429): the request itself is wrong. */
  | { readonly kind: 'rejected'; readonly httpStatus: number; readonly message: string }
  /** Timeout, connection drop, 5xx, 408/409/429: it may or may not have happened. */
  | { readonly kind: 'unknown'; readonly why: string };

/** What a provider's `lookup(key)` found. Throws (or rejects) when it cannot tell. */
export type LookupResult =
  | { readonly found: true; readonly providerRef: string; readonly response: unknown }
  | { readonly found: false };

/**
 * A provider adapter: how to perform one external operation under an idempotency key, and what the
 * provider supports when an outcome is unknown.
 * @example
 * const payments: EffectProvider<Payout> = {
 *   name: 'payments', idempotencyKeys: true, keyRetentionMs: 24 * 3_600_000,
 *   send: (key, payout) => postJson('/payouts', payout, { 'Idempotency-Key': key }),
 * };
 */
export interface EffectProvider<TRequest = unknown> {
  /** Stored on the effect record, e.g. `payments`. */
  readonly name: string;
  /** True when a resend with the same key is safe (the provider executes a key at most once). */
  readonly idempotencyKeys: boolean;
  /** Perform the operation. Must not throw; a throw is treated as an unknown outcome. */
  send(key: string, request: TRequest): Promise<SendResult>;
  /** Ask the provider what happened under a key, when it offers that. */
  lookup?(key: string): Promise<LookupResult>;
  /**
   * How long a request may still be in flight at the provider after it was sent, ms: a lookup that
   * finds nothing proves the request was never executed only after this long. The looker measures it
   * on its OWN clock, from the moment it first sees the effect `sending`: it waits, looks up again, and
   * only then resends (or, without the Lambda time to wait, leaves it `sending` for a later run).
   * REQUIRED when `lookup` is given (no default: 0 would resend while the first request still executes;
   * `ctx.effect` throws InvalidArgumentError without it). See docs/design.md "When lookup-only is safe".
   */
  readonly lookupSettleMs?: number;
  /**
   * How long the provider remembers an idempotency key, ms (e.g. about 24 h for common payment APIs).
   * A `sending` effect is resent only within half of it (from the key's first send, less the skew
   * budget); past that it is reconciled by `lookup`, or goes to `needs-review`, never resent. REQUIRED when `idempotencyKeys` is true
   * (`ctx.effect` throws InvalidArgumentError without it); `Number.POSITIVE_INFINITY` for a provider
   * that never forgets.
   */
  readonly keyRetentionMs?: number;
}

/** How a call to `ctx.effect` obtained its outcome. */
export const EffectSource = {
  /** First call to the provider under this key. */
  Sent: 'sent',
  /** Outcome was unknown; resent with the SAME key to a provider that honours keys. */
  Resent: 'resent',
  /** Outcome was unknown; the provider's lookup said what happened. */
  LookedUp: 'looked-up',
  /** An earlier run recorded the outcome: zero provider calls. */
  Stored: 'stored',
  /** Outcome unknown, no safe way to find out: marked `needs-review` by this call, zero provider calls. */
  MarkedForReview: 'marked-for-review',
} as const;
/** Union of {@link EffectSource} values. */
export type EffectSource = (typeof EffectSource)[keyof typeof EffectSource];

/** What `ctx.effect(...)` returns: the effect's final status and how this call learnt it. */
export interface EffectResult {
  readonly key: string;
  readonly status:
    | typeof EffectStatus.Succeeded
    | typeof EffectStatus.Failed
    | typeof EffectStatus.NeedsReview;
  readonly source: EffectSource;
  /** Provider's id of the operation (succeeded). */
  readonly providerRef?: string;
  /** sha256 (hex) of the provider's response body in canonical JSON (succeeded). */
  readonly responseDigest?: string;
  /** HTTP status and message of a permanent rejection (failed). */
  readonly error?: { readonly httpStatus: number; readonly message: string };
  /** Why the effect needs review (needs-review). */
  readonly reviewReason?: string;
  /** Provider calls made under this key by all runs so far (sends; lookups are not counted). */
  readonly attempts: number;
  /** Fence of the run that last moved the effect. */
  readonly fence: number;
}

/** The effect record as stored at `Keys.effect(job, key)` in the library table. */
export interface EffectItem {
  readonly key: string;
  readonly status: EffectStatus;
  /** sha256 (hex) of the request in canonical JSON. */
  readonly requestHash: string;
  readonly attempts: number;
  /** Fence of the run that last moved the effect. */
  readonly fence: number;
  /** Lease partition key of that run, e.g. `JOB#merchant-settlement`. */
  readonly leaseKey: string;
  readonly runId: string;
  readonly job?: string;
  readonly provider?: string;
  readonly providerRef?: string;
  readonly responseDigest?: string;
  readonly error?: { readonly httpStatus: number; readonly message: string };
  readonly reviewReason?: string;
  /** How the outcome was learnt when it was not the first call (`resent`, `looked-up`, `operator`). */
  readonly resolvedBy?: string;
  /** Operator resolution (`cronfence effects resolve`): who, when (epoch ms) and why. */
  readonly reviewedBy?: string;
  readonly reviewedAtMs?: number;
  readonly reviewNote?: string;
  readonly createdAtMs: number;
  readonly sendingAtMs?: number;
  readonly finishedAtMs?: number;
  readonly updatedAtMs: number;
  /**
   * The last error met while the effect was not settled (`sending`, `needs-review`, `failed`): what a
   * person reads in the console beside the status. Removed when it succeeds.
   */
  readonly lastError?: EffectError;
  /**
   * Outcomes of provider calls whose finish was refused (the run no longer owned the effect when its
   * call returned: an operator resolved it, or a newer holder took it over). Never dropped: with
   * `providerRef`, they name every transaction the provider made under the key.
   */
  readonly lateOutcomes?: readonly LateOutcome[];
}

/**
 * A stored effect record (`EFFECT#<job>#<key>`, as DynamoDB or the in-memory backend returned it) as
 * its type: the effect operations write only records of this shape. An absent item is `{}` (a refused
 * transaction whose write returned nothing), whose `status` is undefined.
 */
export function effectItemOf(item: Readonly<Record<string, unknown>> | undefined): EffectItem {
  return (item ?? {}) as unknown as EffectItem;
}

/** An error as an effect record stores it: name, message (bounded), when by the writer's clock. */
export interface EffectError {
  readonly name: string;
  readonly message: string;
  /** Epoch ms. */
  readonly atMs: number;
  /** The same instant as ISO-8601 UTC, for a person reading the item. */
  readonly at: string;
}

/** The outcome of a call whose finish was refused, as appended to {@link EffectItem.lateOutcomes}. */
export interface LateOutcome {
  readonly runId: string;
  readonly fence: number;
  /** `succeeded` (the provider executed it) or `failed` (it rejected it). */
  readonly status: string;
  readonly providerRef?: string;
  readonly responseDigest?: string;
  readonly httpStatus?: number;
  /** When the run learnt it, epoch ms and ISO-8601 UTC. */
  readonly atMs: number;
  readonly at: string;
}

/**
 * How long an effect may stay not terminal (`sending`, `pending`) before it counts as stuck, ms: the
 * `EffectUnsettled` alarm's period (cdk/constructs/alarms.ts) and the age from which
 * `cronfence effects --status unsettled` lists it. One constant, so the CLI never hides an effect the
 * alarm already reported. 5 min.
 */
export const EFFECT_UNSETTLED_AFTER_MS = 5 * 60_000;

/**
 * The version token of an effect record: the state an operator is shown and hands back as the
 * condition of a write (`cronfence effects resolve --expect <token>`). Changes with every write of the
 * record (status, fence, attempts and `updatedAtMs`), e.g. `needs-review:2:1:1796151601288`. A `sending`
 * effect whose run still held a live lease when it was read ends in `:in-flight`: what the provider
 * said then proves nothing (the call may still land), so such a version is never accepted.
 * @param options.holderLive the run that moved it held a live lease at the read @default false
 */
export function effectVersion(
  item: {
    readonly status?: unknown;
    readonly fence?: unknown;
    readonly attempts?: unknown;
    readonly updatedAtMs?: unknown;
  },
  options: { readonly holderLive?: boolean } = {},
): string {
  const base = [item.status, item.fence, item.attempts, item.updatedAtMs]
    .map((v) => String(v ?? '-'))
    .join(':');
  return options.holderLive && item.status === EffectStatus.Sending ? `${base}:in-flight` : base;
}
