/**
 * Throttling drills: ProvisionedThroughputExceededException at each protocol step — twice per step
 * (absorbed by the SDK's retries), and on every attempt of one step (the step fails; what then?).
 */
import { PROTOCOL_STEPS, type ProtocolOp } from '../../faults/protocol-ops.js';
import { on, throttlingError } from '../../faults/sdk-faults.js';
import { check, noWriteAfterFinish } from '../checks.js';
import type { Drill, DrillContext } from '../types.js';
import { leaseMs, nthCall, recordIs, recordOf, recordsMatch, show } from './helpers.js';

/** Every protocol step throttled twice: the SDK's retries absorb it. */
export const throttlingAbsorbed: Drill = {
  name: 'throttling-absorbed-at-every-step',
  injected: `2 ProvisionedThroughputExceededException on each of ${PROTOCOL_STEPS.filter((s) => s !== 'insert-once').join(', ')} (report job, body 25 s so it renews)`,
  expected:
    'the SDK retries each request (4 attempts): succeeded fence 1 with renewals ok, one report, one record',
  async run(ctx) {
    const h = ctx.fenced;
    const a = ctx.stage.worker('A');
    a.pauses.add({ name: 'slow body: 25 s', at: 'before-write', action: () => a.clock.sleep(25_000) });
    for (const step of PROTOCOL_STEPS)
      a.faults.add({
        name: `throttle ${step}`,
        match: on.op(step),
        action: { kind: 'fail', error: throttlingError },
        times: 2,
      });
    const ra = ctx.send(a, h, { label: 'A' });
    await ctx.stage.run();
    const A = await ra;
    const records = await ctx.tables.runRecords(h.job.name);
    const renewals = ctx.stage.recorder.events('renew');
    const fired = a.faults.fired.length;
    return {
      observed: `${fired} throttles injected; A ${show(recordOf(records, A.summary?.runId))}; ${renewals.filter((r) => r.ok).length}/${renewals.length} renewals ok`,
      jobs: [h],
      checks: [
        check(
          '10 throttles fired (2 x claim, renew, fenced write, run record, release)',
          fired === 10,
          `${fired} fired: ${a.faults.fired.map((f) => f.rule).join(', ')}`,
        ),
        recordIs('A', recordOf(records, A.summary?.runId), { outcome: 'succeeded', fence: 1 }),
        check(
          'renewals succeeded after retries',
          renewals.length > 0 && renewals.every((r) => r.ok),
          `${renewals.length} renewals`,
        ),
        recordsMatch([A], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

interface StepPlan {
  readonly job: 'fenced' | 'insertOnce';
  /** Attempts throttled (4 = one request's every SDK attempt). */
  readonly times: number;
  readonly expected: string;
  /** A's record. */
  readonly a: { outcome: string; reason?: string; fence?: number };
  /** When retry B is delivered (ms after A), given the lease. */
  readonly retryAfterMs: (leaseMs: number) => number;
  /** A's body stalls this long before its 2nd write (so it needs renewals). */
  readonly slowMs?: number;
}

const PLANS: Record<Exclude<ProtocolOp, 'read' | 'other' | 'effect' | 'mark-abandoned'>, StepPlan> = {
  claim: {
    job: 'fenced',
    times: 4,
    expected: 'A cannot claim: failed/store-error (no fence) and throws so Lambda retries; B claims fence 1',
    a: { outcome: 'failed', reason: 'store-error' },
    retryAfterMs: () => 60_000,
  },
  renew: {
    job: 'insertOnce',
    times: 1_000_000,
    slowMs: 130_000,
    expected:
      'A keeps retrying renewals, stops when its lease lapses: stale/lease-lost, no write after; B takes over fence 2',
    a: { outcome: 'stale', reason: 'lease-lost', fence: 1 },
    retryAfterMs: (l) => l + 15_000,
  },
  'fenced-write': {
    job: 'fenced',
    times: 4,
    expected:
      'A failed/store-error, lease released, throws for a retry; B claims fence 2 and writes the report',
    a: { outcome: 'failed', reason: 'store-error', fence: 1 },
    retryAfterMs: () => 60_000,
  },
  'insert-once': {
    job: 'insertOnce',
    times: 4,
    expected: 'A failed/store-error before any row, lease released; B claims fence 2 and inserts every row',
    a: { outcome: 'failed', reason: 'store-error', fence: 1 },
    retryAfterMs: () => 60_000,
  },
  'run-record': {
    job: 'fenced',
    times: 8,
    expected:
      'A cannot record (nor record its failure) and keeps the lease; B after the lease marks A abandoned, claims fence 2',
    a: { outcome: 'abandoned', reason: 'not-released', fence: 1 },
    retryAfterMs: (l) => l + 5_000,
  },
  release: {
    job: 'fenced',
    times: 4,
    expected:
      'A recorded succeeded and reports succeeded (the lease expires by itself); late B re-runs harmlessly at fence 2',
    a: { outcome: 'succeeded', fence: 1 },
    retryAfterMs: (l) => l + 5_000,
  },
};

/** One protocol step throttled on every attempt of its first request(s). */
export function throttledStep(step: keyof typeof PLANS): Drill {
  const plan = PLANS[step];
  return {
    name: `throttling-persistent-${step}`,
    injected: `ProvisionedThroughputExceededException on ${plan.times >= 1_000 ? 'every' : plan.times} ${step} attempt${plan.times === 1 ? '' : 's'} of run A (SDK retries exhausted)`,
    expected: plan.expected,
    async run(ctx: DrillContext) {
      const h = plan.job === 'fenced' ? ctx.fenced : ctx.insertOnce;
      const a = ctx.stage.worker('A');
      const b = ctx.stage.worker('B');
      if (plan.slowMs !== undefined) {
        const ms = plan.slowMs;
        a.pauses.add({
          name: `slow body: ${ms / 1000} s`,
          at: 'before-write',
          when: nthCall(2),
          action: () => a.clock.sleep(ms),
        });
      }
      a.faults.add({
        name: `throttle ${step}`,
        match: on.op(step),
        action: { kind: 'fail', error: throttlingError },
        times: plan.times,
      });
      const ra = ctx.send(a, h, { label: 'A' });
      const rb = ctx.send(b, h, { label: 'B retry', attempt: 2, delayMs: plan.retryAfterMs(leaseMs(h)) });
      await ctx.stage.run();
      const [A, B] = [await ra, await rb];
      const records = await ctx.tables.runRecords(h.job.name);
      const aId = A.summary?.runId ?? ctx.runIdsOf(a)[0];
      const bFence = step === 'claim' ? 1 : 2;
      return {
        observed: `A ${show(recordOf(records, aId))}${A.error ? ` (threw ${A.error.name})` : ''}; B ${show(recordOf(records, B.summary?.runId))}; ${a.faults.fired.length} throttles`,
        jobs: [h],
        checks: [
          recordIs('A', recordOf(records, aId), plan.a),
          check(
            'A threw for a Lambda retry exactly when it did not finish',
            (A.error !== undefined) === (plan.a.outcome !== 'succeeded' && plan.a.outcome !== 'stale'),
            A.error
              ? `threw ${A.error.name}: ${A.error.message.slice(0, 80)}`
              : `returned ${A.summary?.outcome}`,
          ),
          noWriteAfterFinish(ctx.stage.recorder.entries),
          recordIs('B', recordOf(records, B.summary?.runId), { outcome: 'succeeded', fence: bFence }),
          recordsMatch(step === 'run-record' ? [B] : [A, B], records),
          ...(await ctx.verifyApp([h])),
        ],
      };
    },
  };
}

/** Persistent-throttling drills for every protocol step. */
export const throttlingPerStep: readonly Drill[] = (Object.keys(PLANS) as (keyof typeof PLANS)[]).map(
  throttledStep,
);
