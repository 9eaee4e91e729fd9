/**
 * Helpers of the overlap scenarios that go through the operator API (test/integ/overlap-backfill*.test.ts):
 * a job under an overlap policy on a 3-minute rate whose 10:00 run can be held at a gate, the operator
 * on it (`local: true` runs its handler in this process), scheduled deliveries on a worker, and the sweep
 * target and views the tests assert on. Every clock is the process's `Date` (the tests fake it).
 */
import { lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import type { OverlapOption } from '../../lib/core/overlap.js';
import type { RunSummary } from '../../lib/runtime/run-summary.js';
import type { Operator } from '../../operate/operator.js';
import { operatorOn } from '../integ/operate-harness.js';
import type { LocalStack } from './local-stack.js';
import { type Gate, gate, ID, overlapJob, T } from './overlap-scenario.js';

/** Who asks for the manual runs, and where they run. */
export const ops = { requestedBy: 'ops-alice', reason: 'ledger outage', local: true } as const;

/**
 * The job `name` under `overlap` (its body inserts one report row per slot, or throws `ledger down` for
 * the slots `fail` names), the operator on it (close it: `op.close()`), and its scheduled deliveries.
 */
export function operatorScenario(
  stack: LocalStack,
  name: string,
  overlap: OverlapOption,
  fail: (slotId: string) => boolean = () => false,
  extra: Partial<Parameters<typeof overlapJob>[5]> = {},
) {
  const calls: string[] = [];
  const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
  const job = overlapJob(
    name,
    overlap,
    calls,
    gates,
    async (ctx) => {
      if (fail(ctx.slot.id)) throw new Error('ledger down');
      await ctx.insertOnce(stack.reports, { reportDate: ctx.slot.id }, { by: ctx.runId });
    },
    extra,
  );
  const op: Operator = operatorOn(stack, { jobs: [job] });
  // The scheduled deliveries run on a worker of their own (its clock: the process's Date, like the operator's).
  const w = stack.worker();
  const scheduled = job.withDeps(() => w.deps);
  const deliver = (hhmm: string, remainingMs?: () => number): Promise<RunSummary> => {
    const context = lambdaContext(name, 900);
    if (remainingMs) context.getRemainingTimeInMillis = remainingMs;
    return scheduled(schedulerPayload(name, T(hhmm)), context);
  };
  return {
    job,
    w,
    op,
    calls,
    deliver,
    open: () => gates.get(ID('10:00'))?.open(),
    handle: () => op.job(name),
  };
}

/** The report rows (one per slot that ran), sorted. */
export async function reportRows(stack: LocalStack): Promise<string[]> {
  return (await stack.scan(stack.reports)).map((r) => String(r.reportDate)).sort();
}

/** A backfill's rows: `slot outcome/reason fence`. */
export const summaryRows = (r: {
  slots: readonly { slot: string; outcome: string; reason?: string; fence?: number }[];
}) => r.slots.map((x) => `${x.slot} ${x.outcome}/${x.reason ?? '-'} ${x.fence ?? '-'}`);

/** The sweeper's deps on a worker. */
export function sweepDeps(w: ReturnType<LocalStack['worker']>) {
  return { leases: w.deps.leases, runs: w.deps.runs, clock: w.clock, log: () => undefined };
}

/** A sweep target that runs the scenario's job on its worker, noting each payload's `hh:mm`. */
export function operatorSweepTarget(s: ReturnType<typeof operatorScenario>, invoked: string[]) {
  return {
    definition: s.job.job,
    expression: s.job.expression,
    startMs: 0,
    invoke: async (p: Record<string, unknown>) => {
      invoked.push(String(p.scheduledTime).slice(11, 16));
      await s.job.withDeps(() => s.w.deps)(p, lambdaContext(s.job.job.name, 900));
    },
  };
}
