/**
 * The overlap invariants O1-O4 can fail (unit: hand-made observations, no store): each is fed the
 * observation a broken protocol would leave — a claim while another run holds the lease, a renewal
 * after a replace, a displaced holder's accepted write and provider call, a slot succeeding before its
 * predecessor, a buffered occurrence that never ran — and names it exactly; the same observation with
 * the protocol's answer (refused, later, ran) passes.
 */
import { describe, expect, it } from 'vitest';
import { checkOverlap } from '../../../harness/drills/explorer/overlap-invariants.js';
import type { HistoryOutcome } from '../../../harness/drills/explorer/run-history.js';
import type { SendCall } from '../../../harness/drills/explorer/shapes.js';
import type { Recorded } from '../../../harness/report/recording.js';
import type { OverlapPolicyName } from '../../../lib/core/overlap.js';

const T0 = Date.parse('2026-01-05T00:00:00Z');
const S = 1000;
const BUDGET = 2_000;
const iso = (ms: number) => new Date(ms).toISOString();

const base = { job: 'ex-settle', slot: '2026-01-05T00:00Z', trigger: 'schedule' };

function claim(runId: string, fence: number, atMs: number, slot = base.slot): Recorded {
  return {
    kind: 'runtime',
    atMs,
    worker: runId,
    event: {
      ...base,
      slot,
      runId,
      fence,
      atMs,
      type: 'claim-won',
      leaseUntilMs: atMs + 60 * S,
      ownWrite: false,
    },
  };
}

function request(
  runId: string,
  op: 'renew' | 'insert-once' | 'effect',
  atMs: number,
  result: string,
  key = '{}',
) {
  const q: Recorded = {
    kind: 'request',
    atMs,
    worker: runId,
    op,
    command: 'PutItemCommand',
    key,
    runId,
    fence: 1,
  };
  const r: Recorded = { kind: 'result', atMs: atMs + 10, worker: runId, op, key, runId, fence: 1, result };
  return [q, r];
}

function recording(runId: string, outcome: string, atMs: number): Recorded {
  return {
    kind: 'runtime',
    atMs,
    worker: runId,
    event: { ...base, runId, atMs, type: 'recording', outcome },
  };
}

function outcome(
  overlap: OverlapPolicyName,
  entries: Recorded[],
  records: Record<string, unknown>[] = [],
  sends: SendCall[] = [],
): HistoryOutcome {
  return {
    entries,
    records,
    sends,
    overlap,
    results: [],
    unsettled: 0,
    backend: 'memory',
    offBudgetWorkers: new Set<string>(),
  } as unknown as HistoryOutcome;
}

const failures = (o: HistoryOutcome) =>
  checkOverlap(o, BUDGET)
    .filter((c) => !c.ok)
    .map((c) => `${c.name}: ${c.detail}`);

describe('O1 never two live holders', () => {
  it('names a claim accepted while another run holds the lease (skip)', () => {
    expect(failures(outcome('skip', [claim('run-a', 1, T0), claim('run-b', 2, T0 + 10 * S)]))).toEqual([
      'O1 never two live holders: run-b claimed JOB#ex-settle (fence 2) while run-a held it 50 s more (skip)',
    ]);
    expect(failures(outcome('skip', [claim('run-a', 1, T0), claim('run-b', 2, T0 + 61 * S)]))).toEqual([]);
  });

  it('names a replace that does not raise the fence, and a renewal accepted after a replace', () => {
    expect(failures(outcome('replace', [claim('run-a', 3, T0), claim('run-b', 3, T0 + 10 * S)]))).toEqual([
      'O1 never two live holders: run-b replaced run-a without raising the fence (3 ≤ 3)',
    ]);
    const renewed = [
      claim('run-a', 1, T0),
      claim('run-b', 2, T0 + 10 * S),
      ...request('run-a', 'renew', T0 + 20 * S, 'ok'),
    ];
    expect(failures(outcome('replace', renewed))).toEqual([
      'O1 never two live holders: run-a (fence 1) renewed after run-b claimed fence 2',
    ]);
    const refused = [
      claim('run-a', 1, T0),
      claim('run-b', 2, T0 + 10 * S),
      ...request('run-a', 'renew', T0 + 20 * S, 'LeaseLostError'),
    ];
    expect(failures(outcome('replace', refused))).toEqual([]);
  });
});

describe('O2 no write or send by a displaced holder after its displacement', () => {
  const key = '{"pk":"JOB#ex-settle","sk":"EFFECT#pay#2026-01-05T00:00Z#0"}';
  const displaced = [claim('run-a', 1, T0), claim('run-b', 2, T0 + 10 * S)];

  it('names an accepted insert-once and a provider call without a sending mark from before', () => {
    const o = outcome(
      'replace',
      [...displaced, ...request('run-a', 'insert-once', T0 + 30 * S, 'ok', '{"id":"2026-01-05T00:00Z#1"}')],
      [],
      [{ runId: 'run-a', key: 'pay#2026-01-05T00:00Z#0', atMs: T0 + 31 * S }],
    );
    expect(failures(o)).toEqual([
      'O2 no write or send by a displaced holder after its displacement: run-a insert-once {"id":"2026-01-05T00:00Z#1"} accepted 20.0 s after its displacement; run-a called the provider for pay#2026-01-05T00:00Z#0 21.0 s after its displacement',
    ]);
  });

  it('passes a refused write and a call under a sending mark accepted before the displacement', () => {
    const o = outcome(
      'replace',
      [
        claim('run-a', 1, T0),
        ...request('run-a', 'effect', T0 + 5 * S, 'ok', key),
        claim('run-b', 2, T0 + 10 * S),
        ...request('run-a', 'insert-once', T0 + 30 * S, 'StaleFenceError'),
      ],
      [],
      [{ runId: 'run-a', key: 'pay#2026-01-05T00:00Z#0', atMs: T0 + 11 * S }],
    );
    expect(failures(o)).toEqual([]);
  });
});

describe('O3 and O4', () => {
  const slot0 = iso(T0);
  const slot1 = iso(T0 + 5 * 60 * S);

  it('names a slot that succeeded before its predecessor (after-previous); the first success starts the chain', () => {
    const slot2 = iso(T0 + 10 * 60 * S);
    const entries = [
      claim('run-0', 1, T0),
      recording('run-0', 'succeeded', T0 + 10 * S),
      claim('run-1', 2, T0 + 300 * S, '2026-01-05T00:05Z'),
      recording('run-1', 'failed', T0 + 320 * S),
      claim('run-2', 3, T0 + 600 * S, '2026-01-05T00:10Z'),
      recording('run-2', 'succeeded', T0 + 610 * S),
      claim('run-1b', 4, T0 + 1200 * S, '2026-01-05T00:05Z'),
      recording('run-1b', 'succeeded', T0 + 1210 * S),
    ];
    const records = [
      { job: 'ex-settle', runId: 'run-0', scheduledTime: slot0, outcome: 'succeeded' },
      { job: 'ex-settle', runId: 'run-1', scheduledTime: slot1, outcome: 'failed', reason: 'error' },
      { job: 'ex-settle', runId: 'run-2', scheduledTime: slot2, outcome: 'succeeded' },
      { job: 'ex-settle', runId: 'run-1b', scheduledTime: slot1, outcome: 'succeeded' },
    ];
    expect(failures(outcome('after-previous', entries, records))).toEqual([
      `O3 under after-previous, no slot succeeds before its predecessor: ${slot2} claimed 610.0 s before its predecessor succeeded`,
    ]);
    // The same history under skip is not O3's business; in order (slot 2 after slot 1), it holds.
    expect(failures(outcome('skip', entries, records))).toEqual([]);
    const inOrder = [
      ...entries.slice(0, 4),
      ...entries.slice(6),
      claim('run-2', 3, T0 + 1300 * S, '2026-01-05T00:10Z'),
      recording('run-2', 'succeeded', T0 + 1310 * S),
    ];
    expect(failures(outcome('after-previous', inOrder, records))).toEqual([]);
  });

  it('names a slot before the chain’s start that succeeded after it; with catchUp.since judges the first success', () => {
    const entries = [
      claim('run-1', 1, T0 + 300 * S, '2026-01-05T00:05Z'),
      recording('run-1', 'succeeded', T0 + 310 * S),
      claim('run-0', 2, T0 + 600 * S),
      recording('run-0', 'succeeded', T0 + 610 * S),
    ];
    const records = [
      { job: 'ex-settle', runId: 'run-1', scheduledTime: slot1, outcome: 'succeeded' },
      { job: 'ex-settle', runId: 'run-0', scheduledTime: slot0, outcome: 'succeeded' },
    ];
    expect(failures(outcome('after-previous', entries, records))).toEqual([
      `O3 under after-previous, no slot succeeds before its predecessor: ${slot0} succeeded after the chain started at ${slot1}`,
    ]);
    expect(failures({ ...outcome('after-previous', entries, records), overlapSince: true })).toEqual([
      `O3 under after-previous, no slot succeeds before its predecessor: ${slot1} claimed 310.0 s before its predecessor succeeded`,
    ]);
  });

  it('names a buffered occurrence that never ran, and passes one that ran', () => {
    const buffered = { job: 'ex-settle', runId: 'run-2', scheduledTime: slot1, outcome: 'buffered' };
    expect(failures(outcome('buffer-one', [], [buffered]))).toEqual([
      `O4 every buffered occurrence ends succeeded or with a counted problem: never ended: ex-settle ${slot1}: buffered/`,
    ]);
    const ran = { job: 'ex-settle', runId: 'run-3', scheduledTime: slot1, outcome: 'succeeded' };
    expect(failures(outcome('buffer-one', [], [buffered, ran]))).toEqual([]);
    const full = {
      job: 'ex-settle',
      runId: 'run-4',
      scheduledTime: slot1,
      outcome: 'skipped',
      reason: 'buffer-full',
    };
    expect(failures(outcome('buffer-all', [], [buffered, full]))).toEqual([]);
  });
});
