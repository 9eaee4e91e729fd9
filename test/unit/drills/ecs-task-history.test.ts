/**
 * The `ecs-task` history the explorer once reported as I4 (a fenced write 201 ms past its lease), kept
 * with its exact outcome (unit: in memory, virtual time). The write is real and accepted: the task's
 * clock is 43.6 s slow (the skewed-lookup shape, far past the skew budget), so the lease it wrote ends
 * 16.4 s after the claim in true time while by its own clock 43.6 s are left. No lease margin can see
 * that; such a clock is off the budget, where the fences alone keep the result safe (I1, I2 hold). The
 * report came from the stopped task's own worker not carrying its environment's off-budget mark.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { ecsTaskCases, resolveEcsTask } from '../../../harness/drills/explorer/ecs-shape.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { checkInvariants } from '../../../harness/drills/explorer/invariants.js';
import {
  HISTORY_START_MS,
  type HistoryOutcome,
  runHistory,
} from '../../../harness/drills/explorer/run-history.js';
import { CLOCK_SKEW_BUDGET_MS } from '../../../lib/core/lease.js';

/** The shrunk history of seed 7 (history 1921 of `explore --runs 200000 --seed 7`). */
const SKEWED_STOP: HistorySpec = {
  skewsMs: [0, 0, 0, 0, 0],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 16572,
  deliveries: [{ job: 'report', slot: 0, worker: 1, delayMs: 0, attempt: 1, manual: true }],
  faults: [],
  shapes: {
    parallelBody: false,
    mixedWrites: false,
    lookupOnly: false,
    skewedLookup: { worker: 1, skewMs: -43629 },
    ecsTask: { stopTimeoutMs: 2000, stops: [{ delivery: 0, afterMs: 16573, spot: false }] },
  },
};

/** The same task inside the budget (clocks 0.1 s slow and fast), stopped 1 ms before its write. */
const IN_BUDGET_STOP: HistorySpec = {
  ...SKEWED_STOP,
  skewsMs: [-100, 100],
  shapes: {
    parallelBody: false,
    mixedWrites: false,
    lookupOnly: false,
    ecsTask: { stopTimeoutMs: 2000, stops: [{ delivery: 0, afterMs: 16571, spot: false }] },
  },
};

/**
 * The history as text: entries, records and summaries, each run id and UUID (execution and request ids)
 * replaced by its order of appearance, and the TTL left out (the run store sets it from the process clock).
 */
function fingerprint(o: HistoryOutcome): string {
  const ids = new Map<string, number>();
  const records = o.records.map(({ expiresAt: _ttl, ...r }) => r);
  const text = JSON.stringify([o.entries, records, o.results.map((r) => r.summary)]);
  return text.replace(/\b[0-9a-z]{9}-[0-9a-f]{10}\b|\b[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\b/g, (id) => {
    if (!ids.has(id)) ids.set(id, ids.size);
    return `id-${ids.get(id)}`;
  });
}

const results = (o: HistoryOutcome) =>
  o.results.map((r) => [
    (r.delivery as { worker?: { name: string } }).worker?.name,
    r.summary?.outcome,
    r.summary?.reason ?? null,
    r.summary?.fence ?? null,
  ]);

const businessWrites = (o: HistoryOutcome) =>
  o.entries.flatMap((e) =>
    e.kind === 'result' && e.op === 'fenced-write'
      ? [[e.worker, e.atMs - HISTORY_START_MS, e.fence, e.result]]
      : [],
  );

describe('explorer (unit): an ECS task stopped at the end of its body', () => {
  it('accepts the far-skewed task write and holds every invariant, its worker off the budget', async () => {
    const o = await runHistory(SKEWED_STOP, memoryBackend, {});
    expect(checkInvariants(o, CLOCK_SKEW_BUDGET_MS).filter((c) => !c.ok)).toEqual([]);
    expect([...o.offBudgetWorkers].sort()).toEqual(['W1', 'task-0']);
    const claim = o.entries.find(
      (e) => e.kind === 'runtime' && e.worker === 'task-0' && e.event.type === 'claim-won',
    );
    // written by the slow clock: 60 s after its reading, 16.371 s after the true claim
    expect(claim?.kind === 'runtime' && claim.event.type === 'claim-won' && claim.event.leaseUntilMs).toBe(
      HISTORY_START_MS + 16_371,
    );
    expect(businessWrites(o)).toEqual([
      ['task-0', 16_572, 1, 'ok'],
      ['sweeper', 2_416_572, 2, 'ok'],
    ]);
    // the body ended before the SIGTERM was due: no stop is sent to a settled task
    expect(o.entries.filter((e) => e.kind === 'process' && e.what === 'sigterm')).toEqual([]);
    expect(results(o)).toEqual([
      ['task-0', 'succeeded', null, 1],
      ['sweeper', 'skipped', 'already-succeeded', null],
      ['sweeper', 'succeeded', null, 2],
    ]);
    expect(o.records.map((r) => `${r.outcome}/${r.reason ?? ''}`).sort()).toEqual([
      'skipped/already-succeeded',
      'succeeded/',
      'succeeded/',
    ]);
    expect(o.unsettled).toBe(0);
    expect(o.provider.executions).toEqual([]);
  });

  it('replays the same history 50 times in one process with the same entries', async () => {
    const first = fingerprint(await runHistory(SKEWED_STOP, memoryBackend, {}));
    let same = 0;
    for (let i = 0; i < 50; i++)
      if (fingerprint(await runHistory(SKEWED_STOP, memoryBackend, {})) === first) same++;
    expect(same).toBe(50);
    expect(first).toContain('"fenced-write"');
  });

  it('records failed / terminated and releases when the SIGTERM lands 1 ms before the write', async () => {
    const o = await runHistory(IN_BUDGET_STOP, memoryBackend, {});
    expect(checkInvariants(o, CLOCK_SKEW_BUDGET_MS).filter((c) => !c.ok)).toEqual([]);
    expect([...o.offBudgetWorkers]).toEqual([]);
    expect(businessWrites(o).filter(([w]) => w === 'task-0')).toEqual([]);
    const task = o.entries
      .filter((e) => e.worker === 'task-0' && e.kind === 'result')
      .map((e) => e.kind === 'result' && [e.op, e.atMs - HISTORY_START_MS, e.result]);
    expect(task).toEqual([
      ['claim', 0, 'ok'],
      ['run-record', 16_571, 'ok'],
      ['release', 16_571, 'ok'],
    ]);
    expect(results(o)).toEqual([
      ['task-0', 'failed', 'terminated', 1],
      ['sweeper', 'succeeded', null, 2],
      ['sweeper', 'succeeded', null, 3],
    ]);
  });
});

/** A task partitioned from DynamoDB with its first write stuck for 61 s, stopped (2 s) at 30 s. */
const PARTITIONED_STOP: HistorySpec = {
  skewsMs: [-100, 100],
  provider: { idempotencyKeys: false, lookup: false, dropResponses: [] },
  workMs: 1000,
  deliveries: [{ job: 'report', slot: 0, worker: 1, delayMs: 0, attempt: 1, manual: false }],
  faults: [{ kind: 'partition', worker: 1, ms: 61_000 }],
  shapes: {
    parallelBody: false,
    mixedWrites: false,
    lookupOnly: false,
    ecsTask: { stopTimeoutMs: 2000, stops: [{ delivery: 0, afterMs: 30_000, spot: false }] },
  },
};

describe('explorer (unit): a stopped ECS task in a partitioned environment', () => {
  it('gets the partition too: its record and release fail, it exits before SIGKILL, the sweeper records it abandoned', async () => {
    const o = await runHistory(PARTITIONED_STOP, memoryBackend, {});
    expect(checkInvariants(o, CLOCK_SKEW_BUDGET_MS).filter((c) => !c.ok)).toEqual([]);
    const task = o.entries.filter((e) => e.worker === 'task-0');
    const sent = (op: string) => task.filter((e) => e.kind === 'request' && e.op === op).length;
    const accepted = task.flatMap((e) =>
      e.kind === 'result' && e.result === 'ok' ? [[e.op, e.atMs - HISTORY_START_MS]] : [],
    );
    // the claim, and the business write stuck in the network since 1 s, applied at 62 s
    expect(accepted).toEqual([
      ['claim', 0],
      ['fenced-write', 62_000],
    ]);
    expect([sent('renew') > 0, sent('run-record') > 0, sent('release') > 0]).toEqual([true, true, true]);
    expect(task.filter((e) => e.kind === 'process').map((e) => e.kind === 'process' && e.what)).toEqual([
      'skew',
      'deliver',
      'sigterm',
    ]);
    expect(o.results[0]?.error?.name).toBe('StoreError'); // the entry exits 1, no record written
    expect(results(o)).toEqual([
      ['task-0', undefined, null, null],
      ['sweeper', 'succeeded', null, 2],
      ['sweeper', 'succeeded', null, 3],
    ]);
    expect(o.records.map((r) => [r.outcome, r.reason ?? null, r.fence])).toEqual([
      ['abandoned', 'not-released', 1],
      ['succeeded', null, 2],
      ['succeeded', null, 3],
    ]);
    expect(businessWrites(o)).toEqual([
      ['task-0', 62_000, 1, 'ok'],
      ['sweeper', 1_201_000, 2, 'ok'],
      ['sweeper', 2_401_000, 3, 'ok'],
    ]);
  });
});

describe('explorer (unit): the ecs-task arbitrary', () => {
  it('places a stop near the end at workMs + nearEndMs and puts the clocks at the budget edges', () => {
    const r = resolveEcsTask(
      {
        stopTimeoutMs: 2_000,
        stops: [
          { delivery: 0, afterMs: 9_999, nearEndMs: -250, spot: false },
          { delivery: 1, afterMs: 777, nearEndMs: null, spot: true },
        ],
        edgeClocks: true,
      },
      16_572,
      [12, -40, 3],
      100,
    );
    expect(r).toEqual({
      ecsTask: {
        stopTimeoutMs: 2_000,
        stops: [
          { delivery: 0, afterMs: 16_322, spot: false },
          { delivery: 1, afterMs: 777, spot: true },
        ],
      },
      skewsMs: [-100, 100, -100],
    });
    expect(ecsTaskCases({ workMs: 16_572, skewsMs: r.skewsMs, shapes: { ecsTask: r.ecsTask } })).toEqual([
      'ecs-task: 2 s stop timeout',
      'ecs-task: SIGTERM at the body end',
      'ecs-task: clocks at the budget edges',
    ]);
  });
});
