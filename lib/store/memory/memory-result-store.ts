/**
 * In-memory result store: fenced writes and insert-once results with the same conditions (FENCED,
 * INSERT_ONCE, TAKEOVER) and the same loser rules as DynamoResultStore.
 */
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../../core/ports.js';
import { fencedWriteRefused, insertRefused, takeOverRefused } from '../../core/results.js';
import { ResultConflictError, StaleFenceError, showValue } from '../../errors.js';
import { storeError } from '../client.js';
import { type Item, type MemoryClient, MemoryConditionFailed } from './memory-db.js';

const RESERVED = ['lastFence', 'fencedBy', 'fence', 'runId', 'status', 'writtenAtMs'];

function describe(ref: ItemRef): string {
  return `${ref.tableName} ${showValue(ref.key)}`;
}

function plain(attributes: Record<string, unknown>, key: Record<string, unknown>): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (k in key || v === undefined) continue;
    if (RESERVED.includes(k))
      throw new ResultConflictError(`attribute "${k}" is reserved by cronfence on ${k}`);
    out[k] = v;
  }
  return out;
}

/** Result store on a {@link MemoryClient}. */
export class MemoryResultStore implements ResultStore {
  constructor(private readonly client: MemoryClient) {}

  async fencedPut(ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext): Promise<void> {
    const set = plain(attributes, ref.key);
    try {
      await this.client.send(
        {
          command: 'UpdateItemCommand',
          op: 'fenced-write',
          input: { TableName: ref.tableName, Key: ref.key, runId: fc.runId, fence: fc.fence },
        },
        () => {
          const cur = this.client.db.get(ref.tableName, ref.key);
          const ok =
            cur?.lastFence === undefined ||
            (cur.fencedBy === fc.leaseKey && Number(cur.lastFence) <= fc.fence);
          if (!ok) throw new MemoryConditionFailed(cur);
          this.client.db.put(
            ref.tableName,
            ref.key,
            {
              ...cur,
              ...ref.key,
              ...set,
              lastFence: fc.fence,
              fencedBy: fc.leaseKey,
              runId: fc.runId,
              writtenAtMs: fc.nowMs,
            },
            { op: 'fenced-write', runId: fc.runId, fence: fc.fence },
          );
        },
      );
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed))
        throw storeError(`UpdateItem (fenced write ${describe(ref)})`, err);
      throw fencedWriteRefused(describe(ref), err.item, fc);
    }
  }

  async insertOnce(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    status = 'succeeded',
  ): Promise<InsertOnceResult> {
    if (Object.keys(ref.key)[0] === undefined)
      throw new ResultConflictError(`insert-once on ${ref.tableName} needs a key`);
    const item: Item = {};
    for (const [k, v] of Object.entries({
      ...attributes,
      ...ref.key,
      status,
      fence: fc.fence,
      runId: fc.runId,
      fencedBy: fc.leaseKey,
      writtenAtMs: fc.nowMs,
    })) {
      if (v !== undefined) item[k] = v;
    }
    try {
      await this.client.send(
        {
          command: 'PutItemCommand',
          op: 'insert-once',
          input: { TableName: ref.tableName, Key: ref.key, runId: fc.runId, fence: fc.fence },
        },
        () => {
          const cur = this.client.db.get(ref.tableName, ref.key);
          if (cur !== undefined) throw new MemoryConditionFailed(cur);
          this.client.db.put(ref.tableName, ref.key, item, {
            op: 'insert-once',
            runId: fc.runId,
            fence: fc.fence,
            status,
          });
        },
      );
      return { status: 'inserted', item };
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed))
        throw storeError(`PutItem (insert-once ${describe(ref)})`, err);
      const existing = err.item ?? {};
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
    existing: Item,
    status: string,
  ): Promise<InsertOnceResult> {
    const set = plain(attributes, ref.key);
    try {
      const item = await this.client.send(
        {
          command: 'UpdateItemCommand',
          op: 'takeover',
          input: { TableName: ref.tableName, Key: ref.key, runId: fc.runId, fence: fc.fence },
        },
        () => {
          const cur = this.client.db.get(ref.tableName, ref.key);
          const ok =
            cur?.status === 'running' && cur.fence === existing.fence && cur.runId === existing.runId;
          if (!ok) throw new MemoryConditionFailed(cur);
          const next = { ...cur, ...set, status, fence: fc.fence, runId: fc.runId, writtenAtMs: fc.nowMs };
          this.client.db.put(ref.tableName, ref.key, next, {
            op: 'takeover',
            runId: fc.runId,
            fence: fc.fence,
            status,
          });
          return next;
        },
      );
      return { status: 'inserted', item };
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed))
        throw storeError(`UpdateItem (insert-once takeover ${describe(ref)})`, err);
      const now = err.item ?? {};
      const decision = takeOverRefused(now, fc);
      if (decision === 'stale') throw new StaleFenceError(describe(ref), fc.fence, Number(now.fence), now);
      return { status: decision === 'own-write' ? 'inserted' : 'existing', item: now };
    }
  }
}
