/**
 * A small real payment (and e-mail) provider for tests, drills and `npm start`: node:http on
 * 127.0.0.1 at a free port. It records every operation it executes and every request it receives,
 * so tests count what happened at the provider instead of mocking it.
 *
 * API: `POST /payouts` and `POST /emails` (JSON; `Idempotency-Key` header, URI-encoded) execute an
 * operation and answer 201 with `{ id, ... }`; 422 for an invalid body; `GET /payouts/:key` and
 * `GET /emails/:key` look an operation up by key (lookup mode only, else 501); `GET /payouts` and
 * `GET /emails` list every executed operation (an operator's view, always on).
 * Modes: with `idempotencyKeys`, a key executes at most once and later requests replay the first
 * response (409 while the first is in progress, 422 for different parameters); without it every POST
 * executes. Faults: execute then drop the response, delay, or answer a status without executing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the service supports. */
export interface PaymentServiceModes {
  /** Honour `Idempotency-Key`: execute each key at most once, replay the stored response. */
  readonly idempotencyKeys: boolean;
  /** Offer `GET /payouts/:key` and `GET /emails/:key`. */
  readonly lookup: boolean;
}

/** Operation kinds, by route. */
export type OperationKind = 'payout' | 'email';

/** One operation the service executed. */
export interface ExecutedOperation {
  readonly id: string;
  readonly kind: OperationKind;
  readonly key: string | undefined;
  readonly body: Record<string, unknown>;
  readonly atMs: number;
}

/** One request the service received, and what it did with it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly kind: OperationKind | undefined;
  readonly key: string | undefined;
  /** HTTP status answered, or `dropped` (no response). */
  readonly status: number | 'dropped';
  readonly executed: boolean;
}

/** A fault for matching requests. */
export interface ServiceFault {
  /**
   * `drop-response`: execute, then close the connection without answering. `delay`: wait `delayMs`,
   * then handle normally (a client that gave up still gets the operation executed). `status`: answer
   * `status` without executing.
   */
  readonly kind: 'drop-response' | 'delay' | 'status';
  readonly match?: { readonly kind?: OperationKind; readonly key?: string; readonly method?: string };
  /** For `delay`, ms. @default 1000 */
  readonly delayMs?: number;
  /**
   * For `delay`: hold the request until this promise settles instead of `delayMs` (a test decides when
   * the late execution happens, with no real-time margin).
   */
  readonly until?: Promise<void>;
  /** For `status`. @default 503 */
  readonly status?: number;
  /** Fire this many times. @default 1 */
  readonly times?: number;
}

/** A running payment service. */
export interface PaymentService {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly modes: PaymentServiceModes;
  /** Every executed operation, in order. */
  readonly executed: readonly ExecutedOperation[];
  /** Every request received, in order of completion. */
  readonly requests: readonly ReceivedRequest[];
  /** Executed payouts (optionally only those under `key`). */
  payouts(key?: string): ExecutedOperation[];
  /** Executed e-mails (optionally only those under `key`). */
  emails(key?: string): ExecutedOperation[];
  /** Requests received under `key` (all kinds, all methods). */
  requestsFor(key: string): ReceivedRequest[];
  setModes(modes: Partial<PaymentServiceModes>): void;
  inject(fault: ServiceFault): void;
  /** Called synchronously whenever an operation executes (tests use it to "kill" a caller). */
  onExecute(listener: (op: ExecutedOperation) => void): void;
  /** Close the server and every open connection. Idempotent. */
  stop(): Promise<void>;
}

const ROUTES: Record<string, OperationKind> = { payouts: 'payout', emails: 'email' };

function validate(kind: OperationKind, body: Record<string, unknown>): string | undefined {
  if (kind === 'payout') {
    if (typeof body.merchantId !== 'string' || body.merchantId === '')
      return 'merchantId must be a non-empty string';
    if (!Number.isInteger(body.amountCents) || Number(body.amountCents) <= 0)
      return 'amountCents must be a positive integer';
    if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency))
      return 'currency must be a 3-letter ISO code';
    return undefined;
  }
  if (typeof body.to !== 'string' || !body.to.includes('@')) return 'to must be an e-mail address';
  if (typeof body.subject !== 'string' || body.subject === '') return 'subject must be a non-empty string';
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Options of {@link startPaymentService} beyond its modes. */
export interface PaymentServiceOptions {
  /**
   * Forget an idempotency key this long after its first execution, ms (like payment APIs that keep
   * keys about 24 h): a later request with the key executes again. @default never forgotten
   */
  readonly keyRetentionMs?: number;
  /** The service's clock, epoch ms (tests move it forward to expire keys). @default Date.now */
  readonly now?: () => number;
}

/**
 * Start the service on 127.0.0.1 at a free port.
 * @param modes @default `{ idempotencyKeys: true, lookup: false }`
 */
export async function startPaymentService(
  modes: Partial<PaymentServiceModes> = {},
  options: PaymentServiceOptions = {},
): Promise<PaymentService> {
  const now = options.now ?? Date.now;
  let current: PaymentServiceModes = { idempotencyKeys: true, lookup: false, ...modes };
  const executed: ExecutedOperation[] = [];
  const requests: ReceivedRequest[] = [];
  const faults: { fault: ServiceFault; left: number }[] = [];
  const listeners: ((op: ExecutedOperation) => void)[] = [];
  /** Idempotency-key mode: first response per kind+key, or 'in-progress'. */
  const byKey = new Map<string, { bodyJson: string; atMs: number; response?: Record<string, unknown> }>();
  let seq = 0;

  const execute = (kind: OperationKind, key: string | undefined, body: Record<string, unknown>) => {
    seq++;
    const op: ExecutedOperation = {
      id: `${kind === 'payout' ? 'po' : 'em'}_${String(seq).padStart(6, '0')}`,
      kind,
      key,
      body,
      atMs: now(),
    };
    executed.push(op);
    for (const l of listeners) l(op);
    return { id: op.id, ...body, status: kind === 'payout' ? 'paid' : 'sent' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [route, rawKey, extra] = url.pathname.split('/').filter(Boolean);
    const kind = route === undefined ? undefined : ROUTES[route];
    const method = req.method ?? 'GET';
    const header = req.headers['idempotency-key'];
    const key =
      rawKey !== undefined
        ? decodeURIComponent(rawKey)
        : typeof header === 'string'
          ? decodeURIComponent(header)
          : undefined;
    const bodyText = method === 'POST' ? await readBody(req) : '';
    const log = (status: number | 'dropped', { executed }: { executed: boolean }) =>
      requests.push({ method, path: url.pathname, kind, key, status, executed });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      log(status, { executed: false });
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const entry = faults.find(
      (f) =>
        f.left > 0 &&
        (f.fault.match?.kind === undefined || f.fault.match.kind === kind) &&
        (f.fault.match?.key === undefined || f.fault.match.key === key) &&
        (f.fault.match?.method === undefined || f.fault.match.method === method),
    );
    if (entry) entry.left--;
    const fault = entry?.fault;
    if (fault?.kind === 'status') return send(fault.status ?? 503, { error: 'injected fault' });
    if (fault?.kind === 'delay') {
      await (fault.until ?? new Promise((r) => setTimeout(r, fault.delayMs ?? 1000)));
    }

    if (!kind || extra !== undefined) return send(404, { error: `no route ${method} ${url.pathname}` });
    if (method === 'GET' && rawKey === undefined)
      return send(
        200,
        executed.filter((o) => o.kind === kind),
      );
    if (method === 'GET') {
      if (!current.lookup) return send(501, { error: 'lookup by key is not supported in this mode' });
      const op = executed.findLast((o) => o.kind === kind && o.key === key);
      return op
        ? send(200, { id: op.id, ...op.body, status: kind === 'payout' ? 'paid' : 'sent' })
        : send(404, { error: 'not found' });
    }
    if (method !== 'POST' || rawKey !== undefined) return send(405, { error: `${method} not allowed` });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(bodyText) as Record<string, unknown>;
    } catch {
      return send(400, { error: 'body is not JSON' });
    }
    const problem = validate(kind, body);
    if (problem) return send(422, { error: problem });
    const slot = key !== undefined && current.idempotencyKeys ? `${kind}|${key}` : undefined;
    if (slot !== undefined) {
      const kept = byKey.get(slot);
      const seen =
        kept && (options.keyRetentionMs === undefined || now() - kept.atMs < options.keyRetentionMs)
          ? kept
          : undefined;
      if (seen && seen.bodyJson !== bodyText)
        return send(422, { error: 'idempotency key reused with different parameters' });
      if (seen && !seen.response)
        return send(409, { error: 'a request with this idempotency key is in progress' });
      if (seen?.response) return send(201, seen.response, { 'idempotent-replayed': 'true' });
      byKey.set(slot, { bodyJson: bodyText, atMs: now() });
    }
    const response = execute(kind, key, body);
    if (slot !== undefined)
      byKey.set(slot, { bodyJson: bodyText, atMs: byKey.get(slot)?.atMs ?? now(), response });
    if (fault?.kind === 'drop-response') {
      log('dropped', { executed: true });
      res.socket?.destroy();
      return;
    }
    log(201, { executed: true });
    if (!res.destroyed) {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String((err as Error)?.message ?? err) }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    get modes() {
      return current;
    },
    executed,
    requests,
    payouts: (key) => executed.filter((o) => o.kind === 'payout' && (key === undefined || o.key === key)),
    emails: (key) => executed.filter((o) => o.kind === 'email' && (key === undefined || o.key === key)),
    requestsFor: (key) => requests.filter((r) => r.key === key),
    setModes(m) {
      current = { ...current, ...m };
    },
    inject(fault) {
      faults.push({ fault, left: fault.times ?? 1 });
    },
    onExecute(listener) {
      listeners.push(listener);
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
