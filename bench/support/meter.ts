/**
 * A request meter for DynamoDB clients: an AWS SDK v3 middleware that asks every request for
 * `ReturnConsumedCapacity: TOTAL`, counts attempts by operation and sums the capacity units DynamoDB
 * reports. Benchmarks read protocol cost from it instead of guessing.
 *
 * A write whose condition fails consumes write capacity in DynamoDB, but the
 * `ConditionalCheckFailedException` carries no `ConsumedCapacity`; the meter counts it as
 * `ceil(size of the returned item / 1 KB)` WCU (minimum 1), the documented rule, and says so in
 * {@link MeterSnapshot.estimatedWcu}.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Operations that are writes (count against write request units on demand). */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** Operations that are reads. */
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
/** Operations that accept `ReturnConsumedCapacity`. */
const CAPACITY = new Set([...WRITES, ...READS]);

/** Counts over an interval. */
export interface MeterSnapshot {
  /** Attempts by operation (`UpdateItem`, `PutItem`, ...), including the SDK's retries. */
  readonly requests: Record<string, number>;
  /** Write requests (PutItem, UpdateItem, DeleteItem, ...). */
  readonly writes: number;
  /** Read requests (GetItem, Query, Scan, ...). */
  readonly reads: number;
  /** Write requests whose condition failed (they still consume capacity). */
  readonly conditionFailures: number;
  /** Write capacity units: reported by DynamoDB plus {@link estimatedWcu}. */
  readonly wcu: number;
  /** Read capacity units reported by DynamoDB. */
  readonly rcu: number;
  /** Capacity units (read or write) by operation. */
  readonly unitsByOperation: Record<string, number>;
  /** The part of `wcu` estimated for failed conditional writes (1 per started KB of the returned item). */
  readonly estimatedWcu: number;
}

function approxItemBytes(item: unknown): number {
  // Attribute names + values, as DynamoDB sizes items; JSON length is a close upper estimate.
  return item ? JSON.stringify(item).length : 0;
}

/** Request meter attached to one or more clients. */
export class RequestMeter {
  private requests = new Map<string, number>();
  private conditionFailures = 0;
  private wcu = 0;
  private rcu = 0;
  private estimatedWcu = 0;
  private units = new Map<string, number>();

  /** Attach to a client (low-level or Document client: both share one middleware stack). */
  attach(client: DynamoDBClient | DynamoDBDocumentClient): this {
    client.middlewareStack.add(
      // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
      (next: any, context: any) => async (args: any) => {
        const op = String(context.commandName).replace(/Command$/, '');
        if (CAPACITY.has(op) && args.input && !args.input.ReturnConsumedCapacity)
          args.input = { ...args.input, ReturnConsumedCapacity: 'TOTAL' };
        return next(args);
      },
      { step: 'initialize', name: 'cronfenceBenchCapacity', override: true },
    );
    client.middlewareStack.addRelativeTo(
      // biome-ignore lint/suspicious/noExplicitAny: as above
      (next: any, context: any) => async (args: any) => {
        const op = String(context.commandName).replace(/Command$/, '');
        this.requests.set(op, (this.requests.get(op) ?? 0) + 1);
        try {
          const out = await next(args);
          this.addCapacity(op, out?.output?.ConsumedCapacity);
          return out;
        } catch (err) {
          if ((err as Error)?.name === 'ConditionalCheckFailedException') {
            this.conditionFailures++;
            const units = Math.max(1, Math.ceil(approxItemBytes((err as { Item?: unknown }).Item) / 1024));
            this.estimatedWcu += units;
            this.wcu += units;
            this.units.set(op, (this.units.get(op) ?? 0) + units);
          }
          throw err;
        }
      },
      { relation: 'after', toMiddleware: 'retryMiddleware', name: 'cronfenceBenchMeter', override: true },
    );
    return this;
  }

  private addCapacity(op: string, consumed: unknown): void {
    const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
    for (const c of list as {
      CapacityUnits?: number;
      WriteCapacityUnits?: number;
      ReadCapacityUnits?: number;
    }[]) {
      this.units.set(op, (this.units.get(op) ?? 0) + (c.CapacityUnits ?? 0));
      if (c.WriteCapacityUnits !== undefined || c.ReadCapacityUnits !== undefined) {
        this.wcu += c.WriteCapacityUnits ?? 0;
        this.rcu += c.ReadCapacityUnits ?? 0;
      } else if (c.CapacityUnits !== undefined) {
        // Only the total came back: it is of the operation's kind.
        if (READS.has(op)) this.rcu += c.CapacityUnits;
        else this.wcu += c.CapacityUnits;
      }
    }
  }

  /** Counts since construction or the last {@link reset}. */
  snapshot(): MeterSnapshot {
    const requests = Object.fromEntries([...this.requests].sort(([a], [b]) => a.localeCompare(b)));
    let writes = 0;
    let reads = 0;
    for (const [op, n] of this.requests) {
      if (WRITES.has(op)) writes += n;
      if (READS.has(op)) reads += n;
    }
    return {
      requests,
      writes,
      reads,
      conditionFailures: this.conditionFailures,
      wcu: round(this.wcu),
      rcu: round(this.rcu),
      estimatedWcu: round(this.estimatedWcu),
      unitsByOperation: Object.fromEntries([...this.units].map(([k, v]) => [k, round(v)])),
    };
  }

  /** Start a new interval. */
  reset(): void {
    this.requests = new Map();
    this.conditionFailures = 0;
    this.wcu = 0;
    this.rcu = 0;
    this.estimatedWcu = 0;
    this.units = new Map();
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
