/**
 * Figure 2 — the critical path: from invoking the handler to the job body starting is one DynamoDB
 * round trip (the claim). Measures that time against a raw single UpdateItem of the same shape
 * (condition, ADD, ALL_OLD, an item of the same size) on the same client and endpoint, interleaved,
 * median and p99 over N runs.
 * Run: npx tsx bench/claim-latency.ts [runs=1000]
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { lambdaContext, schedulerPayload } from '../harness/local/scheduler-emulator.js';
import { instantSlotId } from '../lib/core/schedule/slot.js';
import { benchJob, benchWorker, slotMs } from './support/jobs.js';
import { benchDynamo } from './support/local.js';
import { emit, median, nowMs, quantile, round } from './support/report.js';

const RUNS = Number(process.argv[2] ?? 1000);
const WARMUP = 100;

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    let bodyStartedAt = 0;
    const job = benchJob('bench-latency', async () => {
      bodyStartedAt = nowMs();
    });
    const w = benchWorker(dyn);
    const handler = job.withDeps(() => w.deps);
    const lease = async () =>
      (await w.deps.leases.get({ job: job.job.name })) as Record<string, unknown> | undefined;

    // Baselines, each ONE raw UpdateItem on the same client and endpoint:
    //  minimal: `SET v = :v` on a small item of a table without index;
    //  shaped:  the claim's kind of request (condition, SET, ADD, ALL_OLD) on an item with the same
    //           done set, in a table without index;
    //  same:    the claim's exact request (DynamoLeaseStore.claim) on the library table, sent directly.
    const fill = (n: number) => new Set(Array.from({ length: n }, (_, i) => instantSlotId(slotMs(i))));
    const doneSlots = fill(job.job.rememberSlots);
    const minimal = () =>
      w.doc.send(
        new UpdateCommand({
          TableName: dyn.raw,
          Key: { pk: 'raw-minimal' },
          UpdateExpression: 'SET #v = :v',
          ExpressionAttributeNames: { '#v': 'v' },
          ExpressionAttributeValues: { ':v': Date.now() },
        }),
      );
    const shaped = () =>
      w.doc.send(
        new UpdateCommand({
          TableName: dyn.raw,
          Key: { pk: 'raw-claim' },
          ConditionExpression: 'attribute_not_exists(#u) OR #u < :now',
          UpdateExpression: 'SET #o = :me, #u = :until, #s = :slot, #d = :done ADD #f :one',
          ExpressionAttributeNames: {
            '#o': 'owner',
            '#u': 'leaseUntilMs',
            '#s': 'slot',
            '#f': 'fence',
            '#d': 'doneSlots',
          },
          ExpressionAttributeValues: {
            ':me': `raw-${Date.now()}`,
            ':until': 0,
            ':slot': 'raw',
            ':now': Date.now(),
            ':one': 1,
            ':done': doneSlots,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
    let sameFence = 0;
    const same = async () => {
      // Release first (untimed) so the timed claim succeeds, like a run's claim after the last release.
      if (sameFence > 0)
        await w.deps.leases.release({
          job: 'bench-latency-raw',
          runId: `raw-${sameFence}`,
          fence: sameFence,
          nowMs: Date.now(),
          doneSlots,
        });
      const t0 = nowMs();
      const d = await w.deps.leases.claim({
        job: 'bench-latency-raw',
        runId: `raw-${sameFence + 1}`,
        slotId: instantSlotId(slotMs(-1 - sameFence)),
        nowMs: Date.now(),
        leaseUntilMs: Date.now() + 60_000,
        lambdaRequestId: 'raw',
      });
      if (d.kind !== 'acquired') throw new Error(`raw claim not acquired: ${d.kind}`);
      sameFence = d.fence;
      return nowMs() - t0;
    };

    const samples = {
      claim: [] as number[],
      minimal: [] as number[],
      shaped: [] as number[],
      same: [] as number[],
    };
    const run = async (i: number) => {
      const event = schedulerPayload(job.job.name, slotMs(i));
      const context = lambdaContext(job.job.name, job.job.timeoutSeconds);
      const t0 = nowMs();
      const summary = await handler(event, context);
      if (summary.outcome !== 'succeeded') throw new Error(`run ${i}: ${summary.outcome} ${summary.reason}`);
      return bodyStartedAt - t0;
    };
    const timed = async (f: () => Promise<unknown>) => {
      const t0 = nowMs();
      await f();
      return nowMs() - t0;
    };
    const steps: [keyof typeof samples, () => Promise<number>][] = [
      ['claim', () => run(next++)],
      ['minimal', () => timed(minimal)],
      ['shaped', () => timed(shaped)],
      ['same', same],
    ];
    let next = 0;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      // Rotate the order so drift, GC and JIT land on every series alike.
      for (let k = 0; k < steps.length; k++) {
        const [name, step] = steps[(i + k) % steps.length] as (typeof steps)[number];
        const ms = await step();
        if (i >= WARMUP) samples[name].push(ms);
      }
    }
    const stats = (xs: number[]) => ({
      medianMs: round(median(xs)),
      p99Ms: round(quantile(xs, 0.99)),
      meanMs: round(xs.reduce((a, b) => a + b, 0) / xs.length),
    });
    const claim = stats(samples.claim);
    const base = {
      minimal: stats(samples.minimal),
      shaped: stats(samples.shaped),
      same: stats(samples.same),
    };
    const ratio = (b: { medianMs: number; p99Ms: number }) => ({
      median: round(claim.medianMs / b.medianMs),
      p99: round(claim.p99Ms / b.p99Ms),
    });
    const ratios = { same: ratio(base.same), shaped: ratio(base.shaped), minimal: ratio(base.minimal) };
    const doneSetSize = ((await lease())?.doneSlots as Set<string> | undefined)?.size ?? 0;
    emit(
      'claim-latency',
      {
        command: 'npx tsx bench/claim-latency.ts',
        runs: RUNS,
        warmup: WARMUP,
        doneSetSize,
        invocationToBody: claim,
        baselines: base,
        ratios,
        overheadOverSameRequestMedianMs: round(claim.medianMs - base.same.medianMs),
      },
      [
        { figure: 'invocation -> body, median / p99 ms', value: `${claim.medianMs} / ${claim.p99Ms}` },
        { figure: 'raw claim request, median / p99 ms', value: `${base.same.medianMs} / ${base.same.p99Ms}` },
        {
          figure: 'ratio to the raw claim request, median',
          value: ratios.same.median,
          target: '<= 1.15',
          met: ratios.same.median <= 1.15,
        },
        {
          figure: 'ratio to the raw claim request, p99',
          value: ratios.same.p99,
          target: '<= 1.15',
          met: ratios.same.p99 <= 1.15,
        },
        {
          figure: 'raw claim-shaped UpdateItem (no GSI), median / p99 ms',
          value: `${base.shaped.medianMs} / ${base.shaped.p99Ms}`,
        },
        { figure: 'ratio to it, median / p99', value: `${ratios.shaped.median} / ${ratios.shaped.p99}` },
        {
          figure: 'raw minimal UpdateItem, median / p99 ms',
          value: `${base.minimal.medianMs} / ${base.minimal.p99Ms}`,
        },
        {
          figure: 'ratio to it, median / p99',
          value: `${ratios.minimal.median} / ${ratios.minimal.p99}`,
          target: '<= 1.15',
          met: ratios.minimal.median <= 1.15 && ratios.minimal.p99 <= 1.15,
        },
      ],
    );
  } finally {
    await dyn.stop();
  }
}

await main();
process.exit(0);
