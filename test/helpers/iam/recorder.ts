/**
 * Records the DynamoDB and Lambda requests functions make, for the IAM test.
 *
 * - In process (scenarios, drills): an SDK middleware placed right after the retry middleware (like
 *   harness/faults/sdk-faults.ts, so every attempt is seen with its marshalled input) on every client,
 *   attributing each request to the function whose invocation is running (AsyncLocalStorage set by
 *   {@link attributed}). Requests of the test harness itself (table set-up, checks) carry no
 *   function and are not recorded.
 * - Out of process (the `cdk.out` bundles): {@link RecordingEndpoint}, an HTTP endpoint the bundle's
 *   own SDK is pointed at (`AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_LAMBDA`). It forwards
 *   DynamoDB calls to DynamoDB Local and accepts Lambda async invokes (202), recording each with the
 *   caller's access key id, which the test sets to the function's role.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { JobHandler } from '../../../lib/runtime/define-job.js';

/** One request a function made, as it went on the wire (low-level, marshalled input). */
export interface RecordedRequest {
  /** The role the function runs as (logical id of its execution role). */
  readonly role: string;
  /** Where it was recorded: `scenario`, `drill`, `bundle`, ... */
  readonly source: string;
  readonly service: 'dynamodb' | 'lambda';
  /** API operation: `PutItem`, `TransactWriteItems`, `Invoke`, ... */
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

interface Acting {
  readonly role: string;
  readonly source: string;
}

const acting = new AsyncLocalStorage<Acting>();

/** Run `fn` as function `role` (requests it makes are recorded under that role). */
export function actingAs<T>(role: string, source: string, fn: () => T): T {
  return acting.run({ role, source }, fn);
}

/** The handler, with every invocation (also of `withDeps` copies) run as `role`. */
export function attributed(h: JobHandler, role: string, source: string): JobHandler {
  return new Proxy(h, {
    apply: (target, self, args) => actingAs(role, source, () => Reflect.apply(target, self, args)),
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'withDeps' || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        attributed(Reflect.apply(value, target, args) as JobHandler, role, source);
    },
  });
}

const NAME = 'cronfenceIamRecorder';

/**
 * Record the requests of every SDK client of this process made while {@link actingAs} is active:
 * patches the shared smithy `Client.prototype.send` to add the recording middleware to each client's
 * stack once. @returns a function that removes the patch.
 */
export function recordInProcess(sink: (r: RecordedRequest) => void): () => void {
  const proto = Object.getPrototypeOf(DynamoDBClient.prototype) as { send: (...a: unknown[]) => unknown };
  const original = proto.send;
  const stacks = new WeakSet<object>();
  proto.send = function send(this: { middlewareStack: MiddlewareStack }, ...args: unknown[]) {
    const stack = this.middlewareStack;
    if (!stacks.has(stack)) {
      stacks.add(stack);
      stack.addRelativeTo(
        // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics
        (next: any, context: any) => async (a: any) => {
          const who = acting.getStore();
          if (who) {
            const client = String(context.clientName ?? '');
            sink({
              ...who,
              service: client.startsWith('Lambda') ? 'lambda' : 'dynamodb',
              operation: String(context.commandName).replace(/Command$/, ''),
              input: structuredClone(a.input ?? {}),
            });
          }
          return next(a);
        },
        { relation: 'after', toMiddleware: 'retryMiddleware', name: NAME, override: true },
      );
    }
    return Reflect.apply(original, this, args);
  };
  return () => {
    proto.send = original;
  };
}

interface MiddlewareStack {
  addRelativeTo(mw: unknown, options: Record<string, unknown>): void;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The access key id of a SigV4 request (the IAM test sets it to the caller's role). */
function accessKeyOf(req: IncomingMessage): string {
  return /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? 'unsigned';
}

/** An HTTP endpoint standing in for DynamoDB (forwarded to DynamoDB Local) and Lambda (async invokes). */
export class RecordingEndpoint {
  readonly requests: RecordedRequest[] = [];
  /** Payloads of Lambda async invokes, by function name or ARN, in order. */
  readonly invokes: { functionName: string; payload: unknown }[] = [];
  private server: Server | undefined;
  private source = 'bundle';

  constructor(private readonly dynamoEndpoint: string) {}

  /** Tag what is recorded next (e.g. `bundle: sweeper`). */
  tag(source: string): void {
    this.source = source;
  }

  async start(): Promise<string> {
    const target = new URL(this.dynamoEndpoint);
    this.server = createServer((req, res) => {
      void (async () => {
        const data = await body(req);
        const role = accessKeyOf(req);
        const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
        if (invoke) {
          const functionName = decodeURIComponent(invoke[1] as string);
          this.requests.push({
            role,
            source: this.source,
            service: 'lambda',
            operation: 'Invoke',
            input: { FunctionName: functionName, InvocationType: req.headers['x-amz-invocation-type'] },
          });
          this.invokes.push({ functionName, payload: JSON.parse(data.toString('utf8') || 'null') });
          res.writeHead(202, { 'content-type': 'application/json' }).end('');
          return;
        }
        const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
        this.requests.push({
          role,
          source: this.source,
          service: 'dynamodb',
          operation,
          input: JSON.parse(data.toString('utf8') || '{}'),
        });
        const forward = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
          },
          (up) => {
            res.writeHead(up.statusCode ?? 500, up.headers);
            up.pipe(res);
          },
        );
        forward.on('error', (err) => res.writeHead(502).end(String(err)));
        forward.end(data);
      })();
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
