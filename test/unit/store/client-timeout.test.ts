/**
 * The Document client's request timeouts (unit: a local TCP server that accepts and never answers,
 * no DynamoDB): every request attempt has a timeout, so a request hung in the network ends in a
 * `TimeoutError` instead of holding its caller.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDocumentClient,
  DYNAMODB_CONNECTION_TIMEOUT_MS,
  DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS,
  DYNAMODB_REQUEST_TIMEOUT_MS,
} from '../../../lib/store/client.js';

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets) s.destroy();
  return new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

const configOf = async (endpoint: string) => {
  const handler = createDocumentClient({ endpoint }).config.requestHandler as unknown as {
    configProvider: Promise<Record<string, unknown>>;
  };
  const c = await handler.configProvider;
  return {
    requestTimeout: c.requestTimeout,
    connectionTimeout: c.connectionTimeout,
    throws: c.throwOnRequestTimeout,
  };
};

describe('DynamoDB request timeouts', () => {
  it('gives every request attempt a 1 s timeout on AWS and 5 s on a local endpoint, both throwing', async () => {
    expect([
      DYNAMODB_REQUEST_TIMEOUT_MS,
      DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS,
      DYNAMODB_CONNECTION_TIMEOUT_MS,
    ]).toEqual([1_000, 5_000, 1_000]);
    expect(await configOf('https://dynamodb.eu-central-1.amazonaws.com')).toEqual({
      requestTimeout: 1_000,
      connectionTimeout: 1_000,
      throws: true,
    });
    expect(await configOf('http://127.0.0.1:8000')).toEqual({
      requestTimeout: 5_000,
      connectionTimeout: 1_000,
      throws: true,
    });
  });

  it('ends a request whose server never answers with a TimeoutError after the request timeout', async () => {
    server = createServer((socket) => void sockets.push(socket)); // accepts, never writes a byte
    await new Promise<void>((r) => server?.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const doc = createDocumentClient({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    const started = Date.now();
    const err = await doc
      .send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))
      .catch((e) => e as Error);
    doc.destroy();
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('TimeoutError');
    // Ended by the 5 s local timeout, not by anything longer (a generous upper bound for a loaded machine).
    expect(Date.now() - started).toBeGreaterThanOrEqual(DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS - 50);
    expect(Date.now() - started).toBeLessThan(DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS + 10_000);
  }, 30_000);
});
