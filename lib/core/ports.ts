/**
 * Ports (docs/design.md "Conventions" 2): what the run use case needs from storage and time. DynamoDB
 * adapters in lib/store implement them; one contract suite runs against every implementation.
 */
import type { EffectItem, EffectStatus } from './effects.js';
import type { ClaimDecision, LeaseItem } from './lease.js';
import type { Outcome, Reason, Trigger } from './outcomes.js';
import type { FailedOccurrence, PauseFields } from './pause.js';
import type { RecordFacts } from './slot-status.js';

/** Source of the current time, epoch ms. Tests and drills inject skewed or controlled clocks. */
export interface Clock {
  now(): number;
  /**
   * Run `fn` after `delayMs` of this clock's time; returns a cancel function. A clock that owns its
   * timers (the drills' virtual time) lets renewals follow simulated time instead of the process's.
   * @default global `setTimeout` (unref'd)
   */
  setTimer?(fn: () => void, delayMs: number): () => void;
}

/** The system clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** The fence a write is made under: which lease, which holder, which fence. */
export interface FenceContext {
  /** Lease partition key, e.g. `JOB#daily-report` (protected items remember which lease fenced them). */
  readonly leaseKey: string;
  readonly runId: string;
  readonly fence: number;
  readonly nowMs: number;
  /**
   * Business writes also check, in the same transaction, that this run still holds its lease (owner,
   * fence, running): under overlap `replace` a newer occurrence displaces a live holder, whose writes to
   * items no one else writes (its own slot's rows) the item's fence alone cannot refuse. A write becomes
   * a TransactWriteItems of two items (4 WCU for a row under 1 KB instead of 1; still one request).
   * @default false: the item decides (docs/design.md steps 3, 4)
   */
  readonly checkLease?: boolean;
}

/** A business item addressed by its table and full primary key. */
export interface ItemRef {
  readonly tableName: string;
  /** Full primary key; the FIRST attribute must be the table's partition key. */
  readonly key: Record<string, string | number>;
}

/** Result of an insert-once write. */
export type InsertOnceResult =
  | { readonly status: 'inserted'; readonly item: Record<string, unknown> }
  | { readonly status: 'existing'; readonly item: Record<string, unknown> };

/**
 * Fenced writes and insert-once results on business tables (docs/design.md steps 3, 4). DynamoDB:
 * `TableResultStore` on a protocol backend (DynamoDB, or the in-memory harness). Same contract suite.
 */
export interface ResultStore {
  /**
   * Create or overwrite a protected item under a fence (`cronfence:fence` + `cronfence:lease`, the same
   * attributes insert-once writes; the job's own attributes stored as given). `options.adoptUnfenced` also accepts an existing item that was never fenced.
   * @throws StaleFenceError carrying the stored fence when a newer holder of our lease already wrote it.
   * @throws ResultConflictError when the item exists unfenced (not adopted), or another lease that still
   *   runs fenced it; StoreError on store failure.
   */
  fencedPut(
    ref: ItemRef,
    attributes: Record<string, unknown>,
    fc: FenceContext,
    options?: { readonly adoptUnfenced?: boolean },
  ): Promise<void>;
  /**
   * Insert a business result once (born `succeeded`); `existing` with the stored row when it is
   * already there.
   * @throws StaleFenceError when a newer holder of our lease wrote the item; StoreError on store failure.
   */
  insertOnce(ref: ItemRef, attributes: Record<string, unknown>, fc: FenceContext): Promise<InsertOnceResult>;
}

/** Which lease: a job, or one shard of it. */
export interface LeaseRef {
  readonly job: string;
  readonly shard?: number;
}

/** Arguments of a claim. */
export interface ClaimRequest extends LeaseRef {
  readonly runId: string;
  readonly slotId: string;
  readonly nowMs: number;
  readonly leaseUntilMs: number;
  readonly lambdaRequestId?: string;
  /** The run's trigger, stored on the lease so an abandon mark can name it. @default none (not stored) */
  readonly trigger?: string;
  /** Who asked for a manual run (stored, cut to `LEASE_REQUESTER_MAX_CHARS`). @default none */
  readonly requestedBy?: string;
  /** Claim even if the slot is in the done set (manual re-runs). @default false */
  readonly force?: boolean;
  /** Definition id (`definitionId`): a done set written under another id is ignored. @default none (any) */
  readonly def?: string;
  /**
   * The job's shard count. Recorded on the lease item (`shards`, a few bytes) only when > 1, so readers
   * (`cronfence lease <job>`) find the shard leases `JOB#<job>#0..N-1` from the job name alone, without
   * the job's code. @default 1 (nothing recorded)
   */
  readonly shards?: number;
  /** Overlap-policy guards on the claim (lib/store/protocol/overlap-operations.ts). @default none (`skip`) */
  readonly overlap?: ClaimOverlap;
}

/** The claim's part of an overlap policy (lib/core/overlap.ts), as conditions on the lease item. */
export interface ClaimOverlap {
  /**
   * `buffer-*`: `none-waiting` — claim only when no slot waits on the lease item (a delivery, a retry, a
   * manual run: a free lease with slots waiting is left to them, in order), or when the slot is the
   * lease's own (a retry of the occurrence that held it, older than the waiting ones); `own-turn` — the start of a
   * waiting slot (by the release path or the sweeper, always the first waiting one): claim when no slot
   * waits or this one does. Either takes the slot off the list.
   */
  readonly buffer?: 'none-waiting' | 'own-turn';
  /**
   * `after-previous`: claim only when this slot (the previous occurrence) is in the done set, or no
   * slot of the job ever succeeded (unless `fromFirstSlot`). @default none (no predecessor: the job's
   * first occurrence)
   */
  readonly previousSlotId?: string;
  /**
   * `after-previous` of a job that declares its first instant (`catchUp.since`): the chain starts at
   * the job's first slot, so "nothing succeeded yet" does not let a later slot claim before it.
   * @default false (the chain starts at the job's first success)
   */
  readonly fromFirstSlot?: boolean;
  /**
   * `after-previous`, a slot without a predecessor (the job's first): claim only while nothing of the
   * job succeeded (or this slot is in the done set): once a later slot started the chain, a slot
   * before it never runs after it. @default false
   */
  readonly firstSlot?: boolean;
}

/** Arguments of a release. */
export interface ReleaseRequest extends LeaseRef {
  readonly runId: string;
  readonly fence: number;
  readonly nowMs: number;
  /** The new done set (on success): the slot is recorded as succeeded. */
  readonly doneSlots?: ReadonlySet<string>;
  /** With `doneSlots`: the slot this run succeeded, stored as the lease's readable `lastSucceeded`. */
  readonly succeededSlot?: string;
  /** Definition id the done set belongs to (written with it). */
  readonly def?: string;
  /** Also clear the item's open-claim list (the releaser marked every earlier entry). @default false */
  readonly clearOpen?: boolean;
  /**
   * False when the run could not write its own record: the lease is freed (`leaseUntilMs = 0`) and the
   * holder left `unrecorded` (its authority over, like after any release) and on the open list, so the
   * next claimer records it `abandoned`.
   * @default true
   */
  readonly recorded?: boolean;
  /**
   * `pauseOnFailure` jobs: the failure streak to store (a failed run), or `null` to remove it (a
   * success after failures). @default unchanged
   */
  readonly failedSlots?: readonly FailedOccurrence[] | null;
  /** With `failedSlots`: the pause the streak reached (written unless a pause is already stored). */
  readonly pause?: PauseFields;
}

/** What an accepted release learnt from its own write (`ReturnValues: ALL_NEW`), without a read. */
export interface ReleaseResult {
  /** Overlap policy `buffer-*`: the slot ids still waiting on the lease item, in slot order. */
  readonly buffered: readonly string[];
}

/** Lease operations, each one conditional write (docs/design.md steps 1, 2, 6). */
export interface LeaseStore {
  /** Claim; never throws for "held" or "already succeeded" — those are decisions. @throws StoreError */
  claim(req: ClaimRequest): Promise<ClaimDecision>;
  /**
   * Extend the lease. `options.abortSignal` cancels the request and its SDK retries (the lease keeper
   * gives a renewal up after one renew period, or at the lapse: a late retry must not extend a lease the
   * run already stopped acting under). @throws LeaseLostError when owner or fence changed; StoreError
   */
  renew(
    ref: LeaseRef & { runId: string; fence: number; nowMs: number; leaseUntilMs: number },
    options?: { readonly abortSignal?: AbortSignal },
  ): Promise<void>;
  /**
   * Release: leaseUntilMs = 0, holderState released; with `doneSlots`, record the slot as succeeded.
   * @throws LeaseLostError when owner or fence changed; StoreError
   */
  release(ref: ReleaseRequest): Promise<ReleaseResult>;
  /**
   * Best-effort release by a run whose claim request failed after it may have been applied (lost
   * response, every retry refused): releases only if the item still names `runId` as a running owner.
   * @returns the item before the release (its fence is the one the run held), or undefined when the
   *   lease is not ours. @throws StoreError
   */
  releaseIfOwner(ref: LeaseRef & { runId: string; nowMs: number }): Promise<LeaseItem | undefined>;
  /** Read the lease item (CLI and tests only; never on the run's path). */
  get(ref: LeaseRef): Promise<LeaseItem | undefined>;
}

/** What a run saw of another holder (skips, takeovers). */
export interface HolderSeen {
  readonly runId: string;
  readonly slot: string;
  readonly leaseUntilMs: number;
  readonly fence: number;
  /** When that holder claimed, epoch ms by its clock, when the lease item said (abandon marks). */
  readonly acquiredAtMs?: number;
  /** That holder's trigger and (manual runs) requester, when the lease item said (abandon marks). */
  readonly trigger?: string;
  readonly requestedBy?: string;
}

/** One run record: one per invocation attempt (docs/design.md "Items in the library table"). */
export interface RunRecord {
  readonly job: string;
  readonly shard?: number;
  readonly slot: string;
  readonly scheduledTime: string;
  readonly businessDate: string;
  readonly runId: string;
  readonly trigger: Trigger;
  readonly requestedBy?: string;
  readonly requestReason?: string;
  readonly lambdaRequestId?: string;
  readonly executionId?: string;
  readonly attemptNumber?: number;
  readonly fence?: number;
  readonly outcome: Outcome;
  readonly reason?: Reason;
  readonly holderSeen?: HolderSeen;
  readonly startedAtMs: number;
  readonly finishedAtMs?: number;
  readonly durationMs?: number;
  readonly error?: { readonly name: string; readonly message: string };
  /** Free-form details a job or the runtime adds (e.g. counts, the effect that needs review). */
  readonly details?: Record<string, unknown>;
  /** Definition id the slot id belongs to (`definitionId`); absent on records written before it existed. */
  readonly def?: string;
  /** Shard runs: the shard count the payload was cut for (completion is checked per count). */
  readonly shards?: number;
}

/** Run record persistence. */
export interface RunStore {
  /**
   * Write the terminal record of a run. Overwrites only an `abandoned` mark a successor left
   * (the run was slow, not dead); a lost-response retry of our own write is accepted.
   * @throws StoreError
   */
  put(record: RunRecord, retentionDays: number): Promise<void>;
  /**
   * Slot ids of `job` with a succeeded run record in the range `slotIds` span (one strongly consistent
   * query, all pages; the sweeper's read, never on a run's path). @throws StoreError
   */
  succeededSlots(job: string, slotIds: readonly string[]): Promise<Set<string>>;
  /**
   * The run id of a `succeeded` record of this slot (and shard) under definition `def` (records without
   * a definition id count), if any: one Query on the slot's records. @throws StoreError
   */
  findSucceeded(job: string, slotId: string, def: string, shard?: number): Promise<string | undefined>;
  /**
   * What the sweeper reads of a job's run records with sort keys `RUN#<fromSlot>` .. `RUN#<toSlot>#\uffff`
   * (one strongly consistent query, all pages; never on a run's path). @throws StoreError
   */
  slotRecords(job: string, fromSlot: string, toSlot: string): Promise<RecordFacts[]>;
  /**
   * Record a displaced holder's run as `abandoned`, unless it already wrote its record.
   * @returns true when the mark was written; false when the holder's own record was there (kept).
   * @throws StoreError
   */
  markAbandoned(
    job: string,
    holder: HolderSeen,
    byRunId: string,
    nowMs: number,
    retentionDays: number,
  ): Promise<boolean>;
}

/** Result of a write that would let this run call the provider. */
export type SendingResult =
  | { readonly kind: 'sending' }
  /** The effect record refused the write: here it is. */
  | { readonly kind: 'existing'; readonly item: EffectItem }
  /** The lease check refused: another run holds the lease (its item, if returned). */
  | { readonly kind: 'lease-lost'; readonly lease: LeaseItem | undefined }
  /** Cross-lease reconciliation refused: the lease the effect was last moved under is still running. */
  | { readonly kind: 'other-lease-running'; readonly lease: string };

/** Result of recording an outcome. */
export type RecordResult =
  | { readonly kind: 'recorded'; readonly item: EffectItem }
  | { readonly kind: 'existing'; readonly item: EffectItem };

/** The status, fence and run an effect had when we saw it (the condition of a move). */
export interface SeenEffect {
  readonly status: string;
  readonly fence: number;
  readonly runId: string;
}

/** An outcome to record. */
export type EffectOutcomeUpdate =
  | {
      readonly status: typeof EffectStatus.Succeeded;
      readonly providerRef: string;
      readonly responseDigest: string;
      readonly resolvedBy?: string;
    }
  | { readonly status: typeof EffectStatus.Failed; readonly error: { httpStatus: number; message: string } }
  | { readonly status: typeof EffectStatus.NeedsReview; readonly reviewReason: string };

/**
 * The operator's "not executed — release for resend" resolution: the provider never executed the
 * effect; it goes back to `pending` and the next run of the slot sends it under the same key.
 */
export const NOT_EXECUTED = 'not-executed';

/** Options of a move to `sending`. */
export interface EffectMoveOptions {
  /** The lease the effect was last moved under, when not ours (cross-lease reconciliation). */
  readonly otherLease?: string;
  /** The mover's request hash, written on the effect (it has none after a `not-executed` resolution). */
  readonly requestHash?: string;
}

/** An operator's resolution of an effect that is not terminal or awaits review (`cronfence effects resolve`). */
export interface EffectResolution {
  readonly key: string;
  /** What the provider says happened: succeeded, failed, or never executed ({@link NOT_EXECUTED}). */
  readonly as: typeof EffectStatus.Succeeded | typeof EffectStatus.Failed | typeof NOT_EXECUTED;
  readonly note: string;
  readonly by: string;
  readonly nowMs: number;
  /**
   * The version token the operator was shown (`effectVersion`, printed by `cronfence effects`): the
   * write is refused unless the record still has it. @default the version the resolve reads itself
   */
  readonly expect?: string;
}

/** The outcome of a provider call whose finish was refused, to record on the effect anyway. */
export type LateOutcomeUpdate =
  | {
      readonly status: typeof EffectStatus.Succeeded;
      readonly providerRef: string;
      readonly responseDigest: string;
    }
  | { readonly status: typeof EffectStatus.Failed; readonly error: { httpStatus: number; message: string } };

/** An error to keep on an effect that is not settled (its `lastError`). */
export interface EffectErrorNote {
  readonly name: string;
  readonly message: string;
}

/**
 * Effect records of one job as a run's effect runner writes them (docs/design.md protocol 5): the
 * transitions before and after a provider call. lib/store/effect-run-store.ts implements it on the
 * protocol backends; a job bundle holds only this part.
 */
export interface EffectRunStore {
  /** Insert the record as `sending` atomically with a lease ownership check. @throws StoreError */
  beginSending(
    key: string,
    fields: { requestHash: string; job: string; provider: string },
    fc: FenceContext,
  ): Promise<SendingResult>;
  /**
   * Take an effect over for (re)sending, atomically with a lease ownership check — and, when the effect
   * was last moved under `otherLease` (not ours), with a check that that lease is released or expired.
   * @throws StoreError
   */
  moveToSending(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    move?: EffectMoveOptions,
  ): Promise<SendingResult>;
  /** Record the outcome of our own call. @throws StoreError */
  finish(key: string, fc: FenceContext, outcome: EffectOutcomeUpdate): Promise<RecordResult>;
  /** Settle an effect another call left in `sending` without calling the provider. @throws StoreError */
  settle(
    key: string,
    seen: SeenEffect,
    fc: FenceContext,
    outcome: EffectOutcomeUpdate,
  ): Promise<RecordResult>;
  /**
   * Append the outcome of our call to the effect after its finish was refused (no fence needed: the
   * call happened). @returns the item after the append, or undefined when the record is gone. @throws StoreError
   */
  recordLateOutcome(
    key: string,
    fc: FenceContext,
    outcome: LateOutcomeUpdate,
  ): Promise<EffectItem | undefined>;
  /**
   * Keep `error` as the `lastError` of an effect still `sending` under our fence and run (an unknown
   * outcome); a no-op when it moved on. @throws StoreError
   */
  noteError(key: string, fc: FenceContext, error: EffectErrorNote): Promise<void>;
}

/**
 * Effect records of one job: what the effect runner writes ({@link EffectRunStore}), and what an
 * operator reads and resolves. One implementation on the protocol backends (lib/store/effect-store.ts);
 * one contract suite for DynamoDB and the in-memory harness.
 */
export interface EffectStore extends EffectRunStore {
  /**
   * Move an effect that is not terminal (or in `needs-review`) to the operator's resolution, reading it
   * first and conditioning the write on what it read (or on `resolution.expect`).
   * @returns the item after the update.
   * @throws EffectNotInReviewError when it is missing or terminal; EffectChangedError when it is not as
   *   shown; EffectInFlightError when it is `sending` under a live lease; StoreError
   */
  resolve(resolution: EffectResolution): Promise<EffectItem>;
  /** Read an effect record (CLI and tests only). @throws StoreError */
  get(key: string): Promise<EffectItem | undefined>;
  /**
   * What an operator is shown of `item` at `nowMs`: its version token (`:in-flight` while its run holds
   * a live lease) and that lease item. CLI and tests only. @throws StoreError
   */
  shown(item: EffectItem, nowMs: number): Promise<{ version: string; lease?: LeaseItem }>;
}
