/**
 * Sharded jobs (docs/design.md "Scale"): a job with `shards: N` runs its scheduled (unsharded) invocation
 * as a fan-out — under the job's own lease `JOB#<job>` it hands N shard invocations to a
 * {@link ShardDispatcher} (Lambda async Invoke of the same function in AWS, see fan-out-lambda.ts; in
 * process locally). Each shard invocation carries `shard` in its payload, claims its own lease
 * `JOB#<job>#<shard>` with its own fence, and works on the business keys {@link shardOf} assigns to it.
 *
 * Duplicates stay harmless at both levels: duplicate scheduled deliveries meet the job lease (one
 * fans out, the rest skip); duplicate shard deliveries meet the shard's lease; a fan-out retried after
 * a crash dispatches every shard again and the shards already done skip as already-succeeded.
 */
import type { Context } from 'aws-lambda';
import { parseInvocationEvent } from '../core/event.js';
import { InvalidArgumentError } from '../core/input-errors.js';
import type { RuntimeDeps } from './deps.js';
import type { JobContext } from './job-context.js';
import type { RunSummary } from './run-session.js';

/** Starts shard invocations. Resolves once every payload is handed off (not when the shards finish). */
export interface ShardDispatcher {
  dispatch(payloads: readonly Record<string, unknown>[]): Promise<void>;
}

/** Runtime deps that may carry a dispatcher (tests and the local emulator inject an in-process one). */
export type FanOutDeps = RuntimeDeps & { readonly dispatchShards?: ShardDispatcher };

/**
 * The shard a business key belongs to: FNV-1a (32-bit) of the key's UTF-16 code units, mod `shards`.
 * Stable across processes, releases and platforms, so a retried shard sees the same keys.
 * @throws InvalidArgumentError when `shards` is not an integer >= 1.
 * @example shardOf('M42', 16) // the same number in every invocation
 */
export function shardOf(key: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1)
    throw new InvalidArgumentError('shards', shards, 'must be an integer >= 1');
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/**
 * True when `key` is the run's to handle: always for an unsharded run, else when {@link shardOf}
 * assigns it to `ctx.shard`.
 * @param shards the job's `shards`.
 */
export function ownsKey(ctx: Pick<JobContext, 'shard'>, key: string, shards: number): boolean {
  return ctx.shard === undefined || shardOf(key, shards) === ctx.shard;
}

/**
 * The payloads of a fan-out: the invocation's own payload (same slot, trigger, attempt, requester)
 * plus `shard` 0..N-1 and `shards: N`, the count they were cut for (a shard index names a key space
 * only under its count: a payload delivered after a redeploy changed the count is re-fanned out).
 * @param only shard indexes to cut (the sweeper re-triggers missing shards only). @default all
 * @throws InvalidEventError for a payload that is not a JSON object.
 */
export function shardPayloads(
  rawEvent: unknown,
  shards: number,
  only?: readonly number[],
): Record<string, unknown>[] {
  const parsed = typeof rawEvent === 'string' ? (JSON.parse(rawEvent) as unknown) : rawEvent;
  parseInvocationEvent(parsed); // same validation as the handler's
  const { shard: _shard, shards: _shards, ...base } = parsed as Record<string, unknown>;
  const indexes = only ?? Array.from({ length: shards }, (_, i) => i);
  return indexes.map((shard) => ({ ...base, shard, shards }));
}

/**
 * The fan-out body of a sharded job's unsharded invocation: dispatch one payload per shard and note
 * the count on the run record (`dispatchedShards`).
 * @throws InvalidJobDefinitionError-like Error when no dispatcher is configured; whatever the dispatcher throws.
 */
export async function fanOut(
  ctx: JobContext,
  rawEvent: unknown,
  shards: number,
  dispatcher: ShardDispatcher | undefined,
): Promise<void> {
  if (!dispatcher) {
    throw new InvalidArgumentError(
      'dispatch',
      undefined,
      `job "${ctx.job}" has ${shards} shards but no shard dispatcher: pass \`dispatch: lambdaShardDispatcher()\` to defineJob (or deps.dispatchShards)`,
    );
  }
  ctx.throwIfAborted();
  await dispatcher.dispatch(shardPayloads(rawEvent, shards));
  ctx.setDetail('dispatchedShards', shards);
}

/** A shard invocation's outcome, as the in-process dispatcher saw it. */
export interface ShardDelivery {
  readonly payload: Record<string, unknown>;
  readonly summary?: RunSummary;
  /** The error a failed invocation threw (its run summary: `summaryOfError(error)`). */
  readonly error?: Error;
}

/**
 * Local dispatcher: invokes the handler in this process for every payload (like an async Invoke:
 * `dispatch` returns before the shards finish), optionally `copies` times each to model Lambda's
 * at-least-once async delivery. {@link settled} waits for every invocation, including the shard
 * invocations those invocations dispatch.
 */
export class InProcessShardDispatcher implements ShardDispatcher {
  private readonly pending: Promise<ShardDelivery>[] = [];

  /**
   * @param handler the job's handler (lazily: it is usually built with deps that name this dispatcher).
   * @param options `copies` per payload (@default 1), `timeoutSeconds` of each invocation's context (@default 900).
   */
  constructor(
    private readonly handler: () => (event: unknown, context: Context) => Promise<RunSummary>,
    private readonly options: { copies?: number; timeoutSeconds?: number } = {},
  ) {}

  async dispatch(payloads: readonly Record<string, unknown>[]): Promise<void> {
    for (const payload of payloads) {
      for (let c = 0; c < (this.options.copies ?? 1); c++) this.pending.push(this.invoke(payload));
    }
  }

  /** Every shard delivery so far, once all have finished. */
  async settled(): Promise<ShardDelivery[]> {
    let seen = 0;
    while (seen < this.pending.length) {
      seen = this.pending.length;
      await Promise.all(this.pending);
    }
    return Promise.all(this.pending);
  }

  private async invoke(payload: Record<string, unknown>): Promise<ShardDelivery> {
    await Promise.resolve(); // start after dispatch returns, as an async Invoke would
    const deadlineMs = Date.now() + (this.options.timeoutSeconds ?? 900) * 1000;
    const context = {
      awsRequestId: `shard-${String(payload.shard)}-${Math.random().toString(36).slice(2, 10)}`,
      getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
    } as Context;
    try {
      return { payload, summary: await this.handler()(payload, context) };
    } catch (err) {
      return { payload, error: err as Error }; // a failed run's summary rides on the error (summaryOfError)
    }
  }
}
