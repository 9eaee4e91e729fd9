/**
 * A sample of explorer histories on DynamoDB Local: the same generated histories and invariants as
 * the in-memory exploration (test/unit/drills/explorer.test.ts), against the real DynamoDB stores.
 */
import { describe, expect, inject, it } from 'vitest';
import { dynamoBackend } from '../../harness/drills/explorer/backends.js';
import { explore } from '../../harness/drills/explorer/explore.js';
import { INVARIANTS } from '../../harness/drills/explorer/invariants.js';

describe('history explorer on DynamoDB Local', () => {
  it('runs 6 seeded histories on the DynamoDB stores and every invariant holds in each', async () => {
    const backend = dynamoBackend({
      endpoint: inject('dynamoEndpoint'),
      description: 'shared',
      stop: async () => undefined,
    });
    const report = await explore({ runs: 6, seed: 424_242, backend });
    expect(report.failure?.message).toBeUndefined();
    expect(report.histories).toBe(6);
    expect(report.checks).toBe(6 * INVARIANTS.length);
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 300_000); // six histories of virtual hours on DynamoDB Local: ~20 s idle, minutes at load 25
});
