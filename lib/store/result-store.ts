/**
 * Writes to the application's business tables under a lease's fence (DESIGN.md protocol 3, 4):
 * fenced writes on protected items, and insert-once results with takeover and own-write rules.
 */
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../core/ports.js';
import { fencedWriteRefused, insertRefused, takeOverRefused } from '../core/results.js';
import { ResultConflictError, StaleFenceError, showValue } from '../errors.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from './client.js';
import { FENCED, INSERT_ONCE, TAKEOVER } from './conditions.js';

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

/** Fenced writes and insert-once results on business tables. */
export class DynamoResultStore implements ResultStore {
  constructor(private readonly doc: DynamoDBDocumentClient) {}

  /**
   * Write (create or overwrite) a protected item under a fence. Condition: FENCED.
   * @throws StaleFenceError carrying the stored fence when a newer holder already wrote it.
   * @throws ResultConflictError when another lease fences the item; StoreError on DynamoDB failure.
   */
  async fencedPut(ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext): Promise<void> {
    const a = assignments(attributes, ref.key);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: ref.tableName,
          Key: ref.key,
          ConditionExpression: FENCED,
          UpdateExpression: `SET ${[...a.sets, '#lastFence = :fence', '#fencedBy = :lease', '#runId = :me', '#writtenAtMs = :now'].join(', ')}`,
          ExpressionAttributeNames: {
            ...a.names,
            '#lastFence': 'lastFence',
            '#fencedBy': 'fencedBy',
            '#runId': 'runId',
            '#writtenAtMs': 'writtenAtMs',
          },
          ExpressionAttributeValues: {
            ...a.values,
            ':fence': fc.fence,
            ':lease': fc.leaseKey,
            ':me': fc.runId,
            ':now': fc.nowMs,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw storeError(`UpdateItem (fenced write ${describe(ref)})`, err);
      throw fencedWriteRefused(describe(ref), itemOfConditionFailure(err), fc);
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
