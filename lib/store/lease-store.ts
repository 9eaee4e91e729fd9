/**
 * DynamoDB lease store: claim, renew and release, each ONE conditional UpdateItem on the lease item
 * (DESIGN.md protocol 1, 2, 6). Returned items (ALL_OLD) replace reads.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type ClaimDecision,
  decideClaimFailed,
  decideClaimSucceeded,
  type LeaseItem,
  NO_HOLDER,
} from '../core/lease.js';
import type { ClaimRequest, LeaseRef, LeaseStore, ReleaseRequest } from '../core/ports.js';
import { LeaseLostError } from '../errors.js';
import { isConditionFailure, isTransactionConflict, itemOfConditionFailure, storeError } from './client.js';
import { CLAIM, CLAIM_ANY_DEF, CLAIM_FORCE, OWNED, RELEASE_IF_OWNER } from './conditions.js';
import { Keys } from './schema.js';

const names = {
  '#owner': 'owner',
  '#fence': 'fence',
  '#leaseUntilMs': 'leaseUntilMs',
};

/** Lease store on the library table. */
export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(req: ClaimRequest): Promise<ClaimDecision> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.lease(req.job, req.shard),
          ConditionExpression: req.force ? CLAIM_FORCE : req.def === undefined ? CLAIM_ANY_DEF : CLAIM,
          UpdateExpression:
            // prev*: the holder this claim displaces, kept on the item so that a claim whose response was
            // lost (the retry sees its own write, not ALL_OLD) can still mark that holder abandoned.
            'SET #owner = :me, #leaseUntilMs = :until, #slot = :slot, #holderState = :running, #acquiredAtMs = :now, #renewedAtMs = :now, #job = :job, #lambdaRequestId = :rid, #prevOwner = if_not_exists(#owner, :none), #prevSlot = if_not_exists(#slot, :none), #prevLeaseUntilMs = if_not_exists(#leaseUntilMs, :zero), #prevHolderState = if_not_exists(#holderState, :none), #open = list_append(if_not_exists(#open, :empty), :meOpen) ADD #fence :one',
          ExpressionAttributeNames: {
            ...names,
            '#slot': 'slot',
            '#holderState': 'holderState',
            '#acquiredAtMs': 'acquiredAtMs',
            '#renewedAtMs': 'renewedAtMs',
            ...(!req.force && { '#doneSlots': 'doneSlots' }),
            ...(!req.force && req.def !== undefined && { '#def': 'def' }),
            '#open': 'open',
            '#job': 'job',
            '#lambdaRequestId': 'lambdaRequestId',
            '#prevOwner': 'prevOwner',
            '#prevSlot': 'prevSlot',
            '#prevLeaseUntilMs': 'prevLeaseUntilMs',
            '#prevHolderState': 'prevHolderState',
          },
          ExpressionAttributeValues: {
            ':me': req.runId,
            ':until': req.leaseUntilMs,
            ':slot': req.slotId,
            ':running': 'running',
            ':now': req.nowMs,
            ':one': 1,
            ':job': req.job,
            ':rid': req.lambdaRequestId ?? '-',
            ':none': NO_HOLDER,
            ':zero': 0,
            ':empty': [],
            ':meOpen': [{ runId: req.runId, slot: req.slotId, leaseUntilMs: req.leaseUntilMs }],
            ...(!req.force && req.def !== undefined && { ':def': req.def }),
          },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return decideClaimSucceeded(out.Attributes as LeaseItem | undefined, req);
    } catch (err) {
      if (isConditionFailure(err)) {
        return decideClaimFailed(itemOfConditionFailure(err) as LeaseItem | undefined, req);
      }
      if (isTransactionConflict(err)) {
        // Still conflicting after the client's conflict retries: decide from a consistent read (the
        // item names us if our claim was applied; else it is held, done, or free — free is retryable).
        const item = await this.get(req);
        const d = decideClaimFailed(item, req);
        if (d.kind !== 'held' || (item?.leaseUntilMs ?? 0) >= req.nowMs) return d;
      }
      throw storeError('UpdateItem (claim lease)', err);
    }
  }

  async releaseIfOwner(ref: LeaseRef & { runId: string; nowMs: number }): Promise<LeaseItem | undefined> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.lease(ref.job, ref.shard),
          ConditionExpression: RELEASE_IF_OWNER,
          UpdateExpression: 'SET #leaseUntilMs = :zero, #holderState = :released, #releasedAtMs = :now',
          ExpressionAttributeNames: {
            '#owner': 'owner',
            '#leaseUntilMs': 'leaseUntilMs',
            '#holderState': 'holderState',
            '#releasedAtMs': 'releasedAtMs',
          },
          ExpressionAttributeValues: {
            ':me': ref.runId,
            ':running': 'running',
            ':released': 'released',
            ':zero': 0,
            ':now': ref.nowMs,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes as LeaseItem | undefined;
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw storeError('UpdateItem (release lease after a failed claim)', err);
    }
  }

  async renew(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; leaseUntilMs: number },
  ): Promise<void> {
    await this.ownedUpdate(
      ref,
      'renew lease',
      'SET #leaseUntilMs = :until, #renewedAtMs = :now',
      {
        ':until': ref.leaseUntilMs,
        ':now': ref.nowMs,
      },
      { '#renewedAtMs': 'renewedAtMs' },
    );
  }

  async release(ref: ReleaseRequest): Promise<void> {
    if (ref.recorded === false) {
      await this.ownedUpdate(
        ref,
        'release lease',
        'SET #leaseUntilMs = :zero, #releasedAtMs = :now',
        {
          ':zero': 0,
          ':now': ref.nowMs,
        },
        { '#releasedAtMs': 'releasedAtMs' },
      );
      return;
    }
    const done = ref.doneSlots !== undefined && ref.doneSlots.size > 0;
    const def = done && ref.def !== undefined;
    await this.ownedUpdate(
      ref,
      'release lease',
      `SET #leaseUntilMs = :zero, #holderState = :released, #releasedAtMs = :now${done ? ', #doneSlots = :done' : ''}${def ? ', #def = :def' : ''}${ref.clearOpen ? ' REMOVE #open' : ''}`,
      {
        ':zero': 0,
        ':released': 'released',
        ':now': ref.nowMs,
        ...(done && { ':done': new Set(ref.doneSlots) }),
        ...(def && { ':def': ref.def }),
      },
      {
        '#holderState': 'holderState',
        '#releasedAtMs': 'releasedAtMs',
        ...(done && { '#doneSlots': 'doneSlots' }),
        ...(def && { '#def': 'def' }),
        ...(ref.clearOpen && { '#open': 'open' }),
      },
    );
  }

  async get(ref: LeaseRef): Promise<LeaseItem | undefined> {
    try {
      const out = await this.doc.send(
        new GetCommand({
          TableName: this.tableName,
          Key: Keys.lease(ref.job, ref.shard),
          ConsistentRead: true,
        }),
      );
      return out.Item as LeaseItem | undefined;
    } catch (err) {
      throw storeError('GetItem (lease)', err);
    }
  }

  private async ownedUpdate(
    ref: LeaseRef & { runId: string; fence: number },
    what: string,
    update: string,
    values: Record<string, unknown>,
    extraNames: Record<string, string>,
  ): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: Keys.lease(ref.job, ref.shard),
          ConditionExpression: OWNED,
          UpdateExpression: update,
          ExpressionAttributeNames: { ...names, ...extraNames },
          ExpressionAttributeValues: { ':me': ref.runId, ':fence': ref.fence, ...values },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) {
        const item = itemOfConditionFailure(err);
        throw new LeaseLostError(
          `${what} refused for ${ref.job}: run ${ref.runId} (fence ${ref.fence}) no longer holds the lease; holder is ${String(item?.owner)} with fence ${String(item?.fence)}`,
          item,
        );
      }
      throw storeError(`UpdateItem (${what})`, err);
    }
  }
}
