/**
 * A local TCP proxy between a child process and DynamoDB Local that can cut the network the way a
 * partition does: `cut()` drops every open connection and from then on accepts connections and reads
 * requests but forwards nothing and answers nothing; `restore()` forwards new connections again. It
 * parses each HTTP request the client sends (DynamoDB's JSON protocol) and logs when it arrived, its
 * `X-Amz-Target` operation, the SDK's invocation id and attempt number, and its body, so a test can say
 * exactly what a task tried to send while cut off.
 */
import { connect, createServer, type Socket } from 'node:net';

/** One HTTP request the proxy received. */
export interface ProxiedRequest {
  readonly atMs: number;
  /** e.g. `PutItem`, `UpdateItem`, `TransactWriteItems`. */
  readonly operation: string;
  /** `amz-sdk-invocation-id`: the same for every attempt of one SDK call. */
  readonly invocationId: string;
  /** From `amz-sdk-request: attempt=N`. */
  readonly attempt: number;
  readonly body: string;
  /** True when it arrived while the proxy was cut (it reached nobody). */
  readonly cut: boolean;
}

/** A running proxy. */
export interface TcpProxy {
  readonly endpoint: string;
  readonly requests: readonly ProxiedRequest[];
  cut(): void;
  restore(): void;
  stop(): Promise<void>;
}

function parser(onRequest: (headers: Record<string, string>, body: string) => void): (chunk: Buffer) => void {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (buffer.length < end + 4 + length) return;
      onRequest(headers, buffer.subarray(end + 4, end + 4 + length).toString('utf8'));
      buffer = buffer.subarray(end + 4 + length);
    }
  };
}

/** Start a proxy on 127.0.0.1 (a free port) to `upstream` (`http://host:port`). */
export async function startTcpProxy(upstream: string): Promise<TcpProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  let isCut = false;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    const cutHere = isCut;
    client.on(
      'data',
      parser((h, body) =>
        requests.push({
          atMs: Date.now(),
          operation: (h['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, ''),
          invocationId: h['amz-sdk-invocation-id'] ?? '',
          attempt: Number(/attempt=(\d+)/.exec(h['amz-sdk-request'] ?? '')?.[1] ?? 1),
          body,
          cut: cutHere,
        }),
      ),
    );
    if (cutHere) return; // read, never forwarded, never answered: the packets go nowhere
    const up = connect(Number(target.port), target.hostname);
    sockets.add(up);
    up.on('close', () => sockets.delete(up));
    up.on('error', () => client.destroy());
    client.pipe(up);
    up.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    requests,
    cut() {
      isCut = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      isCut = false;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
