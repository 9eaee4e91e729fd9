/**
 * The run records the operator API's and the CLI's run listings are tested on (integ, DynamoDB Local):
 * seven attempts of two jobs around `nowMs` — a succeeded, failed, retried and lease-held slot of
 * `daily-report`; a stale, an abandoned and an old failed run of `merchant-settlement`.
 */
import type { RunRecord } from '../../lib/core/ports.js';
import { DynamoRunStore } from '../../lib/store/run-store.js';
import type { LocalStack } from './local-stack.js';

const HOUR = 3_600_000;

/** Write run records as the runtime does (same item shape, sparse-index attributes, TTL). */
export async function seedRuns(stack: LocalStack, records: readonly RunRecord[]): Promise<void> {
  const store = new DynamoRunStore(stack.doc, stack.tableName);
  for (const r of records) await store.put(r, 30);
}

/** A run record with defaults for the fields a test does not care about. */
export function runRecord(
  r: Partial<RunRecord> & Pick<RunRecord, 'job' | 'slot' | 'runId' | 'outcome' | 'startedAtMs'>,
): RunRecord {
  return {
    scheduledTime: '2026-03-28T01:30:00Z',
    businessDate: r.slot.slice(0, 10),
    trigger: 'schedule',
    finishedAtMs: r.startedAtMs + 100,
    durationMs: 100,
    ...r,
  };
}

/**
 * Seed the listing fixture: runs r1..r4 of `daily-report` (r2 failed with `Error: boom`), m1..m3 of
 * `merchant-settlement`, each started some hours before `now` (epoch ms).
 */
export async function seedListingRuns(stack: LocalStack, now: number): Promise<void> {
  const err = { name: 'Error', message: 'boom' };
  await seedRuns(stack, [
    runRecord({
      job: 'daily-report',
      slot: '2026-03-27T02:30',
      runId: 'r1',
      outcome: 'succeeded',
      fence: 1,
      startedAtMs: now - 72 * HOUR,
    }),
    runRecord({
      job: 'daily-report',
      slot: '2026-03-28T02:30',
      runId: 'r2',
      outcome: 'failed',
      reason: 'error',
      fence: 2,
      error: err,
      startedAtMs: now - 2 * HOUR,
    }),
    runRecord({
      job: 'daily-report',
      slot: '2026-03-28T02:30',
      runId: 'r3',
      outcome: 'succeeded',
      trigger: 'retry',
      fence: 3,
      startedAtMs: now - HOUR,
    }),
    runRecord({
      job: 'daily-report',
      slot: '2026-03-28T02:30',
      runId: 'r4',
      outcome: 'skipped',
      reason: 'lease-held',
      startedAtMs: now - HOUR + 1,
      holderSeen: { runId: 'r3', slot: '2026-03-28T02:30', leaseUntilMs: now, fence: 3 },
    }),
    runRecord({
      job: 'merchant-settlement',
      slot: '2026-03-29T01:00',
      runId: 'm1',
      outcome: 'stale',
      reason: 'stale-fence',
      fence: 5,
      startedAtMs: now - HOUR / 2,
    }),
    runRecord({
      job: 'merchant-settlement',
      slot: '2026-03-28T01:00',
      runId: 'm2',
      outcome: 'abandoned',
      reason: 'not-released',
      fence: 4,
      startedAtMs: now - 3 * HOUR,
    }),
    runRecord({
      job: 'merchant-settlement',
      slot: '2026-03-20T01:00',
      runId: 'm3',
      outcome: 'failed',
      reason: 'error',
      fence: 1,
      startedAtMs: now - 72 * HOUR,
    }),
  ]);
}
