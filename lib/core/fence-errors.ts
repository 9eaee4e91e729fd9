/**
 * The errors of a refused business write (docs/design.md protocol steps 3 and 4): a stale fence, and a
 * stored result this run cannot reconcile with. Both carry the item DynamoDB returned, typed.
 */
import type { EffectItem } from './effects.js';
import { CronfenceError, ErrorCategory, ErrorCode } from './error-model.js';
import type { LeaseItem } from './lease.js';

/**
 * A business item as a refused write returned it (unmarshalled): the job's own attributes, whose shape
 * only the job knows, beside cronfence's bookkeeping (`cronfence:fence`, `cronfence:lease`, ...).
 */
export interface BusinessItem {
  readonly [attribute: string]: unknown;
}

/** The item a {@link StaleFenceError} found: a business item, an effect record or a lease item. */
export type FencedItem = BusinessItem | EffectItem | LeaseItem;

/**
 * A write carried a fence lower than the one already stored on the item (docs/design.md step 3):
 * the writer is a stale holder. `storedFence` is the item's `lastFence` (or `fence`). Category
 * `superseded`: the run is recorded `stale`, never retried.
 */
export class StaleFenceError extends CronfenceError {
  override readonly name = 'StaleFenceError';
  readonly fence: number;
  readonly storedFence: number | undefined;
  readonly item: FencedItem | undefined;
  constructor(
    key: string,
    fence: number,
    storedFence: number | undefined,
    item?: FencedItem,
    options?: ErrorOptions,
  ) {
    super(
      ErrorCode.StaleFence,
      ErrorCategory.Superseded,
      `stale fence for ${key}: wrote with fence ${fence}, stored fence is ${storedFence}`,
      options,
    );
    this.fence = fence;
    this.storedFence = storedFence;
    this.item = item;
  }
}

/**
 * An insert-once result exists with a different shape than this run would write, or a business item
 * this run may not overwrite (programming error or a lease still running). Category `conflict`.
 */
export class ResultConflictError extends CronfenceError {
  override readonly name = 'ResultConflictError';
  readonly item: BusinessItem | undefined;
  constructor(message: string, item?: BusinessItem, options?: ErrorOptions) {
    super(ErrorCode.ResultConflict, ErrorCategory.Conflict, message, options);
    this.item = item;
  }
}
