/**
 * The operator's write on an effect (`cronfence effects resolve`), declared once like every write of
 * the protocol and used by the DynamoDB and the in-memory backends alike. It is conditioned on the
 * state the operator was shown — the record's status, fence, run, attempts and `updatedAtMs` (its
 * version token, {@link effectVersion}) — and, for an effect in `sending`, it is one transaction with
 * a check that the run which moved it no longer holds a live lease: a call in flight is never released
 * for resend, so the provider never executes it twice.
 */
import { type EffectItem, EffectStatus, effectItemOf, effectVersion } from '../../core/effects.js';
import type { LeaseItem } from '../../core/lease.js';
import { type EffectResolution, NOT_EXECUTED } from '../../core/ports.js';
import { EffectChangedError, EffectInFlightError, EffectNotInReviewError } from '../operator-errors.js';
import { Keys, PROBLEM_ATTRIBUTES, problemKeys } from '../schema.js';
import { and, type Condition, eq, lt, ne, notExists, or } from './expression.js';
import { LEASE_SK } from './operations.js';
import { ProtocolOp } from './ops.js';
import type { Operation, Write } from './request.js';

/** Statuses an operator may resolve from: every non-terminal one, and needs-review. */
export const RESOLVABLE_STATUSES = [
  EffectStatus.NeedsReview,
  EffectStatus.Sending,
  EffectStatus.Pending,
] as const;

/** The state of an effect record an operator was shown: the condition of the resolve. */
export interface ShownEffect {
  readonly status: string;
  readonly fence: number;
  readonly runId: string;
  readonly attempts: number;
  readonly updatedAtMs: number;
  /** Lease partition key of the run that last moved it (checked when the effect is `sending`). */
  readonly leaseKey?: string;
}

/** An operator's resolution of one effect of a job, conditioned on what the operator was shown. */
export type EffectResolveInput = { readonly table: string; readonly job: string } & EffectResolution & {
    readonly shown: ShownEffect;
  };

/** The record is still exactly as shown (every write of an effect sets `updatedAtMs`). */
function stillAsShown(s: ShownEffect): Condition {
  return and(
    eq('status', s.status),
    eq('fence', s.fence),
    eq('runId', s.runId),
    eq('attempts', s.attempts),
    eq('updatedAtMs', s.updatedAtMs),
  );
}

/**
 * The run that moved the effect to `sending` has no live lease: the lease names another owner, was
 * released, or expired by the operator's clock. (The claim's own expiry rule; clocks only delay.)
 */
export function holderNotLive(runId: string, nowMs: number): Condition {
  return or(notExists('owner'), ne('owner', runId), ne('holderState', 'running'), lt('leaseUntilMs', nowMs));
}

/** The update of a resolution: who, when, why, and the new status. */
function resolutionUpdate(r: EffectResolveInput) {
  const reviewed = {
    resolvedBy: 'operator',
    reviewedBy: r.by,
    reviewedAtMs: r.nowMs,
    reviewedAt: new Date(r.nowMs).toISOString(),
    reviewNote: r.note,
    updatedAtMs: r.nowMs,
  };
  return r.as === NOT_EXECUTED
    ? // never executed: any request may now be sent under the key (the next mover writes its hash)
      {
        set: { ...reviewed, status: EffectStatus.Pending, ...problemKeys('unsettled', r.nowMs) },
        remove: ['requestHash'],
      }
    : {
        set: { ...reviewed, status: r.as, finishedAtMs: r.nowMs },
        remove: [...PROBLEM_ATTRIBUTES],
      };
}

/**
 * Operator resolution (`cronfence effects resolve`): an effect that is not terminal (`sending`,
 * `pending`) or awaits review (`needs-review`) moves to the resolution, recording how
 * (`resolvedBy = operator`), who, when and why: `succeeded` / `failed` (the provider says so; leaves
 * the `problems` index), or `not-executed` (the provider never executed it: back to `pending`, so the
 * next run — a manual re-run of the slot — sends it under the same key; it stays flagged `unsettled`
 * until then). Only if the record is still as `shown`, and — in `sending` — only if the run that moved
 * it holds no live lease. Returns ALL_NEW. Refused, nothing written:
 * EffectNotInReviewError (missing or terminal), EffectChangedError (changed since shown, with the
 * current state), EffectInFlightError (its holder's lease is live, naming the holder and its end).
 */
export const effectResolve: Operation<EffectResolveInput, EffectItem> = {
  name: 'effect-resolve',
  request: (r) => {
    const key = Keys.effect(r.job, r.key);
    const write: Write = {
      kind: 'update',
      table: r.table,
      key,
      condition: and(or(...RESOLVABLE_STATUSES.map((st) => eq('status', st))), stillAsShown(r.shown)),
      update: resolutionUpdate(r),
      returnValues: 'ALL_NEW',
    };
    const lease = r.shown.status === EffectStatus.Sending ? r.shown.leaseKey : undefined;
    return {
      tag: { op: ProtocolOp.Other, name: 'effect-resolve', table: r.table, key },
      label: `resolve effect ${r.key}`,
      writes:
        lease === undefined
          ? [write]
          : [
              write,
              {
                kind: 'check',
                table: r.table,
                key: { pk: lease, sk: LEASE_SK },
                condition: holderNotLive(r.shown.runId, r.nowMs),
              },
            ],
    };
  },
  accepted: (item) => effectItemOf(item),
  refused: (item, index, r) => {
    if (index === 1) throw new EffectInFlightError(r.key, r.shown, item as LeaseItem | undefined);
    const current = item as EffectItem | undefined;
    if (!current || !(RESOLVABLE_STATUSES as readonly string[]).includes(String(current.status)))
      throw new EffectNotInReviewError(r.key, current, r.job);
    throw new EffectChangedError(r.key, effectVersion(r.shown), current);
  },
};
