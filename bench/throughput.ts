/**
 * Figure 3 — throughput: runs per second over independent jobs (one per worker, so no lease is
 * contended) at concurrency 1, 8 and 32 against DynamoDB Local, as a fraction of what the same
 * endpoint does with raw conditional writes at the same concurrency divided by the writes per run.
 * A third series sends a run's three writes straight through the stores (same items, no runtime), and
 * every phase records the CPU the client (Node) and the server (DynamoDB Local) spent, so a gap can be
 * attributed. Phases alternate for ROUNDS rounds so drift on a shared machine lands on every series.
 * Run: npx tsx bench/throughput.ts [concurrency list, default 1,8,32]
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { deliver } from '../harness/local/scheduler-emulator.js';
import { instantSlotId } from '../lib/core/schedule/slot.js';
import { newRunId } from '../lib/runtime/run-session.js';
import { cpuNow, cpuSince } from './support/cpu.js';
import { benchJob, benchWorker, slotMs } from './support/jobs.js';
import { benchDynamo } from './support/local.js';
import { emit, nowMs, round } from './support/report.js';

/** Concurrency levels at the default done-set size, then one level with a small done set. */
const LEVELS: { c: number; rememberSlots?: number }[] = [
  ...(process.argv[2] ?? '1,8,32').split(',').map((c) => ({ c: Number(c) })),
  ...(process.argv[2] ? [] : [{ c: 32, rememberSlots: 8 }]),
];
const ROUNDS = 3;
/** Runs per phase and level: ~1-2 s per phase on DynamoDB Local. */
const RUNS_PER_PHASE: Record<number, number> = { 1: 150, 8: 400, 32: 640 };

interface Phase {
  ms: number;
  units: number;
  nodeCpuMs: number;
  serverCpuMs: number;
}

const empty = (): Phase => ({ ms: 0, units: 0, nodeCpuMs: 0, serverCpuMs: 0 });

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    const w = benchWorker(dyn);
    const measure = async (into: Phase, units: number, c: number, task: (k: number) => Promise<unknown>) => {
      const perWorker = Math.ceil(units / c);
      const cpu = cpuNow(dyn.pid);
      const t0 = nowMs();
      await Promise.all(
        Array.from({ length: c }, async (_, k) => {
          for (let i = 0; i < perWorker; i++) await task(k);
        }),
      );
      into.ms += nowMs() - t0;
      into.units += perWorker * c;
      const used = cpuSince(cpu, dyn.pid);
      into.nodeCpuMs += used.nodeMs;
      into.serverCpuMs += used.serverMs ?? 0;
    };
    const results = [];
    let rawKey = 0;
    for (const level of LEVELS) {
      const c = level.c;
      const tag = `${c}-${level.rememberSlots ?? 'd'}`;
      const runs = RUNS_PER_PHASE[c] ?? 500;
      const jobs = Array.from({ length: c }, (_, k) =>
        benchJob(`bench-tp-${tag}-${k}`, async () => undefined, {
          ...(level.rememberSlots !== undefined && { rememberSlots: level.rememberSlots }),
        }),
      );
      const handlers = jobs.map((j) => j.withDeps(() => w.deps));
      const nextSlot = new Array<number>(c).fill(0);
      // Worker k always runs job k: independent jobs, never two runs of one job at once.
      const runOne = async (k: number) => {
        const slot = nextSlot[k] ?? 0;
        nextSlot[k] = slot + 1;
        const handler = handlers[k] as (typeof handlers)[number];
        const r = await deliver(handler, {
          job: handler.job.name,
          scheduledTimeMs: slotMs(slot),
          label: 'b',
        });
        if (r.summary?.outcome !== 'succeeded')
          throw new Error(`run failed: ${r.summary?.reason} ${r.error}`);
      };
      const rawOne = () =>
        w.doc.send(
          new PutCommand({
            TableName: dyn.raw,
            Item: { pk: `raw-${rawKey++}`, v: 1 },
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': 'pk' },
          }),
        );
      const remember = jobs[0]?.job.rememberSlots ?? 64;
      const doneSet = new Set(Array.from({ length: remember }, (_, i) => instantSlotId(slotMs(-1 - i))));
      const protoSlot = new Array<number>(c).fill(0);
      const protocolOne = async (k: number) => {
        const i = protoSlot[k] ?? 0;
        protoSlot[k] = i + 1;
        const job = `bench-tp-raw-${tag}-${k}`;
        const runId = newRunId(Date.now());
        const slotId = instantSlotId(slotMs(i));
        const now = Date.now();
        const d = await w.deps.leases.claim({
          job,
          runId,
          slotId,
          nowMs: now,
          leaseUntilMs: now + 60_000,
          lambdaRequestId: '00000000-0000-0000-0000-000000000000',
        });
        if (d.kind !== 'acquired') throw new Error(`raw protocol claim: ${d.kind}`);
        await w.deps.runs.put(
          {
            job,
            slot: slotId,
            scheduledTime: `${slotId.slice(0, 19)}.000Z`,
            businessDate: slotId.slice(0, 10),
            runId,
            trigger: 'schedule',
            lambdaRequestId: '00000000-0000-0000-0000-000000000000',
            fence: d.fence,
            outcome: 'succeeded',
            startedAtMs: now,
            finishedAtMs: Date.now(),
            durationMs: Date.now() - now,
          },
          30,
        );
        await w.deps.leases.release({ job, runId, fence: d.fence, nowMs: Date.now(), doneSlots: doneSet });
      };
      // Warm up: every job runs past its done-set size (steady-state lease item size).
      await Promise.all(
        Array.from({ length: c }, async (_, k) => {
          for (let i = 0; i < remember; i++) await runOne(k);
        }),
      );
      await measure(empty(), c * 20, c, protocolOne);
      await measure(empty(), c * 60, c, rawOne);
      const raw = empty();
      const proto = empty();
      const run = empty();
      let writesPerRun = 0;
      for (let r = 0; r < ROUNDS; r++) {
        await measure(raw, runs * 3, c, rawOne);
        await measure(proto, runs, c, protocolOne);
        w.meter.reset();
        await measure(run, runs, c, runOne);
        writesPerRun = w.meter.snapshot().writes / (Math.ceil(runs / c) * c);
      }
      const perSecond = (p: Phase) => (p.units / p.ms) * 1000;
      const rawWritesPerSecond = perSecond(raw);
      const runsPerSecond = perSecond(run);
      const ceiling = rawWritesPerSecond / writesPerRun;
      const cpuPerUnit = (p: Phase) => (p.nodeCpuMs + p.serverCpuMs) / p.units;
      const cpuPer = (p: Phase, perUnits: number) => ({
        nodeMs: round((p.nodeCpuMs / p.units) * perUnits),
        serverMs: round((p.serverCpuMs / p.units) * perUnits),
      });
      results.push({
        concurrency: c,
        rememberSlots: remember,
        runs: run.units,
        rawWrites: raw.units,
        writesPerRun: round(writesPerRun),
        rawWritesPerSecond: round(rawWritesPerSecond, 1),
        runsPerSecond: round(runsPerSecond, 1),
        ceilingRunsPerSecond: round(ceiling, 1),
        fraction: round(runsPerSecond / ceiling),
        rawProtocolRunsPerSecond: round(perSecond(proto), 1),
        fractionOfRawProtocol: round(runsPerSecond / perSecond(proto)),
        cpuPerRun: cpuPer(run, 1),
        cpuPerRawProtocolRun: cpuPer(proto, 1),
        cpuPerThreeRawWrites: cpuPer(raw, 3),
        /** CPU (client + server) of 3 raw writes over the CPU of one run: the share of the machine's work that is the raw writes. */
        cpuEfficiency: round((cpuPerUnit(raw) * writesPerRun) / cpuPerUnit(run)),
        /** The same against the run's three writes sent raw: what the runtime itself costs. */
        cpuEfficiencyVsRawProtocol: round(cpuPerUnit(proto) / cpuPerUnit(run)),
      });
    }
    emit(
      'throughput',
      { command: 'npx tsx bench/throughput.ts', rounds: ROUNDS, levels: results },
      results.flatMap((r) => {
        const at = `c=${r.concurrency}${r.rememberSlots === 64 ? '' : ` done set ${r.rememberSlots}`}`;
        return [
          {
            figure: `${at}: runs/s | raw writes/s | writes/run`,
            value: `${r.runsPerSecond} | ${r.rawWritesPerSecond} | ${r.writesPerRun}`,
          },
          {
            figure: `${at}: runs/s / (raw writes/s / writes per run)`,
            value: r.fraction,
            target: '>= 0.9',
            met: r.fraction >= 0.9,
          },
          {
            figure: `${at}: runs/s / the run's 3 writes sent raw`,
            value: `${r.fractionOfRawProtocol} (${r.rawProtocolRunsPerSecond}/s)`,
          },
          {
            figure: `${at}: CPU ms node/server: run | raw 3 | 3 raw writes`,
            value: `${r.cpuPerRun.nodeMs}/${r.cpuPerRun.serverMs} | ${r.cpuPerRawProtocolRun.nodeMs}/${r.cpuPerRawProtocolRun.serverMs} | ${r.cpuPerThreeRawWrites.nodeMs}/${r.cpuPerThreeRawWrites.serverMs}`,
          },
        ];
      }),
    );
  } finally {
    await dyn.stop();
  }
}

await main();
process.exit(0);
