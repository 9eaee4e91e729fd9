/**
 * Integ: waiting for DynamoDB Local to answer (every local run's first step) leaves no abort listener
 * per poll behind (on Node 20 ten of them print a MaxListenersExceededWarning before every local run
 * whose Java takes over 2 s to start), and names the endpoint when it never answers.
 */
import getPort from 'get-port';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitUntilReady } from '../../harness/local/dynamodb-local.js';

describe('waitUntilReady', () => {
  afterEach(() => vi.restoreAllMocks());

  it('polls an endpoint that never answers for 3 s with at most one abort listener on any signal, then names it', async () => {
    const active = new Map<AbortSignal, number>();
    let most = 0;
    const add = AbortSignal.prototype.addEventListener;
    vi.spyOn(AbortSignal.prototype, 'addEventListener').mockImplementation(function (
      this: AbortSignal,
      ...args: Parameters<AbortSignal['addEventListener']>
    ) {
      if (args[0] === 'abort') {
        const n = (active.get(this) ?? 0) + 1;
        active.set(this, n);
        most = Math.max(most, n);
      }
      return add.apply(this, args);
    });
    const port = await getPort({ host: '127.0.0.1' });
    await expect(waitUntilReady(`http://127.0.0.1:${port}`, 3_000)).rejects.toThrow(
      new RegExp(`^DynamoDB Local at http://127\\.0\\.0\\.1:${port} did not answer within 3000 ms: `),
    );
    expect(most).toBeLessThanOrEqual(1);
  });
});
