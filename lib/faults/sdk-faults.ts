/**
 * Fault injection for DynamoDB requests: an AWS SDK v3 middleware placed right after the SDK's retry
 * middleware, so every attempt (including the SDK's own retries) passes through it. Used by tests,
 * drills and `npm start -- --chaos`. Rules match on the low-level command name and the request input.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What to do with a matching request. */
export type FaultAction =
  /** Fail before sending; DynamoDB never sees it. */
  | { readonly kind: 'fail'; readonly error: () => Error }
  /** Send it (DynamoDB applies it), then fail as if the response was lost. */
  | { readonly kind: 'apply-then-fail'; readonly error?: () => Error }
  /** Wait `ms` before sending. */
  | { readonly kind: 'delay'; readonly ms: number }
  /** Hold the request until `release` resolves, then send it. */
  | { readonly kind: 'hold'; readonly release: Promise<void> };

/** A request as the rule sees it. */
export interface FaultRequest {
  /** e.g. `UpdateItemCommand`, `PutItemCommand`. */
  readonly command: string;
  /** The marshalled low-level input (TableName, ConditionExpression, Key, ...). */
  readonly input: Record<string, unknown>;
}

/** A rule: which requests, what to do, how many times. */
export interface FaultRule {
  readonly name: string;
  readonly match: (req: FaultRequest) => boolean;
  readonly action: FaultAction;
  /** Fire this many times, then retire. @default 1 */
  readonly times?: number;
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

/** A connection refused (DynamoDB unreachable). */
export function unreachableError(): Error {
  return Object.assign(new Error('injected: connect ECONNREFUSED'), {
    name: 'Error',
    code: 'ECONNREFUSED',
    $metadata: {},
  });
}

/** Matchers for the protocol's requests. */
export const on = {
  command: (command: string) => (r: FaultRequest) => r.command === command,
  claim: (r: FaultRequest) =>
    r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).includes('ADD #fence'),
  renew: (r: FaultRequest) =>
    r.command === 'UpdateItemCommand' &&
    String(r.input.UpdateExpression).startsWith('SET #leaseUntilMs = :until'),
  release: (r: FaultRequest) =>
    r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).includes(':released'),
  runRecord: (r: FaultRequest) =>
    r.command === 'PutItemCommand' && String(JSON.stringify(r.input.Item ?? {})).includes('"RUN#'),
  table: (tableName: string) => (r: FaultRequest) => r.input.TableName === tableName,
  keyContains: (text: string) => (r: FaultRequest) =>
    JSON.stringify(r.input.Key ?? r.input.Item ?? {}).includes(text),
  all:
    (...ms: ((r: FaultRequest) => boolean)[]) =>
    (r: FaultRequest) =>
      ms.every((m) => m(r)),
};

/** The injector attached to one client: add rules, read what fired. */
export class FaultInjector {
  private rules: { rule: FaultRule; left: number }[] = [];
  /** Every rule firing, in order. */
  readonly fired: { rule: string; command: string }[] = [];
  /** Every request attempt seen, by command name. */
  readonly requests = new Map<string, number>();

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

  /** Attach to a client (low-level or Document client: both share one middleware stack). */
  attach(client: DynamoDBClient | DynamoDBDocumentClient): this {
    client.middlewareStack.addRelativeTo(
      // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
      (next: any, context: any) => async (args: any) => {
        const req: FaultRequest = { command: String(context.commandName), input: args.input ?? {} };
        this.requests.set(req.command, (this.requests.get(req.command) ?? 0) + 1);
        const entry = this.rules.find((e) => e.left > 0 && e.rule.match(req));
        if (!entry) return next(args);
        entry.left--;
        this.fired.push({ rule: entry.rule.name, command: req.command });
        const a = entry.rule.action;
        switch (a.kind) {
          case 'fail':
            throw a.error();
          case 'apply-then-fail':
            await next(args);
            throw (a.error ?? timeoutError)();
          case 'delay':
            await new Promise((r) => setTimeout(r, a.ms));
            return next(args);
          case 'hold':
            await a.release;
            return next(args);
        }
      },
      { relation: 'after', toMiddleware: 'retryMiddleware', name: 'cronfenceFaults', override: true },
    );
    return this;
  }
}
