/**
 * In-memory lease store: the same claim / renew / release semantics as DynamoLeaseStore (conditions
 * CLAIM, CLAIM_FORCE and OWNED of lib/store/conditions.ts, evaluated in one atomic step), decided by
 * the same pure functions of lib/core/lease.ts.
 */
import {
  type ClaimDecision,
  decideClaimFailed,
  decideClaimSucceeded,
  doneSlotsFor,
  type LeaseItem,
  NO_HOLDER,
} from '../../core/lease.js';
import type { ClaimRequest, LeaseRef, LeaseStore, ReleaseRequest } from '../../core/ports.js';
import { LeaseLostError } from '../../errors.js';
import { storeError } from '../client.js';
import { Keys } from '../schema.js';
import { type Item, type MemoryClient, MemoryConditionFailed } from './memory-db.js';

/** Lease store on a {@link MemoryClient}. */
export class MemoryLeaseStore implements LeaseStore {
  constructor(
    private readonly client: MemoryClient,
    private readonly tableName: string,
  ) {}

  async claim(req: ClaimRequest): Promise<ClaimDecision> {
    const key = Keys.lease(req.job, req.shard);
    try {
      return await this.client.send(
        {
          command: 'UpdateItemCommand',
          op: 'claim',
          input: { TableName: this.tableName, Key: key, runId: req.runId },
        },
        () => {
          const cur = this.client.db.get(this.tableName, key) as LeaseItem | undefined;
          const free = cur?.leaseUntilMs === undefined || cur.leaseUntilMs < req.nowMs;
          const done = !req.force && doneSlotsFor(cur, req.def).has(req.slotId);
          if (!free || done) throw new MemoryConditionFailed(cur as Item | undefined);
          const fence = (cur?.fence ?? 0) + 1;
          this.client.db.put(
            this.tableName,
            key,
            {
              ...cur,
              ...key,
              owner: req.runId,
              leaseUntilMs: req.leaseUntilMs,
              slot: req.slotId,
              holderState: 'running',
              acquiredAtMs: req.nowMs,
              renewedAtMs: req.nowMs,
              job: req.job,
              lambdaRequestId: req.lambdaRequestId ?? '-',
              prevOwner: cur?.owner ?? NO_HOLDER,
              prevSlot: cur?.slot ?? NO_HOLDER,
              prevLeaseUntilMs: cur?.leaseUntilMs ?? 0,
              prevHolderState: cur?.holderState ?? NO_HOLDER,
              open: [
                ...(cur?.open ?? []),
                { runId: req.runId, slot: req.slotId, leaseUntilMs: req.leaseUntilMs },
              ],
              fence,
            },
            { op: 'claim', runId: req.runId, fence, status: 'running', leaseUntilMs: req.leaseUntilMs },
          );
          return decideClaimSucceeded(cur, req);
        },
      );
    } catch (err) {
      if (err instanceof MemoryConditionFailed)
        return decideClaimFailed(err.item as LeaseItem | undefined, req);
      throw storeError('UpdateItem (claim lease)', err);
    }
  }

  async renew(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; leaseUntilMs: number },
  ): Promise<void> {
    await this.owned(ref, 'renew lease', 'renew', (cur) => ({
      item: { ...cur, leaseUntilMs: ref.leaseUntilMs, renewedAtMs: ref.nowMs },
      status: 'running',
      leaseUntilMs: ref.leaseUntilMs,
    }));
  }

  async release(ref: ReleaseRequest): Promise<void> {
    const done = ref.doneSlots !== undefined && ref.doneSlots.size > 0;
    await this.owned(ref, 'release lease', 'release', (cur) => {
      if (ref.recorded === false)
        return {
          item: { ...cur, leaseUntilMs: 0, releasedAtMs: ref.nowMs },
          status: 'running',
          leaseUntilMs: 0,
        };
      const { open: _open, ...rest } = cur;
      return {
        item: {
          ...(ref.clearOpen ? rest : cur),
          leaseUntilMs: 0,
          holderState: 'released',
          releasedAtMs: ref.nowMs,
          ...(done && { doneSlots: new Set(ref.doneSlots) }),
          ...(done && ref.def !== undefined && { def: ref.def }),
        },
        status: 'released',
        leaseUntilMs: 0,
      };
    });
  }

  async releaseIfOwner(ref: LeaseRef & { runId: string; nowMs: number }): Promise<LeaseItem | undefined> {
    const key = Keys.lease(ref.job, ref.shard);
    try {
      return await this.client.send(
        {
          command: 'UpdateItemCommand',
          op: 'release',
          input: { TableName: this.tableName, Key: key, runId: ref.runId },
        },
        () => {
          const cur = this.client.db.get(this.tableName, key);
          if (cur?.owner !== ref.runId || cur.holderState !== 'running') throw new MemoryConditionFailed(cur);
          this.client.db.put(
            this.tableName,
            key,
            { ...cur, leaseUntilMs: 0, holderState: 'released', releasedAtMs: ref.nowMs },
            { op: 'release', runId: ref.runId, status: 'released', leaseUntilMs: 0 },
          );
          return cur as LeaseItem;
        },
      );
    } catch (err) {
      if (err instanceof MemoryConditionFailed) return undefined;
      throw storeError('UpdateItem (release lease after a failed claim)', err);
    }
  }

  async get(ref: LeaseRef): Promise<LeaseItem | undefined> {
    const key = Keys.lease(ref.job, ref.shard);
    try {
      return await this.client.send(
        { command: 'GetItemCommand', op: 'read', input: { TableName: this.tableName, Key: key } },
        () => this.client.db.get(this.tableName, key) as LeaseItem | undefined,
      );
    } catch (err) {
      throw storeError('GetItem (lease)', err);
    }
  }

  private async owned(
    ref: LeaseRef & { runId: string; fence: number },
    what: string,
    op: 'renew' | 'release',
    next: (cur: Item) => { item: Item; status: string; leaseUntilMs: number },
  ): Promise<void> {
    const key = Keys.lease(ref.job, ref.shard);
    try {
      await this.client.send(
        {
          command: 'UpdateItemCommand',
          op,
          input: { TableName: this.tableName, Key: key, runId: ref.runId, fence: ref.fence },
        },
        () => {
          const cur = this.client.db.get(this.tableName, key);
          if (cur?.owner !== ref.runId || cur.fence !== ref.fence) throw new MemoryConditionFailed(cur);
          const n = next(cur);
          this.client.db.put(this.tableName, key, n.item, {
            op,
            runId: ref.runId,
            fence: ref.fence,
            status: n.status,
            leaseUntilMs: n.leaseUntilMs,
          });
        },
      );
    } catch (err) {
      if (err instanceof MemoryConditionFailed) {
        const item = err.item;
        throw new LeaseLostError(
          `${what} refused for ${ref.job}: run ${ref.runId} (fence ${ref.fence}) no longer holds the lease; holder is ${String(item?.owner)} with fence ${String(item?.fence)}`,
          item,
        );
      }
      throw storeError(`UpdateItem (${what})`, err);
    }
  }
}
