/**
 * Fault injection for store requests — ONE layer for DynamoDB and the in-memory store. On DynamoDB it
 * is an AWS SDK v3 middleware placed right after the SDK's retry middleware, so every attempt
 * (including the SDK's own retries) passes through it; the in-memory store calls
 * {@link FaultInjector.intercept} for every attempt of its emulated client. Used by tests, drills,
 * the history explorer and `npm start -- --chaos`. Rules match on the protocol step ({@link ProtocolOp}),
 * the low-level command name and the request input.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requestTagOf } from '../../lib/store/protocol/dynamo-backend.js';
import { type ProtocolOp, protocolOpOf, type RequestTag } from './protocol-ops.js';

export { PROTOCOL_STEPS, ProtocolOp, protocolOpOf, type RequestTag } from './protocol-ops.js';

/** What to do with a matching request. */
export type FaultAction =
  /** Fail before sending; the store never sees it. */
  | { readonly kind: 'fail'; readonly error: () => Error }
  /** Send it (the store applies it), then fail as if the response was lost. */
  | { readonly kind: 'apply-then-fail'; readonly error?: () => Error }
  /** Wait `ms` (of the injector's sleep: real or virtual time) before sending. */
  | { readonly kind: 'delay'; readonly ms: number }
  /** Hold the request until `release` resolves, then send it. */
  | { readonly kind: 'hold'; readonly release: Promise<void> };

/** A request as the rule sees it. */
export interface FaultRequest {
  /** e.g. `UpdateItemCommand`, `PutItemCommand`. */
  readonly command: string;
  /** The request input (TableName, Key, ...); marshalled on DynamoDB. */
  readonly input: Record<string, unknown>;
  /** The protocol step this request belongs to. @default the tag's, else `read` / `other` */
  readonly op?: ProtocolOp;
  /** What the protocol declared this request to be (absent for requests the protocol did not send). */
  readonly tag?: RequestTag;
}

/** A rule: which requests, what to do, how many times. */
export interface FaultRule {
  readonly name: string;
  readonly match: (req: FaultRequest) => boolean;
  readonly action: FaultAction;
  /** Fire this many times, then retire. @default 1 */
  readonly times?: number;
}

/** One request attempt the injector saw, for traces and timelines. */
export interface FaultTrace {
  readonly op: ProtocolOp;
  readonly command: string;
  /** Name of the rule that fired on it, if any. */
  readonly rule?: string;
  /** The action that fired (`fail`, `apply-then-fail`, `delay`, `hold`, `killed`). */
  readonly action?: string;
}

/** A transient network timeout, retryable by the SDK. */
export function timeoutError(message = 'injected: socket timed out'): Error {
  return Object.assign(new Error(message), { name: 'TimeoutError', $metadata: {} });
}

/** DynamoDB throttling, retryable by the SDK. */
export function throttlingError(): Error {
  return Object.assign(
    new Error('injected: The level of configured provisioned throughput for the table was exceeded'),
    {
      name: 'ProvisionedThroughputExceededException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    },
  );
}

/**
 * DynamoDB's answer to a single-item request on an item a transaction in flight is writing
 * (`TransactionConflictException`, HTTP 400). The SDK's standard retry strategy does not retry it.
 */
export function transactionConflictError(): Error {
  return Object.assign(new Error('injected: Transaction is ongoing for the item'), {
    name: 'TransactionConflictException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

/**
 * DynamoDB's answer to a transaction cancelled because another transaction or request was writing one
 * of its items (`TransactionCanceledException` whose reasons are `TransactionConflict` / `None`).
 * @param items how many items the transaction writes (the first one conflicts). @default 2
 */
export function transactionCanceledByConflict(items = 2): Error {
  return Object.assign(new Error('injected: Transaction cancelled, please refer cancellation reasons'), {
    name: 'TransactionCanceledException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: Array.from({ length: items }, (_, i) => ({
      Code: i === 0 ? 'TransactionConflict' : 'None',
    })),
  });
}

const opOf = (r: FaultRequest): ProtocolOp => protocolOpOf(r);

/** Matchers for the protocol's requests (work on DynamoDB and in-memory requests alike). */
export const on = {
  command: (command: string) => (r: FaultRequest) => r.command === command,
  op: (op: ProtocolOp) => (r: FaultRequest) => opOf(r) === op,
  claim: (r: FaultRequest) => opOf(r) === 'claim',
  renew: (r: FaultRequest) => opOf(r) === 'renew',
  release: (r: FaultRequest) => opOf(r) === 'release',
  runRecord: (r: FaultRequest) => opOf(r) === 'run-record',
  fencedWrite: (r: FaultRequest) => opOf(r) === 'fenced-write',
  insertOnce: (r: FaultRequest) => opOf(r) === 'insert-once',
  /** Any business write: fenced write or insert-once. */
  businessWrite: (r: FaultRequest) => ['fenced-write', 'insert-once'].includes(opOf(r)),
  effect: (r: FaultRequest) => opOf(r) === 'effect',
  table: (tableName: string) => (r: FaultRequest) => r.input.TableName === tableName,
  keyContains: (text: string) => (r: FaultRequest) =>
    JSON.stringify(r.input.Key ?? r.input.Item ?? {}).includes(text),
  all:
    (...ms: ((r: FaultRequest) => boolean)[]) =>
    (r: FaultRequest) =>
      ms.every((m) => m(r)),
};

/** Options of a {@link FaultInjector}. */
export interface FaultInjectorOptions {
  /** How `delay` waits. @default real `setTimeout` */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called for every request attempt (tracing, explorer invariants). Must not throw. */
  readonly onRequest?: (req: FaultRequest & { op: ProtocolOp }, trace: FaultTrace) => void;
  /**
   * Called when an attempt that reached the store comes back: `ok`, `lost` (applied, response lost by
   * an injected fault) or the error name (`ConditionalCheckFailedException`, ...). Must not throw.
   */
  readonly onResult?: (req: FaultRequest & { op: ProtocolOp }, result: string) => void;
}

const never = new Promise<never>(() => undefined);

/** The injector attached to one client: add rules, read what fired, kill the process. */
export class FaultInjector {
  private rules: { rule: FaultRule; left: number }[] = [];
  private dead = false;
  /** Every rule firing, in order. */
  readonly fired: { rule: string; command: string }[] = [];
  /** Every request attempt seen, by command name. */
  readonly requests = new Map<string, number>();
  /** Every request attempt seen, by protocol step. */
  readonly ops = new Map<ProtocolOp, number>();
  /** Rule firings by action kind (`fail`, `apply-then-fail`, `delay`, `hold`). */
  readonly firedByKind = new Map<string, number>();
  /** Requests being sent right now. */
  inFlight = 0;
  /** Commands started and not yet answered, SDK retries and backoff included (DynamoDB clients only). */
  pending = 0;
  /** Of those, how many wait on a `delay` or `hold` (time the caller controls). */
  private waiting = 0;

  constructor(private readonly options: FaultInjectorOptions = {}) {}

  /** Add a rule; returns a function that removes it. */
  add(rule: FaultRule): () => void {
    const entry = { rule, left: rule.times ?? 1 };
    this.rules.push(entry);
    return () => {
      this.rules = this.rules.filter((e) => e !== entry);
    };
  }

  clear(): void {
    this.rules = [];
  }

  /**
   * Kill the process this injector belongs to: from now on no request leaves and no response
   * arrives (every promise stays pending), as when a Lambda environment is frozen for good.
   */
  kill(): void {
    this.dead = true;
  }

  /** True after {@link kill}. */
  get killed(): boolean {
    return this.dead;
  }

  /** Run one request attempt through the rules; `send` performs it. */
  async intercept<T>(req: FaultRequest, send: () => Promise<T>): Promise<T> {
    const op = opOf(req);
    this.requests.set(req.command, (this.requests.get(req.command) ?? 0) + 1);
    this.ops.set(op, (this.ops.get(op) ?? 0) + 1);
    if (this.dead) {
      this.trace(req, op, { op, command: req.command, action: 'killed' });
      return never;
    }
    const entry = this.rules.find((e) => e.left > 0 && e.rule.match(req));
    if (entry) {
      entry.left--;
      this.fired.push({ rule: entry.rule.name, command: req.command });
      this.firedByKind.set(entry.rule.action.kind, (this.firedByKind.get(entry.rule.action.kind) ?? 0) + 1);
    }
    this.trace(req, op, {
      op,
      command: req.command,
      ...(entry && { rule: entry.rule.name, action: entry.rule.action.kind }),
    });
    const a = entry?.rule.action;
    if (a?.kind === 'fail') throw a.error();
    if (a?.kind === 'delay' || a?.kind === 'hold') {
      this.waiting++;
      try {
        await (a.kind === 'delay' ? (this.options.sleep ?? realSleep)(a.ms) : a.release);
      } finally {
        this.waiting--;
      }
    }
    if (this.dead) return never;
    this.inFlight++;
    let out: T;
    try {
      out = await send();
    } catch (err) {
      this.result(req, op, String((err as Error)?.name ?? 'Error'));
      throw err;
    } finally {
      this.inFlight--;
    }
    this.result(req, op, a?.kind === 'apply-then-fail' ? 'lost' : 'ok');
    if (this.dead) return never;
    if (a?.kind === 'apply-then-fail') throw (a.error ?? timeoutError)();
    return out;
  }

  /** Wait on `p` (time the caller controls, e.g. a virtual-time backoff): not counted as busy. */
  async waitOn<T>(p: Promise<T>): Promise<T> {
    this.waiting++;
    try {
      return await p;
    } finally {
      this.waiting--;
    }
  }

  /**
   * True while a command of this client is on its way to or from DynamoDB (not while it waits on a
   * `delay` or `hold`): virtual time must not move then.
   */
  get busy(): boolean {
    return !this.dead && this.pending > this.waiting;
  }

  /** Attach to a client (low-level or Document client: both share one middleware stack). */
  attach(client: DynamoDBClient | DynamoDBDocumentClient): this {
    client.middlewareStack.add(
      // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
      (next: any) => async (args: any) => {
        this.pending++;
        try {
          return await next(args);
        } finally {
          this.pending--;
        }
      },
      { step: 'initialize', name: 'cronfencePending', override: true },
    );
    client.middlewareStack.addRelativeTo(
      // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
      (next: any, context: any) => async (args: any) => {
        const tag = requestTagOf(args.input, context);
        // biome-ignore lint/suspicious/noExplicitAny: the SDK's handler output type
        return this.intercept<any>(
          { command: String(context.commandName), input: args.input ?? {}, ...(tag && { tag }) },
          () => next(args),
        );
      },
      { relation: 'after', toMiddleware: 'retryMiddleware', name: 'cronfenceFaults', override: true },
    );
    return this;
  }

  private result(req: FaultRequest, op: ProtocolOp, result: string): void {
    try {
      this.options.onResult?.({ ...req, op }, result);
    } catch {
      // tracing must not change the request
    }
  }

  private trace(req: FaultRequest, op: ProtocolOp, t: FaultTrace): void {
    try {
      this.options.onRequest?.({ ...req, op }, t);
    } catch {
      // tracing must not change the request
    }
  }
}

function realSleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
