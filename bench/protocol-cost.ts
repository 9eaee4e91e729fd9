/**
 * Figure 1 — protocol cost, counted by an SDK middleware (requests by operation, and the capacity
 * DynamoDB reports with ReturnConsumedCapacity TOTAL): per successful run, per duplicate (lease held,
 * and already succeeded) and per renewal, with the lease item's done set full (steady state); then a row
 * per overlap policy (normal path, and what buffering, replacing and waiting cost on their own paths).
 * Run: npx tsx bench/protocol-cost.ts
 */
import { deliver } from '../harness/local/scheduler-emulator.js';
import { benchJob, benchWorker, deliverSlot, slotMs } from './support/jobs.js';
import { benchDynamo } from './support/local.js';
import type { MeterSnapshot } from './support/meter.js';
import { overlapCosts, overlapRows } from './support/overlap-cost.js';
import { emit, round } from './support/report.js';

/**
 * DynamoDB on-demand prices used for "cost per million runs": us-east-1, Standard table class, USD per
 * million request units (AWS price list after the November 2024 on-demand reduction). Override with
 * BENCH_WRU_USD / BENCH_RRU_USD.
 */
export const ON_DEMAND_PRICES = {
  region: 'us-east-1',
  tableClass: 'Standard',
  writeRequestUnitUsdPerMillion: Number(process.env.BENCH_WRU_USD ?? 0.625),
  readRequestUnitUsdPerMillion: Number(process.env.BENCH_RRU_USD ?? 0.125),
} as const;

/**
 * WCU of a successful Powertools `makeIdempotent` run (its in-progress PutItem and its completion
 * UpdateItem, 1 WCU each), measured side by side by bench/peer.ts; cronfence's budget is this + 1.
 */
const POWERTOOLS_WCU_PER_RUN = 2;

const WARM_SLOTS = 70; // > rememberSlots (64): the lease item carries a full done set
const MEASURED = 50;

function per(s: MeterSnapshot, n: number) {
  return {
    requests: Object.fromEntries(Object.entries(s.requests).map(([k, v]) => [k, round(v / n)])),
    writes: round(s.writes / n),
    reads: round(s.reads / n),
    wcu: round(s.wcu / n),
    rcu: round(s.rcu / n),
    estimatedWcuForFailedConditions: round(s.estimatedWcu / n),
    unitsByOperation: Object.fromEntries(
      Object.entries(s.unitsByOperation).map(([k, v]) => [k, round(v / n)]),
    ),
  };
}

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    let release: (() => void) | undefined;
    let holding: Promise<void> | undefined;
    const job = benchJob('bench-cost', async () => {
      if (holding) await holding;
    });
    const w = benchWorker(dyn);

    // Warm up: fill the done set so claims and releases carry the steady-state item size.
    for (let i = 0; i < WARM_SLOTS; i++) await deliverSlot(job, w.deps, i);

    // Successful runs.
    w.meter.reset();
    for (let i = WARM_SLOTS; i < WARM_SLOTS + MEASURED; i++) {
      const r = await deliverSlot(job, w.deps, i);
      if (r.summary?.outcome !== 'succeeded') throw new Error(`run ${i} did not succeed: ${r.error}`);
    }
    const success = per(w.meter.snapshot(), MEASURED);

    // The same on a job whose done set holds few slots (its first runs): the lease item stays < 1 KB.
    const fresh = benchWorker(dyn);
    const freshJob = benchJob('bench-cost-fresh', async () => undefined);
    for (let i = 0; i < 5; i++) await deliverSlot(freshJob, fresh.deps, i);
    const successSmallDoneSet = per(fresh.meter.snapshot(), 5);

    // The longest job name defineJob accepts (64 characters) with the highest shard index (999) and a full
    // done set: the lease item must stay under 1 KB, so a run costs no more WCU than above.
    const longName = `m${'x'.repeat(63)}`;
    const long = benchWorker(dyn);
    const longNameJob = benchJob(longName, async () => undefined, { shards: 1000 });
    const deliverShard = (i: number) =>
      deliver(
        longNameJob.withDeps(() => long.deps),
        {
          job: longName,
          scheduledTimeMs: slotMs(i),
          label: 'long name',
          extra: { shard: 999, shards: 1000 },
        },
      );
    for (let i = 0; i < WARM_SLOTS; i++) await deliverShard(i);
    long.meter.reset();
    for (let i = WARM_SLOTS; i < WARM_SLOTS + MEASURED; i++) {
      const r = await deliverShard(i);
      if (r.summary?.outcome !== 'succeeded')
        throw new Error(`long-name run ${i} did not succeed: ${r.error}`);
    }
    const successLongestName = per(long.meter.snapshot(), MEASURED);

    // Duplicates while the lease is held (lease-held skips), on a second worker's meter.
    const dup = benchWorker(dyn);
    const heldSlot = WARM_SLOTS + MEASURED;
    holding = new Promise<void>((r) => {
      release = r;
    });
    const holder = deliverSlot(job, w.deps, heldSlot);
    await new Promise((r) => setTimeout(r, 200)); // the holder has claimed and waits in its body
    for (let i = 0; i < MEASURED; i++) {
      const r = await deliverSlot(job, dup.deps, heldSlot, { label: 'duplicate' });
      if (r.summary?.reason !== 'lease-held')
        throw new Error(`duplicate not lease-held: ${r.summary?.reason}`);
    }
    const leaseHeld = per(dup.meter.snapshot(), MEASURED);
    release?.();
    holding = undefined;
    await holder;

    // Late duplicates of a succeeded slot (already-succeeded skips).
    dup.meter.reset();
    for (let i = 0; i < MEASURED; i++) {
      const r = await deliverSlot(job, dup.deps, heldSlot, { attemptNumber: 2, label: 'late' });
      if (r.summary?.reason !== 'already-succeeded')
        throw new Error(`late duplicate not already-succeeded: ${r.summary?.reason}`);
    }
    const alreadySucceeded = per(dup.meter.snapshot(), MEASURED);

    // Late copies of slots older than the 64 the done set remembers (Lambda kept them queued for hours):
    // the claim is accepted, one Query finds the slot's succeeded record, the lease is released.
    dup.meter.reset();
    for (let i = 0; i < MEASURED; i++) {
      const r = await deliverSlot(job, dup.deps, i, { label: 'late copy beyond the done set' });
      if (r.summary?.reason !== 'already-succeeded')
        throw new Error(`late copy beyond the done set not already-succeeded: ${r.summary?.reason}`);
    }
    const lateBeyondDoneSet = per(dup.meter.snapshot(), MEASURED);

    // Renewals: a 2 s lease (the docs/clock-skew.md minimum is 1.8 s) renewed every 2/3 s while the body works ~4 s.
    let renewals = 0;
    const rw = benchWorker(dyn, {
      observe: (e) => {
        if (e.type === 'renew' && e.ok) renewals++;
      },
    });
    const longJob = benchJob('bench-cost-renew', () => new Promise((r) => setTimeout(r, 4_000)), {
      lease: { durationSeconds: 2 },
    });
    const quick = benchJob('bench-cost-renew', async () => undefined, { lease: { durationSeconds: 2 } });
    for (let i = 0; i < WARM_SLOTS; i++) await deliverSlot(quick, w.deps, i); // full done set
    const plain = benchWorker(dyn);
    await deliverSlot(quick, plain.deps, WARM_SLOTS);
    const base = plain.meter.snapshot();
    await deliverSlot(longJob, rw.deps, WARM_SLOTS + 1);
    const withRenew = rw.meter.snapshot();
    const renewal = {
      renewals,
      writes: round((withRenew.writes - base.writes) / renewals),
      reads: round((withRenew.reads - base.reads) / renewals),
      wcu: round((withRenew.wcu - base.wcu) / renewals),
    };

    const overlap = await overlapCosts(dyn);

    const p = ON_DEMAND_PRICES;
    const usdPerMillion = (s: { wcu: number; rcu: number }) =>
      round(s.wcu * p.writeRequestUnitUsdPerMillion + s.rcu * p.readRequestUnitUsdPerMillion, 4);
    const cost = {
      successfulRun: usdPerMillion(success),
      duplicateLeaseHeld: usdPerMillion(leaseHeld),
      duplicateAlreadySucceeded: usdPerMillion(alreadySucceeded),
      renewal: usdPerMillion({ wcu: renewal.wcu, rcu: 0 }),
    };
    emit(
      'protocol-cost',
      {
        command: 'npx tsx bench/protocol-cost.ts',
        measuredRunsPerCase: MEASURED,
        doneSetSize: 32,
        perSuccessfulRun: success,
        perSuccessfulRunLongestNameShard999: successLongestName,
        perSuccessfulRunDoneSetUnder5: successSmallDoneSet,
        perDuplicateLeaseHeld: leaseHeld,
        perDuplicateAlreadySucceeded: alreadySucceeded,
        perLateCopyBeyondDoneSet: lateBeyondDoneSet,
        perRenewal: renewal,
        overlapPolicies: overlap,
        prices: p,
        usdPerMillion: cost,
      },
      [
        {
          figure: 'successful run: writes / reads',
          value: `${success.writes} / ${success.reads}`,
          target: '<= 3 / 0',
          met: success.writes <= 3 && success.reads === 0,
        },
        {
          figure: 'successful run: WCU (done set 32 / <5 slots)',
          value: `${success.wcu} / ${successSmallDoneSet.wcu}`,
        },
        {
          figure:
            'successful run: WCU, 64-char name, shard 999, full done set (Powertools: 2, bench/peer.ts)',
          value: successLongestName.wcu,
          target: `<= ${POWERTOOLS_WCU_PER_RUN + 1}`,
          met:
            Math.max(success.wcu, successSmallDoneSet.wcu, successLongestName.wcu) <=
            POWERTOOLS_WCU_PER_RUN + 1,
        },
        {
          figure: 'duplicate (lease held): writes / reads',
          value: `${leaseHeld.writes} / ${leaseHeld.reads}`,
          target: '<= 2 / 0',
          met: leaseHeld.writes <= 2 && leaseHeld.reads === 0,
        },
        {
          figure: 'duplicate (already succeeded): writes / reads',
          value: `${alreadySucceeded.writes} / ${alreadySucceeded.reads}`,
          target: '<= 2 / 0',
          met: alreadySucceeded.writes <= 2 && alreadySucceeded.reads === 0,
        },
        {
          figure: 'late copy beyond the done set: writes / reads (its own path only)',
          value: `${lateBeyondDoneSet.writes} / ${lateBeyondDoneSet.reads}`,
          target: '<= 3 / 1',
          met: lateBeyondDoneSet.writes <= 3 && lateBeyondDoneSet.reads <= 1,
        },
        { figure: 'renewal: writes / WCU', value: `${renewal.writes} / ${renewal.wcu}` },
        { figure: 'USD per million successful runs', value: cost.successfulRun },
        { figure: 'USD per million duplicates', value: cost.duplicateLeaseHeld },
        { figure: 'USD per million renewals', value: cost.renewal },
        ...overlapRows(overlap),
      ],
    );
  } finally {
    await dyn.stop();
  }
}

await main();
process.exit(0);
