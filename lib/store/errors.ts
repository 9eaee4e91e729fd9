/**
 * The errors the stores throw about a run: a DynamoDB request that failed, an endpoint that cannot be
 * reached, a lease this run no longer holds (with the item DynamoDB returned, typed). An operator's
 * refused write has its own errors (operator-errors.ts).
 */
import { CronfenceError, ErrorCategory, ErrorCode } from '../core/error-model.js';
import type { LeaseItem } from '../core/lease.js';
import type { RunRecord } from '../core/ports.js';
import { showValue } from '../core/show-value.js';

/**
 * A DynamoDB request failed for a reason other than a condition check (throttling, network, ...).
 * Category `transient`. `operation` names the request.
 */
export class StoreError extends CronfenceError {
  override readonly name = 'StoreError';
  readonly operation: string;
  constructor(operation: string, cause: unknown, options?: ErrorOptions) {
    const c = cause as { readonly name?: string; readonly message?: string } | null | undefined;
    super(
      ErrorCode.Store,
      ErrorCategory.Transient,
      `DynamoDB ${operation} failed: ${c?.name ?? 'Error'}: ${c?.message ?? String(cause)}`,
      { ...options, cause },
    );
    this.operation = operation;
  }
}

/**
 * A configured endpoint (DynamoDB Local's `DYNAMODB_ENDPOINT`, `--endpoint`) cannot be reached: names
 * where the endpoint came from and its value, with the network error as `cause`. Category `transient`.
 * @example new EndpointUnreachableError('DYNAMODB_ENDPOINT', 'http://127.0.0.1:9', 'start it', { cause })
 */
export class EndpointUnreachableError extends CronfenceError {
  override readonly name = 'EndpointUnreachableError';
  /** Where the endpoint came from: `DYNAMODB_ENDPOINT`, `--endpoint`, or the file that named it. */
  readonly variable: string;
  readonly endpoint: string;
  /** @param options `cause`: the network error, whose message is quoted. */
  constructor(variable: string, endpoint: string, advice: string, options?: ErrorOptions) {
    const cause = options?.cause as { readonly message?: string } | undefined;
    super(
      ErrorCode.EndpointUnreachable,
      ErrorCategory.Transient,
      `${variable} ${showValue(endpoint)} cannot be reached${cause ? ` (${cause.message ?? String(cause)})` : ''}: ${advice}`,
      options,
    );
    this.variable = variable;
    this.endpoint = endpoint;
  }
}

/**
 * This run no longer holds its lease: a renewal or release found another owner or fence (`item`: the
 * lease item DynamoDB returned, ALL_OLD on condition failure), or its run record was already written
 * `abandoned` by the run that took the lease over (`item`: that record). Category `superseded`.
 */
export class LeaseLostError extends CronfenceError {
  override readonly name = 'LeaseLostError';
  readonly item: LeaseItem | RunRecord | undefined;
  constructor(message: string, item?: LeaseItem | RunRecord, options?: ErrorOptions) {
    super(ErrorCode.LeaseLost, ErrorCategory.Superseded, message, options);
    this.item = item;
  }
}
