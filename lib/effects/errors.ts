/**
 * The errors of an external effect (docs/design.md protocol step 5): a reused idempotency key, and a
 * provider call whose outcome is unknown.
 */
import { CronfenceError, ErrorCategory, ErrorCode } from '../core/error-model.js';

/** The same idempotency key was used with a different request. Nothing was sent. Category `conflict`. */
export class IdempotencyConflictError extends CronfenceError {
  override readonly name = 'IdempotencyConflictError';
  readonly key: string;
  constructor(key: string, message?: string, options?: ErrorOptions) {
    super(
      ErrorCode.IdempotencyConflict,
      ErrorCategory.Conflict,
      message ?? `idempotency key "${key}" was already used with a different request; nothing sent`,
      options,
    );
    this.key = key;
  }
}

/**
 * A provider call's outcome is unknown (timeout, dropped connection, 5xx). Nothing is resent under a
 * new key: the effect stays `sending` and the next run reconciles it under the SAME key. Category
 * `transient`.
 */
export class EffectOutcomeUnknownError extends CronfenceError {
  override readonly name = 'EffectOutcomeUnknownError';
  readonly key: string;
  readonly why: string;
  constructor(key: string, why: string, options?: ErrorOptions) {
    super(
      ErrorCode.EffectOutcomeUnknown,
      ErrorCategory.Transient,
      `outcome of effect "${key}" is unknown (${why}); it stays "sending" and the next run reconciles it under the same key`,
      options,
    );
    this.key = key;
    this.why = why;
  }
}
