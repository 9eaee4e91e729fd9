/**
 * The effect transitions (docs/design.md "One invocation", step 5), each declared ONCE like the other
 * writes (operations.ts). The two that precede a provider call are one transaction with a lease check
 * (`owner = me AND fence = myFence`), so the ownership re-check happens at the same instant as the
 * transition. Effect records carry no TTL: an expired record would let a backfill pay again.
 */
import { EffectStatus, effectItemOf } from '../../core/effects.js';
import { boundText } from '../../core/item-bounds.js';
import type {
  EffectOutcomeUpdate,
  FenceContext,
  RecordResult,
  SeenEffect,
  SendingResult,
} from '../../core/ports.js';
import { Attr, Keys, PROBLEM_ATTRIBUTES, problemKeys } from '../schema.js';
import { lastError } from './effect-notes.js';
import { and, type Condition, eq, IfNotExists, le, ne, notExists, or } from './expression.js';
import { LEASE_SK, leaseInactive, owned } from './operations.js';
import { ProtocolOp, type RequestTag } from './ops.js';
import type { Item, Operation, ProtocolRequest, Write } from './request.js';

/** Which effect: the library table, the job, the idempotency key. */
export interface EffectRef {
  readonly table: string;
  readonly job: string;
  readonly key: string;
}

function tag(name: string, ref: EffectRef, fc?: FenceContext): RequestTag {
  return {
    op: ProtocolOp.Effect,
    name,
    table: ref.table,
    key: Keys.effect(ref.job, ref.key),
    ...(fc && { runId: fc.runId, fence: fc.fence }),
  };
}

/**
 * The effect still has the status, fence and run we saw, and — when it was last moved under our lease —
 * its fence is not above ours. Fences of different leases are never compared: the move of another
 * lease's effect is checked against that lease instead ({@link leaseInactive}, docs/design.md).
 */
function stillAsSeen(seen: SeenEffect, fc: FenceContext): Condition {
  return and(
    eq('status', seen.status),
    eq('fence', seen.fence),
    eq('runId', seen.runId),
    or(ne('leaseKey', fc.leaseKey), le('fence', fc.fence)),
  );
}

/** The transaction of a move to `sending`: the lease check, then the effect write. */
function sendingTransaction(
  name: string,
  label: string,
  ref: EffectRef,
  fc: FenceContext,
  write: Write,
  otherLease?: string,
): ProtocolRequest {
  return {
    tag: tag(name, ref, fc),
    label,
    writes: [
      {
        kind: 'check',
        table: ref.table,
        key: { pk: fc.leaseKey, sk: LEASE_SK },
        condition: owned(fc.runId, fc.fence),
      },
      write,
      // Cross-lease reconciliation: the lease the effect was last moved under must not be running.
      ...(otherLease !== undefined
        ? [
            {
              kind: 'check' as const,
              table: ref.table,
              key: { pk: otherLease, sk: LEASE_SK },
              condition: leaseInactive(fc.nowMs),
            },
          ]
        : []),
    ],
  };
}

const sending = { accepted: (): SendingResult => ({ kind: 'sending' }) };

/** What refused write 0 (the lease check) or 1 (the effect) of a sending transaction means. */
function sendingRefused(item: Item | undefined, index: number, input: object): SendingResult {
  const otherLease = (input as { otherLease?: string }).otherLease;
  if (index === 2 && otherLease !== undefined) return { kind: 'other-lease-running', lease: otherLease };
  return index === 0 ? { kind: 'lease-lost', lease: item } : { kind: 'existing', item: effectItemOf(item) };
}

/** Insert an effect. */
export type EffectInsertInput = EffectRef & {
  readonly fields: { requestHash: string; job: string; provider: string };
  readonly fc: FenceContext;
};

/**
 * Insert the effect as `sending` (no effect under this key yet), in one transaction with the lease
 * check. Refused: `lease-lost` (with the lease item) or `existing` (with the effect).
 */
export const effectInsert: Operation<EffectInsertInput, SendingResult> = {
  name: 'effect-insert',
  request: (e) => {
    const key = Keys.effect(e.job, e.key);
    const { fc } = e;
    return sendingTransaction('effect-insert', `insert effect ${e.key}`, e, fc, {
      kind: 'put',
      table: e.table,
      key,
      condition: notExists(Attr.pk),
      item: {
        ...key,
        kind: 'effect',
        key: e.key,
        ...e.fields,
        status: EffectStatus.Sending,
        attempts: 1,
        fence: fc.fence,
        leaseKey: fc.leaseKey,
        runId: fc.runId,
        createdAtMs: fc.nowMs,
        sendingAtMs: fc.nowMs,
        updatedAtMs: fc.nowMs,
        ...unsettled(fc.nowMs),
      },
    });
  },
  ...sending,
  refused: sendingRefused,
};

/** Move an effect seen as `seen`. */
export type EffectMoveInput = EffectRef & {
  readonly seen: SeenEffect;
  readonly fc: FenceContext;
  /** The lease the effect was last moved under, when not ours (cross-lease reconciliation). */
  readonly otherLease?: string;
  /** The mover's request hash (written: the effect has none after a `not-executed` resolution). */
  readonly requestHash?: string;
};

/**
 * Take an effect over for (re)sending: still as we saw it and not under a higher fence; sets our
 * fence and run, counts the attempt; in one transaction with the lease check. Refused: as insert.
 */
export const effectMove: Operation<EffectMoveInput, SendingResult> = {
  name: 'effect-move',
  request: (e) =>
    sendingTransaction(
      'effect-move',
      `take over effect ${e.key}`,
      e,
      e.fc,
      {
        kind: 'update',
        table: e.table,
        key: Keys.effect(e.job, e.key),
        condition: stillAsSeen(e.seen, e.fc),
        update: {
          set: {
            status: EffectStatus.Sending,
            fence: e.fc.fence,
            runId: e.fc.runId,
            leaseKey: e.fc.leaseKey,
            sendingAtMs: e.fc.nowMs,
            updatedAtMs: e.fc.nowMs,
            requestHash: e.requestHash,
            ...unsettled(e.fc.nowMs),
          },
          add: { attempts: 1 },
        },
      },
      e.otherLease,
    ),
  ...sending,
  refused: sendingRefused,
};

/**
 * Problem value of an effect that is not terminal (`sending`, `pending`): it sits in the sparse
 * `problems` index from the moment it leaves a terminal state, so `cronfence effects --status unsettled`
 * and the sweeper's `EffectUnsettled` metric find every effect still not terminal after a bound.
 */
export const UNSETTLED_PROBLEM = 'unsettled';

/** The sparse-index attributes of a non-terminal effect, flagged at `atMs`. */
function unsettled(atMs: number): Item {
  return problemKeys(UNSETTLED_PROBLEM, atMs);
}

/** What a terminal outcome removes: the `unsettled` flag (needs-review sets its own); success, the last error. */
function removedBy(outcome: EffectOutcomeUpdate): string[] {
  if (outcome.status === EffectStatus.NeedsReview) return [];
  return outcome.status === EffectStatus.Succeeded
    ? [...PROBLEM_ATTRIBUTES, 'lastError']
    : [...PROBLEM_ATTRIBUTES];
}

/** The attributes an outcome sets. */
function outcomeSets(outcome: EffectOutcomeUpdate, fc: FenceContext): Item {
  const base = { status: outcome.status, updatedAtMs: fc.nowMs };
  switch (outcome.status) {
    case EffectStatus.NeedsReview:
      return {
        ...base,
        reviewReason: boundText(outcome.reviewReason),
        ...problemKeys(outcome.status, fc.nowMs),
        // the error of the unknown outcome when its run noted one, else why it needs review
        lastError: new IfNotExists(
          'lastError',
          lastError('EffectOutcomeUnknownError', outcome.reviewReason, fc.nowMs),
        ),
      };
    case EffectStatus.Succeeded:
      return {
        ...base,
        finishedAtMs: fc.nowMs,
        providerRef: boundText(outcome.providerRef),
        responseDigest: boundText(outcome.responseDigest),
        ...(outcome.resolvedBy && { resolvedBy: outcome.resolvedBy }),
      };
    default:
      return {
        ...base,
        finishedAtMs: fc.nowMs,
        error: { ...outcome.error, message: boundText(outcome.error.message) },
        lastError: lastError(
          'ProviderRejected',
          `HTTP ${outcome.error.httpStatus}: ${outcome.error.message}`,
          fc.nowMs,
        ),
      };
  }
}

const recorded = {
  accepted: (item: Item | undefined): RecordResult => ({
    kind: 'recorded',
    item: effectItemOf(item),
  }),
  refused: (item: Item | undefined): RecordResult => ({
    kind: 'existing',
    item: effectItemOf(item),
  }),
};

/** Record an outcome. */
export type EffectFinishInput = EffectRef & {
  readonly fc: FenceContext;
  readonly outcome: EffectOutcomeUpdate;
};

/** One UpdateItem recording an outcome (ALL_NEW): `condition` on the effect, the outcome's attributes and `set`. */
function outcomeRequest(
  name: string,
  verb: string,
  e: EffectFinishInput,
  condition: Condition,
  set: Item = {},
): ProtocolRequest {
  return {
    tag: tag(name, e, e.fc),
    label: `${verb} effect ${e.key} ${e.outcome.status}`,
    writes: [
      {
        kind: 'update',
        table: e.table,
        key: Keys.effect(e.job, e.key),
        condition,
        update: { set: { ...outcomeSets(e.outcome, e.fc), ...set }, remove: removedBy(e.outcome) },
        returnValues: 'ALL_NEW',
      },
    ],
  };
}

/**
 * Record the outcome of OUR call: the effect is still `sending` under our fence and run (no lease
 * check: the call happened). Returns ALL_NEW. Refused: `existing` with the effect as it is.
 */
export const effectFinish: Operation<EffectFinishInput, RecordResult> = {
  name: 'effect-finish',
  request: (e) =>
    outcomeRequest(
      'effect-finish',
      'record',
      e,
      and(eq('status', EffectStatus.Sending), eq('fence', e.fc.fence), eq('runId', e.fc.runId)),
    ),
  ...recorded,
};

/** Settle an effect seen as `seen`. */
export type EffectSettleInput = EffectFinishInput & { readonly seen: SeenEffect };

/**
 * Settle an effect another call left in `sending`, without calling the provider (a looked-up
 * outcome, or `needs-review`): still as we saw it; sets our fence and run. Refused: `existing`.
 */
export const effectSettle: Operation<EffectSettleInput, RecordResult> = {
  name: 'effect-settle',
  request: (e) =>
    outcomeRequest('effect-settle', 'settle', e, stillAsSeen(e.seen, e.fc), {
      fence: e.fc.fence,
      runId: e.fc.runId,
      leaseKey: e.fc.leaseKey,
    }),
  ...recorded,
};
