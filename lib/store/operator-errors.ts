/**
 * The errors of an operator's write refused by its condition (pause, resume, trigger, backfill,
 * effect resolution): nothing was changed or invoked. Each carries the item as it is now, typed.
 */
import type { EffectItem } from '../core/effects.js';
import { CronfenceError, ErrorCategory, ErrorCode } from '../core/error-model.js';
import type { LeaseItem } from '../core/lease.js';

/** An ISO-8601 UTC instant of an epoch-ms value read from an item, or the value itself. */
function isoOf(ms: number | undefined): string {
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}

/**
 * An operator resolution found the effect missing or not `needs-review`: nothing was changed.
 * Carries the item as it is. Category `input`: the resolution does not apply to this effect.
 */
export class EffectNotInReviewError extends CronfenceError {
  override readonly name = 'EffectNotInReviewError';
  readonly key: string;
  readonly item: EffectItem | undefined;
  constructor(key: string, item: EffectItem | undefined, job?: string, options?: ErrorOptions) {
    super(
      ErrorCode.InvalidArgument,
      ErrorCategory.Input,
      item
        ? `effect "${key}" is ${item.status}, already terminal (only needs-review, sending or pending effects are resolved): nothing changed${item.reviewedBy ? ` (resolved by ${item.reviewedBy})` : ''}`
        : `no effect with key "${key}"${job ? ` for job ${job}` : ''}: nothing changed`,
      options,
    );
    this.key = key;
    this.item = item;
  }
}

/**
 * An operator's write on an effect found the record changed since the operator was shown it (another
 * operator, or a run, wrote it meanwhile): nothing was changed. Carries the record as it is now.
 * Category `conflict`.
 */
export class EffectChangedError extends CronfenceError {
  override readonly name = 'EffectChangedError';
  readonly key: string;
  /** The version token the operator was shown. */
  readonly expected: string;
  readonly item: EffectItem | undefined;
  constructor(key: string, expected: string, item: EffectItem | undefined, options?: ErrorOptions) {
    const now = item
      ? `it is now ${item.status} (version ${[item.status, item.fence, item.attempts, item.updatedAtMs].map((v) => String(v ?? '-')).join(':')}: fence ${item.fence}, run ${item.runId}, attempts ${item.attempts}, updated ${isoOf(item.updatedAtMs)})`
      : 'it no longer exists';
    super(
      ErrorCode.EffectChanged,
      ErrorCategory.Conflict,
      `effect "${key}" changed since version ${expected} was shown: ${now}: nothing changed; look at it again (cronfence effects) and resolve what it is now`,
      options,
    );
    this.key = key;
    this.expected = expected;
    this.item = item;
  }
}

/**
 * An operator's write on an effect in `sending` was refused because the run that moved it still holds
 * a live lease: its provider call may be in flight. Names the holder and when its lease ends.
 * Category `conflict`.
 */
export class EffectInFlightError extends CronfenceError {
  override readonly name = 'EffectInFlightError';
  readonly key: string;
  readonly holderRunId: string;
  readonly leaseUntilMs: number;
  readonly lease: LeaseItem | undefined;
  constructor(
    key: string,
    shown: { readonly runId: string; readonly fence: number; readonly leaseKey?: string },
    lease: LeaseItem | undefined,
    options?: ErrorOptions,
  ) {
    super(
      ErrorCode.EffectInFlight,
      ErrorCategory.Conflict,
      `effect "${key}" is sending under the live lease of run ${shown.runId} (owner ${lease?.owner ?? shown.runId}, fence ${shown.fence}, lease ${String(shown.leaseKey)}), which ends at ${isoOf(lease?.leaseUntilMs)}: its provider call may be in flight: nothing changed; wait until that run records its outcome or its lease ends, then look again`,
      options,
    );
    this.key = key;
    this.holderRunId = shown.runId;
    this.leaseUntilMs = Number(lease?.leaseUntilMs);
    this.lease = lease;
  }
}

/**
 * An operator's trigger or backfill met the job's lease held by a live run (or a lease other than the
 * one the operator was shown): nothing was invoked. Category `conflict`.
 */
export class LeaseBusyError extends CronfenceError {
  override readonly name = 'LeaseBusyError';
  readonly lease: LeaseItem | undefined;
  constructor(message: string, lease: LeaseItem | undefined, options?: ErrorOptions) {
    super(ErrorCode.LeaseBusy, ErrorCategory.Conflict, message, options);
    this.lease = lease;
  }
}

/**
 * An operator's pause, resume, trigger or backfill found the job's lease changed since the version the
 * operator was shown (a run claimed it, another operator paused or resumed it): nothing was changed or
 * invoked. Carries the lease item as it is. Category `conflict`.
 */
export class LeaseChangedError extends CronfenceError {
  override readonly name = 'LeaseChangedError';
  readonly job: string;
  readonly expected: string;
  readonly item: LeaseItem | undefined;
  constructor(job: string, expected: string, item: LeaseItem | undefined, options?: ErrorOptions) {
    const now = item
      ? `it is now version ${String(item.fence ?? '-')}:${String(item.pausedAtMs ?? '-')} (fence ${String(item.fence ?? '-')}, ${item.holderState === 'running' ? `held by run ${String(item.owner)} for slot ${String(item.slot)} until ${isoOf(item.leaseUntilMs)}` : 'no holder'}, ${item.pausedAtMs !== undefined ? `paused by ${String(item.pausedBy)} at ${isoOf(item.pausedAtMs)}` : 'not paused'})`
      : 'it does not exist';
    super(
      ErrorCode.LeaseChanged,
      ErrorCategory.Conflict,
      `job ${job}: its lease changed since version ${expected} was shown: ${now}: nothing changed; look again and retry with the version shown now`,
      options,
    );
    this.job = job;
    this.expected = expected;
    this.item = item;
  }
}

/**
 * A pause found a pause already in force on the job's lease: nothing was changed. Carries the lease
 * item as it is (resume first, or wait for its `--until`). Category `conflict`.
 */
export class JobPausedError extends CronfenceError {
  override readonly name = 'JobPausedError';
  readonly job: string;
  readonly item: LeaseItem | undefined;
  constructor(
    job: string,
    pause: { by: string; atMs: number; note: string; untilMs?: number } | undefined,
    item: LeaseItem | undefined,
    options?: ErrorOptions,
  ) {
    super(
      ErrorCode.JobPaused,
      ErrorCategory.Conflict,
      pause
        ? `job ${job} is already paused by ${pause.by} since ${new Date(pause.atMs).toISOString()}${pause.untilMs !== undefined ? ` until ${new Date(pause.untilMs).toISOString()}` : ''} ("${pause.note}"): nothing changed; resume it first`
        : `job ${job}: the pause was refused (the lease item changed meanwhile): nothing changed`,
      options,
    );
    this.job = job;
    this.item = item;
  }
}

/** A resume found no pause (or another one than it read) on the job's lease: nothing changed. Category `conflict`. */
export class JobNotPausedError extends CronfenceError {
  override readonly name = 'JobNotPausedError';
  readonly job: string;
  readonly item: LeaseItem | undefined;
  constructor(job: string, item: LeaseItem | undefined, options?: ErrorOptions) {
    super(
      ErrorCode.JobNotPaused,
      ErrorCategory.Conflict,
      item?.pausedAtMs === undefined
        ? `job ${job} is not paused: nothing changed`
        : `job ${job} was paused again meanwhile (by ${String(item.pausedBy)}): nothing changed; run resume again to clear that pause`,
      options,
    );
    this.job = job;
    this.item = item;
  }
}
