/**
 * Effect records on the library table at `Keys.effect(job, key)` (DESIGN.md protocol 5). Every transition
 * is ONE conditional request on status and fence; the requests that precede a provider call also
 * re-check lease ownership in the same transaction. No reads: a refused write returns the item.
 *
 * Why the first write inserts `sending` directly instead of `pending` then `sending`:
 * the two-step protocol writes `pending` (insert-once), then moves it to `sending` under an ownership
 * check, then calls. Nothing external happens between those two writes, so the only thing `pending`
 * tells a successor is "the holder died between two back-to-back writes" — a window no longer than
 * the one between the `sending` write and the call, which every successor must already treat as
 * "outcome unknown". One TransactWriteItems that checks the lease (`owner = me AND fence = myFence`)
 * and inserts the record as `sending` (`attribute_not_exists(pk)`) is atomic, so every state a
 * successor can observe is one the two-step protocol can also produce (a crash right after its
 * `sending` write), and the lease check happens at the same instant as the transition — which is
 * what "ownership re-checked by a conditional write right before the call" asks. It saves one write
 * per effect. A `pending` record written by other tooling is still understood (taken over and sent).
 */

import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { boundText } from '../core/item-bounds.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from '../store/client.js';
import { EFFECT_INSERT, EFFECT_MOVE, EFFECT_OWNED, OWNED } from '../store/conditions.js';
import type { FenceContext } from '../store/result-store.js';
import { Attr, Keys } from '../store/schema.js';
import { type EffectItem, EffectStatus } from './types.js';

/** Result of a write that would let this run call the provider. */
export type SendingResult =
  | { readonly kind: 'sending' }
  /** The effect record refused the write: here it is. */
  | { readonly kind: 'existing'; readonly item: EffectItem }
  /** The lease check refused: another run holds the lease (its item, if returned). */
  | { readonly kind: 'lease-lost'; readonly lease: Record<string, unknown> | undefined };

/** Result of recording an outcome. */
export type RecordResult =
  | { readonly kind: 'recorded'; readonly item: EffectItem }
  | { readonly kind: 'existing'; readonly item: EffectItem };

/** The status, fence and run an effect had when we saw it (the condition of a move). */
export interface SeenEffect {
  readonly status: string;
  readonly fence: number;
  readonly runId: string;
}

/** An outcome to record. */
export type EffectOutcomeUpdate =
  | {
      readonly status: typeof EffectStatus.Succeeded;
      readonly providerRef: string;
      readonly responseDigest: string;
      readonly resolvedBy?: string;
    }
  | { readonly status: typeof EffectStatus.Failed; readonly error: { httpStatus: number; message: string } }
  | { readonly status: typeof EffectStatus.NeedsReview; readonly reviewReason: string };

/** Attempts of a transaction that DynamoDB cancels for a concurrent transaction on the same item. */

type Reason = { Code?: string; Item?: Record<string, unknown> };

/** Sort key of every lease item; the run's fence context carries the lease's partition key. */
const LEASE_SK = Keys.lease('any').sk;

/**
 * The effect-record port: what {@link EffectRunner} needs. DynamoDB: {@link DynamoEffectStore}; in
 * memory: `MemoryEffectStore` (lib/store/memory, the history explorer). One contract suite for both.
 */
export interface EffectStore {
  /** Insert the record as `sending` atomically with a lease ownership check. @throws StoreError */
  beginSending(
    key: string,
    fields: { requestHash: string; job: string; provider: string },
    fc: FenceContext,
  ): Promise<SendingResult>;
  /** Take an effect over for (re)sending, atomically with a lease ownership check. @throws StoreError */
  moveToSending(key: string, seen: SeenEffect, fc: FenceContext): Promise<SendingResult>;
  /** Record the outcome of our own call. @throws StoreError */
  finish(key: string, fc: FenceContext, outcome: EffectOutcomeUpdate): Promise<RecordResult>;
  /** Settle an effect another call left in `sending` without calling the provider. @throws StoreError */
  settle(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
  ): Promise<RecordResult>;
  /** Read an effect record (CLI and tests only). @throws StoreError */
  get(key: string): Promise<EffectItem | undefined>;
}

/** Effect store on the library table. */
export class DynamoEffectStore implements EffectStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The job whose effects this store reads and writes (the key prefix IAM scopes on). */
    private readonly job: string,
  ) {}

  /**
   * Insert the record as `sending` under this run's fence, atomically with a lease ownership check.
   * @throws StoreError naming the key on a DynamoDB failure.
   */
  beginSending(
    key: string,
    fields: { requestHash: string; job: string; provider: string },
    fc: FenceContext,
  ): Promise<SendingResult> {
    const item = {
      ...Keys.effect(this.job, key),
      kind: 'effect',
      key,
      ...fields,
      status: EffectStatus.Sending,
      attempts: 1,
      fence: fc.fence,
      leaseKey: fc.leaseKey,
      runId: fc.runId,
      createdAtMs: fc.nowMs,
      sendingAtMs: fc.nowMs,
      updatedAtMs: fc.nowMs,
    };
    return this.sendingTransaction(fc, `insert effect ${key}`, {
      Put: {
        TableName: this.tableName,
        Item: item,
        ConditionExpression: EFFECT_INSERT,
        ExpressionAttributeNames: { '#pk': Attr.pk },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
  }

  /**
   * Take an effect over for (re)sending: still as we saw it (EFFECT_MOVE), atomically with a lease
   * ownership check; sets our fence and run, counts the attempt. @throws StoreError
   */
  async moveToSending(key: string, seen: SeenEffect, fc: FenceContext): Promise<SendingResult> {
    return this.sendingTransaction(fc, `take over effect ${key}`, {
      Update: {
        TableName: this.tableName,
        Key: Keys.effect(this.job, key),
        ConditionExpression: EFFECT_MOVE,
        UpdateExpression:
          'SET #status = :sending, #fence = :fence, #runId = :me, #leaseKey = :lease, #sendingAtMs = :now, #updatedAtMs = :now ADD #attempts :one',
        ExpressionAttributeNames: {
          ...moveNames,
          '#leaseKey': 'leaseKey',
          '#sendingAtMs': 'sendingAtMs',
          '#updatedAtMs': 'updatedAtMs',
          '#attempts': 'attempts',
        },
        ExpressionAttributeValues: {
          ...moveValues(seen, fc),
          ':sending': EffectStatus.Sending,
          ':me': fc.runId,
          ':lease': fc.leaseKey,
          ':now': fc.nowMs,
          ':one': 1,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
  }

  /** Record the outcome of OUR call (EFFECT_OWNED). No lease check: the call happened. @throws StoreError */
  finish(key: string, fc: FenceContext, outcome: EffectOutcomeUpdate): Promise<RecordResult> {
    return this.update(key, `record effect ${key} ${outcome.status}`, EFFECT_OWNED, outcome, fc, {
      ':sending': EffectStatus.Sending,
      ':me': fc.runId,
      ':fence': fc.fence,
    });
  }

  /**
   * Settle an effect another call left in `sending`, without calling the provider: a looked-up
   * outcome, or `needs-review`. Condition EFFECT_MOVE; sets our fence and run. @throws StoreError
   */
  settle(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
  ): Promise<RecordResult> {
    return this.update(
      key,
      `settle effect ${key} ${outcome.status}`,
      EFFECT_MOVE,
      outcome,
      fc,
      moveValues(seen, fc),
    );
  }

  /** Read an effect record (CLI and tests only; never on a run's path). @throws StoreError */
  async get(key: string): Promise<EffectItem | undefined> {
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: Keys.effect(this.job, key), ConsistentRead: true }),
      );
      return out.Item as EffectItem | undefined;
    } catch (err) {
      throw storeError(`GetItem (effect ${key})`, err);
    }
  }

  private async update(
    key: string,
    what: string,
    condition: string,
    outcome: EffectOutcomeUpdate,
    fc: FenceContext,
    conditionValues: Record<string, unknown>,
  ): Promise<RecordResult> {
    const sets: Record<string, unknown> = { status: outcome.status, updatedAtMs: fc.nowMs };
    if (condition === EFFECT_MOVE)
      Object.assign(sets, { fence: fc.fence, runId: fc.runId, leaseKey: fc.leaseKey });
    if (outcome.status === EffectStatus.NeedsReview) {
      Object.assign(sets, {
        reviewReason: boundText(outcome.reviewReason),
        [Attr.problem]: outcome.status,
        [Attr.problemAtMs]: fc.nowMs,
      });
    } else {
      Object.assign(sets, { finishedAtMs: fc.nowMs });
      if (outcome.status === EffectStatus.Succeeded) {
        Object.assign(sets, {
          providerRef: boundText(outcome.providerRef),
          responseDigest: boundText(outcome.responseDigest),
        });
        if (outcome.resolvedBy) sets.resolvedBy = outcome.resolvedBy;
      } else sets.error = { ...outcome.error, message: boundText(outcome.error.message) };
    }
    const names: Record<string, string> = { '#status': 'status', '#fence': 'fence', '#runId': 'runId' };
    const values: Record<string, unknown> = { ...conditionValues };
    const assignments = Object.entries(sets).map(([name, value], i) => {
      names[`#u${i}`] = name;
      values[`:u${i}`] = value;
      return `#u${i} = :u${i}`;
    });
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.effect(this.job, key),
          ConditionExpression: condition,
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { kind: 'recorded', item: out.Attributes as EffectItem };
    } catch (err) {
      if (!isConditionFailure(err)) throw storeError(`UpdateItem (${what})`, err);
      return { kind: 'existing', item: (itemOfConditionFailure(err) ?? {}) as unknown as EffectItem };
    }
  }

  private async sendingTransaction(
    fc: FenceContext,
    what: string,
    effectWrite: Record<string, unknown>,
  ): Promise<SendingResult> {
    const leaseCheck = {
      ConditionCheck: {
        TableName: this.tableName,
        Key: { pk: fc.leaseKey, sk: LEASE_SK },
        ConditionExpression: OWNED,
        ExpressionAttributeNames: { '#owner': 'owner', '#fence': 'fence' },
        ExpressionAttributeValues: { ':me': fc.runId, ':fence': fc.fence },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
    try {
      await this.doc.send(
        // biome-ignore lint/suspicious/noExplicitAny: the two item shapes are checked by the SDK at runtime
        new TransactWriteCommand({ TransactItems: [leaseCheck, effectWrite] as any }),
      );
      return { kind: 'sending' };
    } catch (err) {
      const reasons = (err as { CancellationReasons?: Reason[] }).CancellationReasons;
      if ((err as Error)?.name !== 'TransactionCanceledException' || !reasons) {
        throw storeError(`TransactWriteItems (${what})`, err);
      }
      const [lease, effect] = reasons;
      if (lease?.Code === 'ConditionalCheckFailed') {
        return { kind: 'lease-lost', lease: lease.Item ? itemOfConditionFailure(lease) : undefined };
      }
      if (effect?.Code === 'ConditionalCheckFailed') {
        return { kind: 'existing', item: (itemOfConditionFailure(effect) ?? {}) as unknown as EffectItem };
      }
      // Conflicts alone were already retried with backoff by the client (createDocumentClient).
      throw storeError(`TransactWriteItems (${what})`, err);
    }
  }
}

const moveNames = { '#status': 'status', '#fence': 'fence', '#runId': 'runId' };

function moveValues(seen: SeenEffect, fc: FenceContext): Record<string, unknown> {
  return { ':from': seen.status, ':oldFence': seen.fence, ':oldRunId': seen.runId, ':fence': fc.fence };
}
