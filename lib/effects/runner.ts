/**
 * The effect use case behind `ctx.effect(key, request, provider)` (docs/design.md step 5): insert the
 * record as `sending` under a lease check, call the provider with the key, record the outcome; when a
 * record already exists, follow {@link decideExisting}: return the stored outcome, resend with the
 * same key, look it up, or mark it `needs-review`. Never resends blindly, never mints a new key.
 */

import {
  type EffectItem,
  type EffectProvider,
  type EffectResult,
  type EffectSource,
  EffectStatus,
  type LookupResult,
  type SendResult,
} from '../core/effects.js';
import { StaleFenceError } from '../core/fence-errors.js';
import { InvalidArgumentError } from '../core/input-errors.js';
import type { LeaseItem } from '../core/lease.js';
import type { EffectOutcomeUpdate, EffectRunStore, SendingResult } from '../core/ports.js';
import { LeaseLostError, StoreError } from '../store/errors.js';
import type { FenceContext } from '../store/result-store.js';
import { decideExisting, resultOf } from './decide.js';
import { EffectOutcomeUnknownError, IdempotencyConflictError } from './errors.js';
import { digestOf, validateEffectKey } from './keys.js';

/** A transition, as reported to the runtime's observer (`effect-transition` events). */
export interface EffectTransition {
  readonly key: string;
  readonly from: string;
  readonly to: string;
  readonly note?: string;
}

/** What the runner needs from the run it serves. */
export interface EffectRunnerOptions {
  readonly store: EffectRunStore;
  readonly job: string;
  /** The run's fence context, with the current time. */
  readonly fence: () => FenceContext;
  /** Called after validation, before the first write of each `effect(...)` (pause points, abort checks). */
  readonly beforeWrite?: (key: string) => Promise<void>;
  /**
   * Called right before each provider call, after the `sending` write: throws when the run may no
   * longer send (its authority ended meanwhile); the effect then stays `sending`, never sent. @default none
   */
  readonly beforeSend?: () => void;
  readonly onTransition?: (t: EffectTransition) => void;
  /**
   * Wait `ms` on the run's own clock; rejects with the abort reason when the run must stop. Used to
   * let a lookup-only provider's in-flight window pass before trusting "not found". @default none
   * (the effect is then left `sending` for a later run instead of waiting)
   */
  readonly wait?: (ms: number) => Promise<void>;
  /** Lambda time left, ms (a settle wait must leave time to resend and record). @default unbounded */
  readonly remainingTimeMs?: () => number;
  /**
   * The run record's details: every effect this run meets (or marks) in `needs-review` is listed under
   * `effectsNeedingReview` as `{ key, why }`. @default none
   */
  readonly details?: Record<string, unknown>;
}

/** Times an effect may change under us between our refused write and our next one before we give up. */
const MAX_RACES = 4;

/** Lambda time a settle wait leaves for the resend, its record and the run's finish, ms. */
export const SETTLE_WAIT_MARGIN_MS = 4_000;

/**
 * Check what a provider must declare (docs/design.md protocol 5): a settle time when it offers lookup,
 * a key retention when it honours idempotency keys. @throws InvalidArgumentError naming the field
 */
export function validateProvider(provider: EffectProvider<unknown>): void {
  const bad = (field: string, value: unknown, why: string) =>
    new InvalidArgumentError(`provider "${provider.name}" ${field}`, value, why);
  if (typeof provider.lookup === 'function') {
    const v = provider.lookupSettleMs;
    if (typeof v !== 'number' || !(v >= 0))
      throw bad(
        'lookupSettleMs',
        v,
        'a provider with lookup must declare how long a request may stay in flight (ms, >= 0); a lookup that finds nothing proves nothing before that',
      );
  }
  if (provider.idempotencyKeys) {
    const v = provider.keyRetentionMs;
    if (typeof v !== 'number' || !(v > 0))
      throw bad(
        'keyRetentionMs',
        v,
        'a provider with idempotency keys must declare how long it remembers a key (ms, > 0; Infinity if never forgotten)',
      );
  }
}

/** Runs effects for one run; remembers which keys this run already called the provider for. */
export class EffectRunner {
  private readonly attempted = new Set<string>();
  /** When this run first saw each key's record `sending` (pending/other), by its own clock, epoch ms. */
  private readonly firstSeenMs = new Map<string, number>();

  constructor(private readonly o: EffectRunnerOptions) {}

  /**
   * Perform (or recover) the effect under `key`.
   * @throws InvalidArgumentError for an empty or over-long key or a non-JSON request (before any write).
   * @throws IdempotencyConflictError when the key was used with a different request (nothing sent).
   * @throws StaleFenceError when a run with a higher fence holds the lease or the effect (nothing sent).
   * @throws EffectOutcomeUnknownError when the provider call's outcome is unknown (stays `sending`).
   * @throws StoreError on a DynamoDB failure.
   */
  async run<T>(key: string, request: T, provider: EffectProvider<T>): Promise<EffectResult> {
    validateEffectKey(key);
    validateProvider(provider as EffectProvider<unknown>);
    const requestHash = digestOf(request);
    await this.o.beforeWrite?.(key);
    const fc = this.o.fence();
    let r: SendingResult = await this.o.store.beginSending(
      key,
      { requestHash, job: this.o.job, provider: provider.name },
      fc,
    );
    if (r.kind === 'sending') {
      this.transition(key, 'none', EffectStatus.Sending);
      return this.call(key, request, provider, 1, 'sent');
    }
    for (let race = 0; race < MAX_RACES; race++) {
      if (r.kind === 'lease-lost') throw this.leaseLost(key, fc, r.lease);
      if (r.kind === 'other-lease-running') throw otherLeaseRunning(key, r.lease);
      if (r.kind === 'sending') throw new Error('unreachable');
      const item: EffectItem = r.item;
      const now = this.o.fence();
      if (!this.firstSeenMs.has(key)) this.firstSeenMs.set(key, now.nowMs);
      const d = decideExisting(item, {
        runId: fc.runId,
        fence: fc.fence,
        requestHash,
        attemptedHere: this.attempted.has(key),
        providerName: provider.name,
        idempotencyKeys: provider.idempotencyKeys,
        canLookup: typeof provider.lookup === 'function',
        leaseKey: fc.leaseKey,
        nowMs: now.nowMs,
        ...(provider.keyRetentionMs !== undefined && { keyRetentionMs: provider.keyRetentionMs }),
      });
      switch (d.kind) {
        case 'conflict':
          throw new IdempotencyConflictError(key);
        case 'stored':
          if (item.status === EffectStatus.NeedsReview) this.noteNeedsReview(key, String(item.reviewReason));
          return resultOf(item, 'stored');
        case 'stale':
          throw new StaleFenceError(`effect ${key}`, fc.fence, d.storedFence, item);
        case 'send': {
          const moved = await this.o.store.moveToSending(key, item, this.o.fence(), {
            ...otherLeaseOf(item, fc),
            requestHash,
          });
          if (moved.kind !== 'sending') {
            r = moved;
            continue;
          }
          this.transition(
            key,
            item.status,
            EffectStatus.Sending,
            d.resend ? 'resend with the same key' : undefined,
          );
          return this.call(key, request, provider, Number(item.attempts) + 1, d.resend ? 'resent' : 'sent');
        }
        case 'lookup': {
          const next: { result: EffectResult } | { retry: SendingResult } = await this.lookup(
            key,
            request,
            item,
            provider,
          );
          if ('result' in next) return next.result;
          r = next.retry;
          continue;
        }
        case 'review': {
          const settled = await this.o.store.settle(key, item, this.o.fence(), {
            status: EffectStatus.NeedsReview,
            reviewReason: d.why,
          });
          if (settled.kind === 'existing') {
            r = settled;
            continue;
          }
          this.transition(key, item.status, EffectStatus.NeedsReview, d.why);
          this.noteNeedsReview(key, d.why);
          return resultOf(settled.item, 'marked-for-review');
        }
      }
    }
    throw new StoreError(`effect ${key}`, new Error(`the record changed under this run ${MAX_RACES} times`));
  }

  /** Ask the provider; settle a found outcome, or take over and resend under the same key. */
  private async lookup<T>(
    key: string,
    request: T,
    item: EffectItem,
    provider: EffectProvider<T>,
  ): Promise<{ result: EffectResult } | { retry: SendingResult }> {
    const ask = async (): Promise<LookupResult> => {
      try {
        if (!provider.lookup) throw new Error(`provider "${provider.name}" has no lookup`);
        return await provider.lookup(key);
      } catch (err) {
        throw new EffectOutcomeUnknownError(key, `lookup failed: ${(err as Error)?.message ?? String(err)}`);
      }
    };
    let found = await ask();
    if (!found.found) {
      // "Not found" proves nothing while a request may still be in flight: wait out lookupSettleMs on
      // THIS run's clock from when it first saw the effect `sending` (never the sender's timestamp,
      // which another clock wrote), then ask again.
      const settleMs = Number(provider.lookupSettleMs);
      const waitMs = Number(this.firstSeenMs.get(key)) + settleMs - this.o.fence().nowMs;
      if (waitMs > 0) {
        const left = (this.o.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY) - SETTLE_WAIT_MARGIN_MS;
        if (!this.o.wait || waitMs > left) {
          this.transition(key, item.status, item.status, 'looked up: not found yet; may still be in flight');
          throw new EffectOutcomeUnknownError(
            key,
            `lookup found nothing, but a request may still be in flight for ${waitMs} ms (lookupSettleMs ${settleMs}, measured on this run's clock) and this run cannot wait that long; left sending for a later run`,
          );
        }
        this.transition(key, item.status, item.status, `looked up: not found yet; waiting ${waitMs} ms`);
        await this.o.wait(waitMs);
        found = await ask();
      }
    }
    if (found.found) {
      const settled = await this.o.store.settle(key, item, this.o.fence(), {
        status: EffectStatus.Succeeded,
        providerRef: found.providerRef,
        responseDigest: digestOf(found.response),
        resolvedBy: 'lookup',
      });
      if (settled.kind === 'existing') return { retry: settled };
      this.transition(key, item.status, EffectStatus.Succeeded, 'looked up: the provider executed it');
      return { result: resultOf(settled.item, 'looked-up') };
    }
    const fc = this.o.fence();
    const moved = await this.o.store.moveToSending(key, item, fc, {
      ...otherLeaseOf(item, fc),
      requestHash: String(item.requestHash ?? digestOf(request)),
    });
    if (moved.kind !== 'sending') return { retry: moved };
    this.transition(
      key,
      item.status,
      EffectStatus.Sending,
      'looked up: not executed; resend with the same key',
    );
    return { result: await this.call(key, request, provider, Number(item.attempts) + 1, 'resent') };
  }

  private async call<T>(
    key: string,
    request: T,
    provider: EffectProvider<T>,
    attempts: number,
    source: EffectSource,
  ): Promise<EffectResult> {
    this.o.beforeSend?.();
    this.attempted.add(key);
    let res: SendResult;
    try {
      res = await provider.send(key, request);
    } catch (err) {
      res = { kind: 'unknown', why: (err as Error)?.message ?? String(err) };
    }
    if (res.kind === 'unknown') {
      this.transition(key, EffectStatus.Sending, EffectStatus.Sending, `outcome unknown: ${res.why}`);
      const unknown = new EffectOutcomeUnknownError(key, res.why);
      // Kept on the record for the console; a failure to note it must not hide the unknown outcome.
      await this.o.store
        .noteError(key, this.o.fence(), { name: unknown.name, message: res.why })
        .catch(() => undefined);
      throw unknown;
    }
    const outcome: EffectOutcomeUpdate =
      res.kind === 'succeeded'
        ? {
            status: EffectStatus.Succeeded,
            providerRef: res.providerRef,
            responseDigest: digestOf(res.response),
            ...(source === 'resent' && { resolvedBy: 'resend' }),
          }
        : {
            status: EffectStatus.Failed,
            error: { httpStatus: res.httpStatus, message: res.message.slice(0, 500) },
          };
    const fc = this.o.fence();
    const fin = await this.o.store.finish(key, fc, outcome);
    const item = fin.item;
    if (
      fin.kind === 'existing' &&
      !(item.runId === fc.runId && item.fence === fc.fence && item.status === outcome.status)
    ) {
      // An operator or a newer run changed the effect while we were calling. The call happened: its
      // outcome is appended to the record (never dropped), then this run stops as stale.
      await this.o.store.recordLateOutcome(key, fc, outcome);
      this.transition(key, EffectStatus.Sending, item.status, `late ${outcome.status}: finish refused`);
      throw new StaleFenceError(`effect ${key}`, fc.fence, Number(item.fence), item);
    }
    this.transition(
      key,
      EffectStatus.Sending,
      outcome.status,
      res.kind === 'rejected' ? `HTTP ${res.httpStatus}` : undefined,
    );
    return { ...resultOf(item, source), attempts };
  }

  private leaseLost(key: string, fc: FenceContext, lease: LeaseItem | undefined): Error {
    const storedFence = lease?.fence === undefined ? undefined : Number(lease.fence);
    if (storedFence !== undefined && storedFence > fc.fence) {
      return new StaleFenceError(
        `lease ${fc.leaseKey} (checked before effect ${key})`,
        fc.fence,
        storedFence,
        lease,
      );
    }
    return new LeaseLostError(
      `lease ${fc.leaseKey} is no longer held by run ${fc.runId} (fence ${fc.fence}); effect ${key} not sent`,
      lease,
    );
  }

  private noteNeedsReview(key: string, why: string): void {
    const details = this.o.details;
    if (!details) return;
    const list = (details.effectsNeedingReview ?? []) as { key: string; why: string }[];
    if (!list.some((n) => n.key === key)) details.effectsNeedingReview = [...list, { key, why }];
  }

  private transition(key: string, from: string, to: string, note?: string): void {
    this.o.onTransition?.({ key, from, to, ...(note !== undefined && { note }) });
  }
}

/** The other lease an effect was last moved under, when it is not ours (cross-lease reconciliation). */
function otherLeaseOf(item: EffectItem, fc: FenceContext): { otherLease?: string } {
  return item.leaseKey !== undefined && item.leaseKey !== fc.leaseKey ? { otherLease: item.leaseKey } : {};
}

function otherLeaseRunning(key: string, lease: string): EffectOutcomeUnknownError {
  return new EffectOutcomeUnknownError(
    key,
    `last moved under another lease (${lease}) that is still running; reconciled once that lease is released or expired`,
  );
}
