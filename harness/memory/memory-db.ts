/**
 * An in-memory stand-in for DynamoDB, for the history explorer: tables of items addressed by their
 * full key, each request applied atomically (conditions are evaluated and applied in one synchronous
 * step, like one DynamoDB conditional write), a client per worker that passes every attempt through
 * the same {@link FaultInjector} as the SDK middleware and retries like the SDK's standard retry
 * strategy, and a log of every accepted write for invariant checks. The memory stores in this folder
 * pass the same contract suite as the DynamoDB stores (test/helpers/contracts).
 */

import {
  CONFLICT_ATTEMPTS,
  conflictBackoffMs,
  createDocumentClient,
  isConflictOnly,
} from '../../lib/store/client.js';
import type { ProtocolOp } from '../../lib/store/protocol/ops.js';
import type { FaultInjector, FaultRequest } from '../faults/sdk-faults.js';

/** An item: attribute name → value (plain JS, Sets for string sets). */
export type Item = Record<string, unknown>;

/** One accepted write, as the store applied it. */
export interface WriteLogEntry {
  readonly seq: number;
  readonly op: ProtocolOp;
  readonly table: string;
  /** The item's key, canonical JSON. */
  readonly key: string;
  readonly runId?: string;
  readonly fence?: number;
  /** Insert-once row status / lease holder state / run outcome after the write. */
  readonly status?: string;
  /** Lease expiry written (claim, renew), epoch ms by the writer's clock. */
  readonly leaseUntilMs?: number;
  /** True time of the write (the db's time source), epoch ms. */
  readonly atMs: number;
}

/**
 * The condition of write `index` of a request did not hold; carries that item as it is (like ALL_OLD).
 * Named like DynamoDB's error: `TransactionCanceledException` for a transaction.
 */
export class MemoryConditionFailed extends Error {
  constructor(
    readonly item: Item | undefined,
    readonly index = 0,
    transaction = false,
  ) {
    super(transaction ? 'Transaction cancelled: ConditionalCheckFailed' : 'The conditional request failed');
    this.name = transaction ? 'TransactionCanceledException' : 'ConditionalCheckFailedException';
  }
}

/** Canonical key string: table + key attributes in the given order. */
export function keyString(table: string, key: Record<string, unknown>): string {
  return JSON.stringify([table, Object.entries(key)]);
}

/** The shared "server": every worker's client talks to one MemoryDb. */
export class MemoryDb {
  private readonly tables = new Map<string, Map<string, Item>>();
  /** Every accepted write, in order. */
  readonly log: WriteLogEntry[] = [];

  /** @param now true time for the write log. @default Date.now */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** A copy of the item, or undefined. */
  get(table: string, key: Record<string, unknown>): Item | undefined {
    const item = this.tables.get(table)?.get(keyString(table, key));
    return item === undefined ? undefined : structuredClone(item);
  }

  /** Store a copy of the item under its key and log the write. */
  put(
    table: string,
    key: Record<string, unknown>,
    item: Item,
    entry: Omit<WriteLogEntry, 'seq' | 'table' | 'key' | 'atMs'>,
  ): void {
    let t = this.tables.get(table);
    if (!t) {
      t = new Map();
      this.tables.set(table, t);
    }
    const k = keyString(table, key);
    t.set(k, structuredClone(item));
    this.log.push({ ...entry, seq: this.log.length, table, key: k, atMs: this.now() });
  }

  /** Copies of every item of a table. */
  scan(table: string): Item[] {
    return [...(this.tables.get(table)?.values() ?? [])].map((i) => structuredClone(i));
  }

  /**
   * Replace a table's items with `items` (a restore from a backup: the items as of the restore point),
   * without logging writes: a restore is not a write of the protocol.
   */
  replaceTable(table: string, items: readonly { key: Record<string, unknown>; item: Item }[]): void {
    this.tables.set(table, new Map(items.map((i) => [keyString(table, i.key), structuredClone(i.item)])));
  }

  /** Names of the tables that hold items. */
  tableNames(): string[] {
    return [...this.tables.keys()];
  }
}

const RETRYABLE = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
]);

/** True for the errors the SDK's standard retry strategy retries. */
export function isRetryable(err: unknown): boolean {
  const e = err as { name?: string; code?: string };
  return (
    RETRYABLE.has(String(e?.name)) ||
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'].includes(String(e?.code))
  );
}

/** Options of a {@link MemoryClient}. */
export interface MemoryClientOptions {
  /** Fault injection for every attempt. @default none */
  readonly faults?: FaultInjector;
  /** Attempts per request, like the SDK's `maxAttempts`. @default 4 (the DynamoDB client's default) */
  readonly maxAttempts?: number;
  /** Backoff between attempts (virtual time in the explorer). @default no wait */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** One worker's connection to a {@link MemoryDb}. */
export class MemoryClient {
  constructor(
    readonly db: MemoryDb,
    private readonly options: MemoryClientOptions = {},
  ) {}

  /**
   * Send one request: `apply` evaluates its condition and writes atomically (or throws
   * {@link MemoryConditionFailed}). Retryable injected errors are retried like the SDK does, so an
   * applied-but-lost write is re-sent and meets its own earlier effect.
   */
  async send<T>(req: FaultRequest, apply: () => T): Promise<T> {
    const max = this.options.maxAttempts ?? 4;
    // Like createDocumentClient: conflicts are retried around the SDK's own retries (CONFLICT_ATTEMPTS).
    for (let conflict = 1; ; conflict++) {
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            const run = async () => apply();
            return this.options.faults ? await this.options.faults.intercept(req, run) : await run();
          } catch (err) {
            if (attempt >= max || !isRetryable(err)) throw err;
            await this.options.sleep?.(Math.min(20 * 2 ** attempt, 1_000));
          }
        }
      } catch (err) {
        if (!isConflictOnly(err) || conflict >= CONFLICT_ATTEMPTS) throw err;
        await this.options.sleep?.(conflictBackoffMs(conflict, () => 0.5));
      }
    }
  }
}

/**
 * A Document client for `RuntimeDeps.doc` when the stores are in memory: never used by the runtime;
 * every request it is asked to send fails naming the mistake.
 */
export function unusedDocumentClient() {
  const doc = createDocumentClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
  doc.middlewareStack.add(
    () => async () => {
      throw new Error('in-memory deps: this run has no DynamoDB client (use the memory stores)');
    },
    { step: 'initialize', name: 'cronfenceMemoryOnly' },
  );
  return doc;
}
