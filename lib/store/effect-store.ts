/**
 * Effect records on the library table at `Keys.effect(job, key)` (docs/design.md step 5): the declared
 * effect transitions of lib/store/protocol/effect-operations.ts. Every transition is ONE conditional
 * request on status and fence; the ones that precede a provider call re-check lease ownership in the
 * same transaction. No reads: a refused write returns the item.
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
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type EffectItem, effectVersion } from '../core/effects.js';
import type { LeaseItem } from '../core/lease.js';
import type {
  EffectErrorNote,
  EffectMoveOptions,
  EffectOutcomeUpdate,
  EffectResolution,
  EffectStore,
  FenceContext,
  LateOutcomeUpdate,
  RecordResult,
  SeenEffect,
  SendingResult,
} from '../core/ports.js';
import { EffectChangedError, EffectInFlightError, EffectNotInReviewError } from './operator-errors.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { effectLateOutcome, effectNoteError } from './protocol/effect-notes.js';
import { effectFinish, effectInsert, effectMove, effectSettle } from './protocol/effect-operations.js';
import { effectResolve, RESOLVABLE_STATUSES } from './protocol/effect-operator-operations.js';
import { LEASE_SK } from './protocol/operations.js';
import { liveHolder } from './protocol/pause-operations.js';
import { type ProtocolBackend, perform, read } from './protocol/request.js';
import { Keys } from './schema.js';

/** Effect store of one job on the library table of a protocol backend. */
export class TableEffectStore implements EffectStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly table: string,
    /** The job whose effects this store reads and writes (the key prefix IAM scopes on). */
    private readonly job: string,
  ) {}

  beginSending(
    key: string,
    fields: { requestHash: string; job: string; provider: string },
    fc: FenceContext,
  ): Promise<SendingResult> {
    return perform(this.backend, effectInsert, { ...this.ref(key), fields, fc });
  }

  moveToSending(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    move: EffectMoveOptions = {},
  ): Promise<SendingResult> {
    return perform(this.backend, effectMove, { ...this.ref(key), seen, fc, ...move });
  }

  finish(key: string, fc: FenceContext, outcome: EffectOutcomeUpdate): Promise<RecordResult> {
    return perform(this.backend, effectFinish, { ...this.ref(key), fc, outcome });
  }

  settle(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
  ): Promise<RecordResult> {
    return perform(this.backend, effectSettle, { ...this.ref(key), seen, fc, outcome });
  }

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

  recordLateOutcome(
    key: string,
    fc: FenceContext,
    outcome: LateOutcomeUpdate,
  ): Promise<EffectItem | undefined> {
    return perform(this.backend, effectLateOutcome, { ...this.ref(key), fc, outcome });
  }

  noteError(key: string, fc: FenceContext, error: EffectErrorNote): Promise<void> {
    return perform(this.backend, effectNoteError, { ...this.ref(key), fc, error });
  }

  /** Read an effect record (CLI and tests only; never on a run's path). @throws StoreError */
  async get(key: string): Promise<EffectItem | undefined> {
    return (await read(this.backend, this.table, Keys.effect(this.job, key), `effect ${key}`)) as
      | EffectItem
      | undefined;
  }

  private ref(key: string) {
    return { table: this.table, job: this.job, key };
  }
}

/** Effect store of one job on the library table in DynamoDB. */
export class DynamoEffectStore extends TableEffectStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string, job: string) {
    super(new DynamoBackend(doc), tableName, job);
  }
}
