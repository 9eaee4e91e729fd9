/**
 * Writes to the application's business tables under a lease's fence (DESIGN.md protocol 3, 4):
 * fenced writes on protected items, and insert-once results with takeover and own-write rules.
 */
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../core/ports.js';
import { crossLeaseRefused, fencedWriteRefused, insertRefused, takeOverRefused } from '../core/results.js';
import { ResultConflictError, StaleFenceError, showValue } from '../errors.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from './client.js';
import {
  FENCED,
  FENCED_ADOPT,
  FENCED_CROSS_LEASE,
  INSERT_ONCE,
  LEASE_INACTIVE,
  TAKEOVER,
} from './conditions.js';
import { Keys } from './schema.js';

export type { FenceContext, InsertOnceResult, ItemRef } from '../core/ports.js';

const RESERVED = ['lastFence', 'fencedBy', 'fence', 'runId', 'status', 'writtenAtMs'];

function describe(ref: ItemRef): string {
  return `${ref.tableName} ${showValue(ref.key)}`;
}

function assignments(attributes: Record<string, unknown>, skip: Record<string, unknown>) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  let i = 0;
  for (const [k, val] of Object.entries(attributes)) {
    if (k in skip || val === undefined) continue;
    if (RESERVED.includes(k))
      throw new ResultConflictError(`attribute "${k}" is reserved by cronfence on ${k}`);
    names[`#a${i}`] = k;
    values[`:a${i}`] = val;
    sets.push(`#a${i} = :a${i}`);
    i++;
  }
  return { names, values, sets };
}

/** Options of a fenced write. */
export interface FencedPutOptions {
  /**
   * Accept an item that exists but was never written under a fence (data from before cronfence, or
   * from other tooling) and fence it from now on. An explicit, separate choice: "unfenced" otherwise
   * means "the item does not exist". @default false
   */
  readonly adoptUnfenced?: boolean;
}

/** Sort key of every lease item (cross-lease checks address the other lease by its partition key). */
const LEASE_SK = Keys.lease('any').sk;

/** The UpdateItem of a fenced write without its condition: the attributes, `fence`, `fencedBy`, run, time. */
function fencedUpdate(ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext) {
  const a = assignments(attributes, ref.key);
  return {
    TableName: ref.tableName,
    Key: ref.key,
    UpdateExpression: `SET ${[...a.sets, '#fence = :fence', '#fencedBy = :lease', '#runId = :me', '#writtenAtMs = :now'].join(', ')}`,
    ExpressionAttributeNames: {
      ...a.names,
      '#fence': 'fence',
      '#fencedBy': 'fencedBy',
      '#runId': 'runId',
      '#writtenAtMs': 'writtenAtMs',
    } as Record<string, string>,
    ExpressionAttributeValues: {
      ...a.values,
      ':fence': fc.fence,
      ':lease': fc.leaseKey,
      ':me': fc.runId,
      ':now': fc.nowMs,
    } as Record<string, unknown>,
  };
}

/** Fenced writes and insert-once results on business tables. */
export class DynamoResultStore implements ResultStore {
  /**
   * @param libraryTable the table of the lease items, for cross-lease reconciliation; without it an
   *   item of another lease is refused (ResultConflictError).
   */
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly libraryTable?: string,
  ) {}

  /**
   * Write (create or overwrite) a protected item under a fence. Condition: FENCED (FENCED_ADOPT with
   * `adoptUnfenced`); an item last written under another lease is reconciled by {@link crossLease}.
   * @throws StaleFenceError carrying the stored fence when a newer holder of our lease already wrote it.
   * @throws ResultConflictError when the item exists unfenced (and adopting was not asked for), or
   *   another lease that still runs fenced it; StoreError on DynamoDB failure.
   */
  async fencedPut(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    options: FencedPutOptions = {},
  ): Promise<void> {
    const [partitionKey] = Object.keys(ref.key);
    if (partitionKey === undefined)
      throw new ResultConflictError(`fenced write on ${ref.tableName} needs a key`);
    const w = fencedUpdate(ref, attributes, fc);
    try {
      await this.doc.send(
        new UpdateCommand({
          ...w,
          ConditionExpression: options.adoptUnfenced ? FENCED_ADOPT : FENCED,
          ExpressionAttributeNames: { ...w.ExpressionAttributeNames, '#k0': partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw storeError(`UpdateItem (fenced write ${describe(ref)})`, err);
      const refusal = fencedWriteRefused(describe(ref), itemOfConditionFailure(err), fc);
      if (refusal.kind === 'refused') throw refusal.error;
      await this.crossLease(ref, attributes, fc, refusal);
    }
  }

  /**
   * Reconcile an item last written under another lease: one TransactWriteItems that checks the other
   * lease is released or expired (LEASE_INACTIVE) and writes the item if it is still as seen
   * (FENCED_CROSS_LEASE). Not on a run's normal path: only after a job's lease key changed.
   * @throws ResultConflictError when the other lease still runs or the item moved; StoreError
   */
  private async crossLease(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    other: { lease: string; fence: number },
  ): Promise<void> {
    if (!this.libraryTable) throw crossLeaseRefused(describe(ref), other, undefined); // no lease table to check against
    const w = fencedUpdate(ref, attributes, fc);
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.libraryTable,
                Key: { pk: other.lease, sk: LEASE_SK },
                ConditionExpression: LEASE_INACTIVE,
                ExpressionAttributeNames: { '#holderState': 'holderState', '#leaseUntilMs': 'leaseUntilMs' },
                ExpressionAttributeValues: { ':running': 'running', ':now': fc.nowMs },
              },
            },
            {
              Update: {
                ...w,
                ConditionExpression: FENCED_CROSS_LEASE,
                ExpressionAttributeValues: {
                  ...w.ExpressionAttributeValues,
                  ':otherLease': other.lease,
                  ':otherFence': other.fence,
                },
                ExpressionAttributeNames: { ...w.ExpressionAttributeNames, '#fence': 'fence' },
              },
            },
          ],
        }),
      );
    } catch (err) {
      if ((err as Error)?.name === 'TransactionCanceledException')
        throw crossLeaseRefused(describe(ref), other, undefined);
      throw storeError(`TransactWriteItems (cross-lease write ${describe(ref)})`, err);
    }
  }

  /**
   * Insert a business result once. The row is written with `status: succeeded`, `fence`, `runId`
   * in ONE PutItem (condition INSERT_ONCE). A loser gets the existing row back, no read:
   * succeeded → `existing`; our own fence and run → our write whose response was lost → `inserted`;
   * `running` with a lower fence (a two-phase row of a holder that lost its lease) → take over with a
   * conditional update on the old fence; a higher fence → we are stale.
   * @throws StaleFenceError when a newer holder owns the row; StoreError (naming the key) on DynamoDB failure.
   */
  async insertOnce(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    status = 'succeeded',
  ): Promise<InsertOnceResult> {
    const [partitionKey] = Object.keys(ref.key);
    if (partitionKey === undefined)
      throw new ResultConflictError(`insert-once on ${ref.tableName} needs a key`);
    const item = {
      ...attributes,
      ...ref.key,
      status,
      fence: fc.fence,
      runId: fc.runId,
      fencedBy: fc.leaseKey,
      writtenAtMs: fc.nowMs,
    };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: ref.tableName,
          Item: item,
          ConditionExpression: INSERT_ONCE,
          ExpressionAttributeNames: { '#k0': partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { status: 'inserted', item };
    } catch (err) {
      if (!isConditionFailure(err)) throw storeError(`PutItem (insert-once ${describe(ref)})`, err);
      const existing = itemOfConditionFailure(err) ?? {};
      switch (insertRefused(existing, fc)) {
        case 'own-write':
          return { status: 'inserted', item: existing };
        case 'existing':
          return { status: 'existing', item: existing };
        case 'take-over':
          return this.takeOver(ref, attributes, fc, existing, status);
        case 'stale':
          throw new StaleFenceError(describe(ref), fc.fence, Number(existing.fence), existing);
      }
    }
  }

  private async takeOver(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    existing: Record<string, unknown>,
    status: string,
  ): Promise<InsertOnceResult> {
    const a = assignments(attributes, ref.key);
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: ref.tableName,
          Key: ref.key,
          ConditionExpression: TAKEOVER,
          UpdateExpression: `SET ${[...a.sets, '#status = :status', '#fence = :fence', '#runId = :me', '#writtenAtMs = :now'].join(', ')}`,
          ExpressionAttributeNames: {
            ...a.names,
            '#status': 'status',
            '#fence': 'fence',
            '#runId': 'runId',
            '#writtenAtMs': 'writtenAtMs',
          },
          ExpressionAttributeValues: {
            ...a.values,
            ':status': status,
            ':running': 'running',
            ':fence': fc.fence,
            ':me': fc.runId,
            ':now': fc.nowMs,
            ':oldFence': existing.fence,
            ':oldRunId': existing.runId,
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { status: 'inserted', item: out.Attributes ?? {} };
    } catch (err) {
      if (!isConditionFailure(err))
        throw storeError(`UpdateItem (insert-once takeover ${describe(ref)})`, err);
      const now = itemOfConditionFailure(err) ?? {};
      const decision = takeOverRefused(now, fc);
      if (decision === 'stale') throw new StaleFenceError(describe(ref), fc.fence, Number(now.fence), now);
      return { status: decision === 'own-write' ? 'inserted' : 'existing', item: now };
    }
  }
}
