/**
 * An SDK retry strategy with the DynamoDB client's attempt count whose backoff waits through a given
 * `sleep` (virtual time in drills), so a drill's throttled request retries like production — same
 * attempts, same error classes — without real seconds of backoff.
 */

/** The SDK's classification of a failed attempt. */
interface RetryErrorInfo {
  readonly errorType: 'TRANSIENT' | 'THROTTLING' | 'SERVER_ERROR' | 'CLIENT_ERROR';
}

/** A retry token as the SDK's retry middleware reads it. */
interface Token {
  getRetryCount(): number;
  getRetryDelay(): number;
  getRetryCost(): number | undefined;
}

const token = (count: number): Token => ({
  getRetryCount: () => count,
  getRetryDelay: () => 0, // the wait already happened in `sleep`
  getRetryCost: () => undefined,
});

/**
 * A RetryStrategyV2 for `DynamoDBClient({ retryStrategy })`.
 * @param options.maxAttempts attempts per request. @default 4 (the DynamoDB client's default)
 * @param options.sleep how to wait between attempts (backoff 50 ms x 2^n, throttling 500 ms x 2^n)
 */
export function sleepingRetryStrategy(options: {
  maxAttempts?: number;
  sleep: (ms: number) => Promise<void>;
}) {
  const max = options.maxAttempts ?? 4;
  return {
    mode: 'standard',
    acquireInitialRetryToken: async () => token(0),
    refreshRetryTokenForRetry: async (t: Token, info: RetryErrorInfo): Promise<Token> => {
      const next = t.getRetryCount() + 1;
      if (info.errorType === 'CLIENT_ERROR' || next >= max) throw new Error('No retry token available');
      await options.sleep((info.errorType === 'THROTTLING' ? 500 : 50) * 2 ** (next - 1));
      return token(next);
    },
    recordSuccess: () => undefined,
  };
}
