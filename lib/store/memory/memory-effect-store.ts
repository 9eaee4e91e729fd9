/**
 * In-memory effect records with the same conditions as DynamoEffectStore: EFFECT_INSERT / EFFECT_MOVE
 * atomically with the lease check OWNED (one "transaction": one synchronous step), EFFECT_OWNED for
 * our own outcome. Like a TransactWriteItems carrying the SDK's ClientRequestToken, a retried
 * transaction whose first attempt was applied returns that attempt's result.
 */

import type { FenceContext } from '../../core/ports.js';
import type {
  EffectOutcomeUpdate,
  EffectStore,
  RecordResult,
  SeenEffect,
  SendingResult,
} from '../../effects/effect-store.js';
import { type EffectItem, EffectStatus } from '../../effects/types.js';
import { storeError } from '../client.js';
import { Attr, Keys } from '../schema.js';
import { type Item, type MemoryClient, MemoryConditionFailed } from './memory-db.js';

const LEASE_SK = Keys.lease('any').sk;

/** A transaction whose condition failed (named like DynamoDB's), carrying what it found. */
class TransactionCanceled extends Error {
  constructor(readonly result: SendingResult) {
    super('Transaction cancelled: ConditionalCheckFailed');
    this.name = 'TransactionCanceledException';
  }
}

/** Effect store on a {@link MemoryClient}, for one job. */
export class MemoryEffectStore implements EffectStore {
  constructor(
    private readonly client: MemoryClient,
    private readonly tableName: string,
    private readonly job: string,
  ) {}

  beginSending(
    key: string,
    fields: { requestHash: string; job: string; provider: string },
    fc: FenceContext,
  ): Promise<SendingResult> {
    return this.transaction(key, fc, `insert effect ${key}`, undefined, (cur) => {
      if (cur !== undefined) return undefined;
      return {
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
    });
  }

  moveToSending(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    otherLease?: string,
  ): Promise<SendingResult> {
    return this.transaction(key, fc, `take over effect ${key}`, otherLease, (cur) => {
      if (!moves(cur, seen, fc)) return undefined;
      return {
        ...cur,
        status: EffectStatus.Sending,
        fence: fc.fence,
        runId: fc.runId,
        leaseKey: fc.leaseKey,
        sendingAtMs: fc.nowMs,
        updatedAtMs: fc.nowMs,
        attempts: Number(cur?.attempts ?? 0) + 1,
      };
    });
  }

  finish(key: string, fc: FenceContext, outcome: EffectOutcomeUpdate): Promise<RecordResult> {
    return this.update(
      key,
      `record effect ${key} ${outcome.status}`,
      fc,
      outcome,
      false,
      (cur) => cur?.status === EffectStatus.Sending && cur.fence === fc.fence && cur.runId === fc.runId,
    );
  }

  settle(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
  ): Promise<RecordResult> {
    return this.update(key, `settle effect ${key} ${outcome.status}`, fc, outcome, true, (cur) =>
      moves(cur, seen, fc),
    );
  }

  async get(key: string): Promise<EffectItem | undefined> {
    const k = Keys.effect(this.job, key);
    try {
      return await this.client.send(
        { command: 'GetItemCommand', op: 'read', input: { TableName: this.tableName, Key: k } },
        () => this.client.db.get(this.tableName, k) as EffectItem | undefined,
      );
    } catch (err) {
      throw storeError(`GetItem (effect ${key})`, err);
    }
  }

  private async transaction(
    key: string,
    fc: FenceContext,
    what: string,
    otherLease: string | undefined,
    next: (cur: Item | undefined) => Item | undefined,
  ): Promise<SendingResult> {
    const k = Keys.effect(this.job, key);
    let first: SendingResult | undefined; // ClientRequestToken: a retry of an applied attempt replays it
    try {
      return await this.client.send(
        {
          command: 'TransactWriteItemsCommand',
          op: 'effect',
          input: { TableName: this.tableName, Key: k, runId: fc.runId, fence: fc.fence },
        },
        () => {
          if (first) return first;
          const lease = this.client.db.get(this.tableName, { pk: fc.leaseKey, sk: LEASE_SK });
          if (lease?.owner !== fc.runId || lease.fence !== fc.fence || lease.holderState !== 'running')
            throw new TransactionCanceled({ kind: 'lease-lost', lease });
          const cur = this.client.db.get(this.tableName, k);
          const item = next(cur);
          if (!item)
            throw new TransactionCanceled({ kind: 'existing', item: (cur ?? {}) as unknown as EffectItem });
          if (otherLease) {
            // LEASE_INACTIVE on the lease the effect was last moved under
            const other = this.client.db.get(this.tableName, { pk: otherLease, sk: LEASE_SK });
            if (other?.holderState === 'running' && Number(other.leaseUntilMs) >= fc.nowMs)
              throw new TransactionCanceled({ kind: 'other-lease-running', lease: otherLease });
          }
          this.client.db.put(this.tableName, k, item, {
            op: 'effect',
            runId: fc.runId,
            fence: fc.fence,
            status: 'sending',
          });
          first = { kind: 'sending' };
          return first;
        },
      );
    } catch (err) {
      if (err instanceof TransactionCanceled) return err.result;
      throw storeError(`TransactWriteItems (${what})`, err);
    }
  }

  private async update(
    key: string,
    what: string,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
    move: boolean,
    condition: (cur: Item | undefined) => boolean,
  ): Promise<RecordResult> {
    const k = Keys.effect(this.job, key);
    const sets: Item = { status: outcome.status, updatedAtMs: fc.nowMs };
    if (move) Object.assign(sets, { fence: fc.fence, runId: fc.runId, leaseKey: fc.leaseKey });
    if (outcome.status === EffectStatus.NeedsReview) {
      Object.assign(sets, {
        reviewReason: outcome.reviewReason,
        [Attr.problem]: outcome.status,
        [Attr.problemAtMs]: fc.nowMs,
      });
    } else {
      sets.finishedAtMs = fc.nowMs;
      if (outcome.status === EffectStatus.Succeeded) {
        Object.assign(sets, { providerRef: outcome.providerRef, responseDigest: outcome.responseDigest });
        if (outcome.resolvedBy) sets.resolvedBy = outcome.resolvedBy;
      } else sets.error = outcome.error;
    }
    try {
      return await this.client.send(
        {
          command: 'UpdateItemCommand',
          op: 'effect',
          input: { TableName: this.tableName, Key: k, runId: fc.runId, fence: fc.fence },
        },
        () => {
          const cur = this.client.db.get(this.tableName, k);
          if (!condition(cur)) throw new MemoryConditionFailed(cur);
          const item = { ...cur, ...sets };
          this.client.db.put(this.tableName, k, item, {
            op: 'effect',
            runId: fc.runId,
            fence: fc.fence,
            status: outcome.status,
          });
          return { kind: 'recorded', item: item as unknown as EffectItem } as const;
        },
      );
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed)) throw storeError(`UpdateItem (${what})`, err);
      return { kind: 'existing', item: (err.item ?? {}) as unknown as EffectItem };
    }
  }
}

function moves(cur: Item | undefined, seen: SeenEffect, fc: FenceContext): boolean {
  return (
    cur !== undefined &&
    cur.status === seen.status &&
    cur.fence === seen.fence &&
    cur.runId === seen.runId &&
    (cur.leaseKey !== fc.leaseKey || Number(cur.fence) <= fc.fence)
  );
}
