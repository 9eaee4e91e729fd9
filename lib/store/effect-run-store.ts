/**
 * Effect records on the library table at `Keys.effect(job, key)` (docs/design.md step 5), as a run
 * writes them: the declared effect transitions of lib/store/protocol/effect-operations.ts. Every transition is ONE conditional
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
import type { EffectItem } from '../core/effects.js';
import type {
  EffectErrorNote,
  EffectMoveOptions,
  EffectOutcomeUpdate,
  EffectRunStore,
  FenceContext,
  LateOutcomeUpdate,
  RecordResult,
  SeenEffect,
  SendingResult,
} from '../core/ports.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import { effectLateOutcome, effectNoteError } from './protocol/effect-notes.js';
import { effectFinish, effectInsert, effectMove, effectSettle } from './protocol/effect-operations.js';
import { type ProtocolBackend, perform } from './protocol/request.js';

/**
 * The effect records of one job as its runs write them, on the library table of a protocol backend.
 * The operator's reads and resolution are {@link TableEffectStore}'s (lib/store/effect-store.ts).
 */
export class TableEffectRunStore implements EffectRunStore {
  constructor(
    protected readonly backend: ProtocolBackend,
    protected readonly table: string,
    /** The job whose effects this store reads and writes (the key prefix IAM scopes on). */
    protected readonly job: string,
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

  protected ref(key: string) {
    return { table: this.table, job: this.job, key };
  }
}

/** The effect records of one job as its runs write them, on the library table in DynamoDB. */
export class DynamoEffectRunStore extends TableEffectRunStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string, job: string) {
    super(new DynamoBackend(doc), tableName, job);
  }
}
