/**
 * Effect records of one job as an operator reads and resolves them (`cronfence effects`, the operator
 * API), on top of the run's transitions (lib/store/effect-run-store.ts): the resolution reads the record,
 * then writes conditioned on exactly what it read (lib/store/protocol/effect-operator-operations.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type EffectItem, effectVersion } from '../core/effects.js';
import type { LeaseItem } from '../core/lease.js';
import type { EffectResolution, EffectStore } from '../core/ports.js';
import { TableEffectRunStore } from './effect-run-store.js';
import { EffectChangedError, EffectInFlightError, EffectNotInReviewError } from './operator-errors.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { effectResolve, RESOLVABLE_STATUSES } from './protocol/effect-operator-operations.js';
import { LEASE_SK } from './protocol/operations.js';
import { liveHolder } from './protocol/pause-operations.js';
import { perform, read } from './protocol/request.js';
import { Keys } from './schema.js';

/** Effect store of one job on the library table of a protocol backend: the runs' writes and the operator's. */
export class TableEffectStore extends TableEffectRunStore implements EffectStore {
  /**
   * The operator's resolution: reads the record (one GetItem), refuses it when it is not as the
   * operator was shown (`expect`), then writes conditioned on exactly what it read — and, in `sending`,
   * on its holder's lease not being live (protocol/effect-operator-operations.ts).
   * @throws EffectNotInReviewError (missing or terminal), EffectChangedError, EffectInFlightError, StoreError
   */
  async resolve(resolution: EffectResolution): Promise<EffectItem> {
    const { expect, ...r } = resolution;
    const item = await this.get(r.key);
    if (!item || !(RESOLVABLE_STATUSES as readonly string[]).includes(String(item.status)))
      throw new EffectNotInReviewError(r.key, item, this.job);
    const seen = await this.shown(item, r.nowMs);
    if (seen.lease !== undefined) throw new EffectInFlightError(r.key, item, seen.lease);
    if (expect !== undefined && expect !== seen.version) throw new EffectChangedError(r.key, expect, item);
    const shown = {
      status: item.status,
      fence: item.fence,
      runId: item.runId,
      attempts: item.attempts,
      updatedAtMs: item.updatedAtMs,
      ...(item.leaseKey !== undefined && { leaseKey: item.leaseKey }),
    };
    const after = await perform(this.backend, effectResolve, {
      table: this.table,
      job: this.job,
      ...r,
      shown,
    });
    // A transaction (the `sending` case, with its lease check) returns no attributes: read it back.
    return after.status !== undefined ? after : ((await this.get(r.key)) ?? after);
  }

  /**
   * What an operator is shown of an effect at `nowMs`: its version token and, for a `sending` effect
   * whose run still holds a live lease, that lease item (one more GetItem for a `sending` effect).
   * @throws StoreError
   */
  async shown(item: EffectItem, nowMs: number): Promise<{ version: string; lease?: LeaseItem }> {
    if (item.status !== 'sending' || item.leaseKey === undefined) return { version: effectVersion(item) };
    const lease = (await read(
      this.backend,
      this.table,
      { pk: item.leaseKey, sk: LEASE_SK },
      `lease of effect ${item.key}`,
    )) as LeaseItem | undefined;
    const live = liveHolder(lease, nowMs)?.runId === item.runId;
    return {
      version: effectVersion(item, { holderLive: live }),
      ...(live && lease !== undefined && { lease }),
    };
  }

  /** Read an effect record (CLI and tests only; never on a run's path). @throws StoreError */
  async get(key: string): Promise<EffectItem | undefined> {
    return (await read(this.backend, this.table, Keys.effect(this.job, key), `effect ${key}`)) as
      | EffectItem
      | undefined;
  }
}

/** Effect store of one job on the library table in DynamoDB. */
export class DynamoEffectStore extends TableEffectStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string, job: string) {
    super(new DynamoBackend(doc), tableName, job);
  }
}
