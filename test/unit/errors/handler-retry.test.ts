/**
 * Unit (in-memory store, virtual time): a claimed run's failure is recorded `failed`, and the error's
 * category decides whether the Lambda handler rethrows it so that Lambda retries the event.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDeps } from '../../../harness/drills/memory-deps.js';
import { Stage } from '../../../harness/drills/stage.js';
import { MemoryDb } from '../../../harness/memory/index.js';
import {
  IdempotencyConflictError,
  InvalidArgumentError,
  ResultConflictError,
  StoreError,
} from '../../../lib/errors.js';
import { defineJob } from '../../../lib/runtime/define-job.js';

const T0 = Date.parse('2026-03-28T01:30:05Z');
const SLOT = Date.parse('2026-03-28T01:30:00Z');

/** Run one delivery of a job whose body throws `thrown`; the summary and the error the handler threw. */
async function failWith(thrown: Error) {
  let db: MemoryDb | undefined;
  const stage = new Stage(T0, (p) =>
    createMemoryDeps({ db: db as MemoryDb, clock: p.clock, faults: p.faults, pausePoint: p.pausePoint }),
  );
  db = new MemoryDb(() => stage.time.nowMs);
  const job = defineJob({
    name: 'retry-rule',
    schedule: 'cron(30 1 * * ? *)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    run: async () => {
      throw thrown;
    },
  });
  const worker = stage.worker('A');
  const r = stage.deliver({ worker, handler: job, job: 'retry-rule', scheduledTimeMs: SLOT, label: 'A' });
  await stage.run();
  const { summary, error } = await r;
  const lease = db.scan('cronfence').find((i) => i.sk === 'LEASE');
  return {
    outcome: summary?.outcome,
    reason: summary?.reason,
    rethrown: error?.name,
    holder: lease?.holderState,
  };
}

describe("the handler's rethrow decision", () => {
  it.each([
    ['a body’s own error', new Error('downstream unavailable'), 'error', 'Error'],
    [
      'a transient StoreError',
      new StoreError('PutItem (rows)', new Error('throttled')),
      'store-error',
      'StoreError',
    ],
    ['a conflict (IdempotencyConflictError)', new IdempotencyConflictError('k1'), 'error', undefined],
    ['a conflict (ResultConflictError)', new ResultConflictError('rows k exists'), 'error', undefined],
    [
      'an input error (InvalidArgumentError)',
      new InvalidArgumentError('key', '', 'empty'),
      'error',
      undefined,
    ],
  ])(
    'records %s as failed, releases the lease, and rethrows it only when a retry can help',
    async (_what, thrown, reason, rethrown) => {
      expect(await failWith(thrown)).toEqual({ outcome: 'failed', reason, rethrown, holder: 'released' });
    },
  );
});
