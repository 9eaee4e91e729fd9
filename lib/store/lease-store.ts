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
import type { ClaimRequest, LeaseRef, LeaseStore } from '../core/ports.js';
import { LeaseLostError } from '../errors.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from './client.js';
import { CLAIM, CLAIM_FORCE, OWNED } from './conditions.js';
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
          ConditionExpression: req.force ? CLAIM_FORCE : CLAIM,
          UpdateExpression:
            // prev*: the holder this claim displaces, kept on the item so that a claim whose response was
            // lost (the retry sees its own write, not ALL_OLD) can still mark that holder abandoned.
            'SET #owner = :me, #leaseUntilMs = :until, #slot = :slot, #holderState = :running, #acquiredAtMs = :now, #renewedAtMs = :now, #job = :job, #lambdaRequestId = :rid, #prevOwner = if_not_exists(#owner, :none), #prevSlot = if_not_exists(#slot, :none), #prevLeaseUntilMs = if_not_exists(#leaseUntilMs, :zero), #prevHolderState = if_not_exists(#holderState, :none) ADD #fence :one',
          ExpressionAttributeNames: {
            ...names,
            '#slot': 'slot',
            '#holderState': 'holderState',
            '#acquiredAtMs': 'acquiredAtMs',
            '#renewedAtMs': 'renewedAtMs',
            ...(!req.force && { '#doneSlots': 'doneSlots' }),
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
          },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return decideClaimSucceeded(out.Attributes as LeaseItem | undefined);
    } catch (err) {
      if (isConditionFailure(err)) {
        return decideClaimFailed(itemOfConditionFailure(err) as LeaseItem | undefined, req);
      }
      throw storeError('UpdateItem (claim lease)', err);
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

  async release(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; doneSlots?: ReadonlySet<string> },
  ): Promise<void> {
    const done = ref.doneSlots !== undefined && ref.doneSlots.size > 0;
    await this.ownedUpdate(
      ref,
      'release lease',
      `SET #leaseUntilMs = :zero, #holderState = :released, #releasedAtMs = :now${done ? ', #doneSlots = :done' : ''}`,
      {
        ':zero': 0,
        ':released': 'released',
        ':now': ref.nowMs,
        ...(done && { ':done': new Set(ref.doneSlots) }),
      },
      {
        '#releasedAtMs': 'releasedAtMs',
        ...(done && { '#doneSlots': 'doneSlots' }),
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
          ExpressionAttributeNames: { ...names, '#holderState': 'holderState', ...extraNames },
          ExpressionAttributeValues: {
            ':me': ref.runId,
            ':fence': ref.fence,
            ':running': 'running',
            ...values,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) {
        const item = itemOfConditionFailure(err);
        // Our own release whose response was lost (the SDK retried it): already done.
        if (what === 'release lease' && releasedBy(item, ref)) return;
        throw ownedRefused(what, ref, item);
      }
      throw storeError(`UpdateItem (${what})`, err);
    }
  }
}

/** True when `item` is the lease as released by this owner and fence (release is terminal for them). */
export function releasedBy(
  item: Record<string, unknown> | undefined,
  ref: { runId: string; fence: number },
): boolean {
  return item?.owner === ref.runId && item.fence === ref.fence && item.holderState === 'released';
}

/** The LeaseLostError of a refused holder-only update (renew / release), naming who holds the lease. */
export function ownedRefused(
  what: string,
  ref: { job: string; runId: string; fence: number },
  item: Record<string, unknown> | undefined,
): LeaseLostError {
  const why = releasedBy(item, ref)
    ? 'already released it (release is terminal for its owner and fence)'
    : `no longer holds the lease; holder is ${String(item?.owner)} with fence ${String(item?.fence)}`;
  return new LeaseLostError(
    `${what} refused for ${ref.job}: run ${ref.runId} (fence ${ref.fence}) ${why}`,
    item,
  );
}
