/**
 * In-memory result store: fenced writes and insert-once results with the same conditions (FENCED,
 * INSERT_ONCE, TAKEOVER) and the same loser rules as DynamoResultStore.
 */
import type { FenceContext, InsertOnceResult, ItemRef, ResultStore } from '../../core/ports.js';
import { crossLeaseRefused, fencedWriteRefused, insertRefused, takeOverRefused } from '../../core/results.js';
import { ResultConflictError, StaleFenceError, showValue } from '../../errors.js';
import { storeError } from '../client.js';
import { Keys } from '../schema.js';

const LEASE_SK = Keys.lease('any').sk;

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
  /** @param libraryTable the table of the lease items (cross-lease reconciliation). */
  constructor(
    private readonly client: MemoryClient,
    private readonly libraryTable?: string,
  ) {}

  async fencedPut(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    options: { readonly adoptUnfenced?: boolean } = {},
  ): Promise<void> {
    const set = plain(attributes, ref.key);
    const write = (cur: Item | undefined) =>
      this.client.db.put(
        ref.tableName,
        ref.key,
        {
          ...cur,
          ...ref.key,
          ...set,
          fence: fc.fence,
          fencedBy: fc.leaseKey,
          runId: fc.runId,
          writtenAtMs: fc.nowMs,
        },
        { op: 'fenced-write', runId: fc.runId, fence: fc.fence },
      );
    const input = { TableName: ref.tableName, Key: ref.key, runId: fc.runId, fence: fc.fence };
    try {
      await this.client.send({ command: 'UpdateItemCommand', op: 'fenced-write', input }, () => {
        const cur = this.client.db.get(ref.tableName, ref.key);
        // FENCED (lib/store/conditions.ts), and FENCED_ADOPT with adoptUnfenced
        const ok =
          cur === undefined ||
          (cur.fencedBy === fc.leaseKey && Number(cur.fence) <= fc.fence) ||
          (options.adoptUnfenced === true && cur.fence === undefined);
        if (!ok) throw new MemoryConditionFailed(cur);
        write(cur);
      });
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed))
        throw storeError(`UpdateItem (fenced write ${describe(ref)})`, err);
      const refusal = fencedWriteRefused(describe(ref), err.item, fc);
      if (refusal.kind === 'refused') throw refusal.error;
      if (!this.libraryTable) throw crossLeaseRefused(describe(ref), refusal, undefined);
      const lease = this.libraryTable;
      try {
        // One "transaction": LEASE_INACTIVE on the other lease + FENCED_CROSS_LEASE on the item.
        await this.client.send({ command: 'TransactWriteItemsCommand', op: 'fenced-write', input }, () => {
          const other = this.client.db.get(lease, { pk: refusal.lease, sk: LEASE_SK });
          const inactive =
            other?.holderState === undefined ||
            other.holderState !== 'running' ||
            Number(other.leaseUntilMs) < fc.nowMs;
          const cur = this.client.db.get(ref.tableName, ref.key);
          if (!inactive || cur?.fencedBy !== refusal.lease || cur.fence !== refusal.fence)
            throw new MemoryConditionFailed(cur);
          write(cur);
        });
      } catch (e) {
        if (e instanceof MemoryConditionFailed) throw crossLeaseRefused(describe(ref), refusal, e.item);
        throw storeError(`TransactWriteItems (cross-lease write ${describe(ref)})`, e);
      }
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
