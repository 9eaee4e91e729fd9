/**
 * What each overlap policy costs in DynamoDB requests (bench/protocol-cost.ts): per successful run and
 * per duplicate on the normal path (the lease free, or held by the same slot), and on each policy's own
 * path — an arrival meeting a holder of another slot (skipped / overlap, buffered, buffer-full,
 * replacing, waiting-for-previous), the holder that hands over to a buffered slot, and the displaced
 * holder of a replace. Each case is counted on the meter of the worker that ran it.
 */
import type { OverlapOption, OverlapPolicyName } from '../../lib/core/overlap.js';
import { benchJob, benchWorker, deliverSlot, slotMs } from './jobs.js';
import type { BenchDynamo } from './local.js';
import type { MeterSnapshot } from './meter.js';
import { round } from './report.js';

/** The policies measured, with the option each job gets. */
export const POLICY_OPTIONS: readonly [OverlapPolicyName, OverlapOption][] = [
  ['skip', 'skip'],
  ['buffer-one', 'buffer-one'],
  ['buffer-all', { policy: 'buffer-all', maxBuffered: 2 }],
  ['replace', 'replace'],
  ['after-previous', 'after-previous'],
];

const WARM = 40; // > rememberSlots (32): a full done set
const MEASURED = 20;

/** Writes, reads and WCU per case, with the outcome each case recorded. */
export interface CaseCost {
  readonly writes: number;
  readonly reads: number;
  readonly wcu: number;
  /** `outcome[/reason]` of the measured invocations (the first one's). */
  readonly outcome: string;
}

const cost = (s: MeterSnapshot, n: number, outcome: string): CaseCost => ({
  writes: round(s.writes / n),
  reads: round(s.reads / n),
  wcu: round(s.wcu / n),
  outcome,
});

const outcomeOf = (r: Awaited<ReturnType<typeof deliverSlot>>) =>
  r.summary ? `${r.summary.outcome}${r.summary.reason ? `/${r.summary.reason}` : ''}` : `threw ${r.error}`;

/** One policy's costs. */
export interface PolicyCost {
  readonly policy: OverlapPolicyName;
  readonly successfulRun: CaseCost;
  readonly duplicateLeaseHeld: CaseCost;
  /** Own paths, by name (`arrival while another slot holds`, `second arrival`, `holder`). */
  readonly own: Readonly<Record<string, CaseCost>>;
}

/** Measure every policy of {@link POLICY_OPTIONS} on `dyn`. */
export async function overlapCosts(dyn: BenchDynamo): Promise<PolicyCost[]> {
  const out: PolicyCost[] = [];
  for (const [policy, overlap] of POLICY_OPTIONS) {
    const gates = new Map<number, Promise<void>>();
    const job = benchJob(
      `bench-ov-${policy}`,
      async (ctx) => {
        await gates.get(ctx.slot.scheduledTimeMs);
      },
      { overlap },
    );
    const a = benchWorker(dyn);
    const b = benchWorker(dyn);
    for (let i = 0; i < WARM; i++) await deliverSlot(job, a.deps, i);
    a.meter.reset();
    let first = '';
    for (let i = WARM; i < WARM + MEASURED; i++) {
      const r = await deliverSlot(job, a.deps, i);
      first ||= outcomeOf(r);
      if (r.summary?.outcome !== 'succeeded') throw new Error(`${policy}: run ${i} ${outcomeOf(r)}`);
    }
    const successfulRun = cost(a.meter.snapshot(), MEASURED, first);

    // The holder of slot h waits in its body; duplicates of h, then arrivals of later slots.
    const h = WARM + MEASURED;
    let open: () => void = () => undefined;
    gates.set(
      slotMs(h),
      new Promise<void>((r) => {
        open = r;
      }),
    );
    a.meter.reset();
    const holder = deliverSlot(job, a.deps, h);
    await new Promise((r) => setTimeout(r, 200));
    b.meter.reset();
    first = '';
    for (let i = 0; i < MEASURED; i++) {
      const r = await deliverSlot(job, b.deps, h, { label: 'duplicate' });
      first ||= outcomeOf(r);
      if (r.summary?.reason !== 'lease-held') throw new Error(`${policy}: duplicate ${outcomeOf(r)}`);
    }
    const duplicateLeaseHeld = cost(b.meter.snapshot(), MEASURED, first);
    const own: Record<string, CaseCost> = {};
    for (const [name, slot] of [
      ['arrival of the next slot while the holder runs', h + 1],
      ['arrival of the slot after it', h + 2],
    ] as const) {
      b.meter.reset();
      const r = await deliverSlot(job, b.deps, slot, { label: name });
      own[name] = cost(b.meter.snapshot(), 1, outcomeOf(r));
    }
    open();
    const held = await holder;
    own['holder (waited in its body)'] = cost(a.meter.snapshot(), 1, outcomeOf(held));
    out.push({ policy, successfulRun, duplicateLeaseHeld, own });
  }
  return out;
}

/** The rows protocol-cost prints: the normal path against its targets, then each own path. */
export function overlapRows(costs: readonly PolicyCost[]) {
  return costs.flatMap((c) => [
    {
      figure: `${c.policy}: successful run / duplicate (lease held), writes / reads`,
      value: `${c.successfulRun.writes} / ${c.successfulRun.reads}; ${c.duplicateLeaseHeld.writes} / ${c.duplicateLeaseHeld.reads}`,
      target: '<= 3 / 0; <= 2 / 0',
      met:
        c.successfulRun.writes <= 3 &&
        c.successfulRun.reads === 0 &&
        c.duplicateLeaseHeld.writes <= 2 &&
        c.duplicateLeaseHeld.reads === 0,
    },
    ...Object.entries(c.own).map(([name, k]) => ({
      figure: `${c.policy}: ${name} (${k.outcome}), writes / reads / WCU`,
      value: `${k.writes} / ${k.reads} / ${k.wcu}`,
    })),
  ]);
}
