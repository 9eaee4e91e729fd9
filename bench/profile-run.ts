/**
 * Where a trivial run's Node CPU goes: N runs of a job with an empty body on DynamoDB Local (the same
 * handler path as bench/peer.ts: Scheduler payload, Lambda context, defineJob's handler), sampled
 * by V8's CPU profiler (node:inspector, the profiler `node --cpu-prof` starts) around the timed runs
 * only, then summarised as text: top functions by self time and by total time, and the share of the
 * samples under cronfence's own files vs the AWS SDK, middy and Node's internals.
 * The raw profile is saved to bench/out/profile-run-<subject>.cpuprofile (open it in Chrome DevTools or speedscope
 * for a flame graph).
 * Run: npx tsx bench/profile-run.ts [runs=3000] [cronfence|floor|offline|floor-offline]   (what to profile)
 *   (BENCH_PROFILE_TOP=<rows>, default 30; BENCH_PROFILE_ROUNDS=<interleaved rounds on DynamoDB Local>, default 6;
 *   BENCH_PROFILE_CONCURRENCY=<c>, default 1: without the network, c jobs each on its own client run
 *   every occurrence at once, as bench/peer.ts's c lanes do; the offline comparison and an offline
 *   subject's profile are then of c runs per occurrence, CPU given per run)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { lambdaContext, schedulerPayload } from '../harness/local/scheduler-emulator.js';
import { definitionId } from '../lib/core/liveness.js';
import { createDeps, type RuntimeDeps } from '../lib/runtime/deps.js';
import { createDocumentClient } from '../lib/store/client.js';
import { type Profile, summarise } from './support/cpu-profile.js';
import { FloorLane } from './support/floor.js';
import { benchJob, slotMs } from './support/jobs.js';
import { benchDynamo } from './support/local.js';
import { emit, median, nowMs, OUT_DIR, round } from './support/report.js';
import { stubRequestHandler } from './support/stub-dynamo.js';

const RUNS = Number(process.argv[2] ?? 3000);
/**
 * What the profiled runs are: cronfence's handler, the floor (to compare the two profiles), or
 * either on the network-less stub (`offline`, `floor-offline`: the library's share stands out).
 */
const SUBJECTS = ['cronfence', 'floor', 'offline', 'floor-offline'] as const;
const SUBJECT = SUBJECTS.find((x) => x === process.argv[3]) ?? 'cronfence';
const WARMUP = 300;
/** Interleaved rounds of the unprofiled comparison with the floor, and runs per contender per round. */
const ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 6);
const ROUND_RUNS = 200;
/** The same without the network (runs are cheap there; more of them steady the ratio). */
const OFFLINE_ROUNDS = 10;
const OFFLINE_ROUND_RUNS = 500;
/** Runs per occurrence without the network: c jobs, each on its own client (bench/peer.ts's lanes). */
const CONCURRENCY = Math.max(1, Number(process.env.BENCH_PROFILE_CONCURRENCY ?? 1));

/** What {@link compareWithFloor} uses of a floor: one lane, or `c` of them run at once. */
type Floor = Pick<FloorLane, 'prepare' | 'run'>;

/** `lanes` as one floor: each occurrence's requests built for every lane, the lanes run at once. */
function floorsAtOnce(lanes: readonly FloorLane[]): Floor {
  return {
    prepare: (from, n) => {
      for (const l of lanes) l.prepare(from, n);
    },
    run: async (i, body) => {
      await Promise.all(lanes.map((l) => l.run(i, body)));
    },
  };
}

/** The floor (bench/support/floor.ts): the job's protocol requests, built ahead, sent raw on `config`. */
function floorOf(config: DynamoDBClientConfig, table: string, name: string): FloorLane {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...config,
  });
  return new FloorLane({
    client,
    table,
    job: name,
    def: definitionId(benchJob(name, async () => undefined).job),
    scheduledMs: slotMs,
  });
}

/**
 * Node CPU and median latency per trivial run, cronfence (`run`, slots from `from`) vs the floor, in
 * interleaved rounds (each goes first in turn) after a warm-up of the floor: the library's own cost
 * over its requests.
 */
async function compareWithFloor(
  run: (i: number) => Promise<unknown>,
  floor: Floor,
  from: number,
  rounds = ROUNDS,
  roundRuns = ROUND_RUNS,
  runsPerOccurrence = 1,
) {
  const body = async () => undefined;
  let slot = from;
  floor.prepare(0, 40);
  for (let i = 0; i < 40; i++) await floor.run(i, body);
  let floorSlot = 40;
  const acc = { cronfence: { cpuMs: 0, lat: [] as number[] }, floor: { cpuMs: 0, lat: [] as number[] } };
  const timed = async (k: 'cronfence' | 'floor') => {
    const first = k === 'cronfence' ? slot : floorSlot;
    if (k === 'floor') floor.prepare(first, roundRuns);
    const cpu0 = process.cpuUsage();
    for (let i = first; i < first + roundRuns; i++) {
      const t = nowMs();
      if (k === 'cronfence') await run(i);
      else await floor.run(i, body);
      acc[k].lat.push(nowMs() - t);
    }
    const cpu = process.cpuUsage(cpu0);
    acc[k].cpuMs += (cpu.user + cpu.system) / 1000;
    if (k === 'cronfence') slot += roundRuns;
    else floorSlot += roundRuns;
  };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['cronfence', 'floor'] as const) : (['floor', 'cronfence'] as const);
    for (const k of order) await timed(k);
  }
  const runs = rounds * roundRuns * runsPerOccurrence;
  const sum = (k: 'cronfence' | 'floor') => ({
    cpuMsPerRun: round(acc[k].cpuMs / runs, 3),
    medianLatencyMs: round(median(acc[k].lat), 3),
  });
  const c = sum('cronfence');
  const f = sum('floor');
  return {
    used: slot - from,
    runsEach: runs,
    cronfence: c,
    floor: f,
    cpuRatio: round(c.cpuMsPerRun / f.cpuMsPerRun, 3),
    latencyRatio: round(c.medianLatencyMs / f.medianLatencyMs, 3),
    libraryCpuMsPerRun: round(c.cpuMsPerRun - f.cpuMsPerRun, 3),
  };
}

/** A trivial job's handler on `deps`, invoked for slot `i` with a fresh Scheduler payload and context. */
function runner(name: string, deps: RuntimeDeps): (i: number) => Promise<unknown> {
  const handler = benchJob(name, async () => undefined).withDeps(() => deps);
  return (i) => handler(schedulerPayload(name, slotMs(i)), lambdaContext(name, 120));
}

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    const name = 'profile-trivial';
    const run = runner(name, createDeps({ doc: dyn.client(), tableName: dyn.tableName }));
    for (let i = 0; i < WARMUP; i++) await run(i);
    const compared = await compareWithFloor(
      run,
      floorOf({ endpoint: dyn.endpoint }, dyn.tableName, 'profile-floor'),
      WARMUP,
    );
    let next = WARMUP + compared.used;
    // The same without the network: both on a request handler that answers at once (the claim with
    // this job's lease item as it is now), so the difference is the library's CPU alone.
    // With a concurrency c > 1, jobs 2..c first run a few slots on DynamoDB Local for lease items of
    // their own.
    const names = Array.from({ length: CONCURRENCY }, (_, l) => (l === 0 ? name : `${name}-${l}`));
    const lanes = await Promise.all(
      names.map(async (jobName) => {
        const deps = createDeps({ doc: dyn.client(), tableName: dyn.tableName });
        if (jobName !== name) {
          const seed = runner(jobName, deps);
          for (let i = 0; i < 5; i++) await seed(i);
        }
        const leaseItem = (await deps.leases.get({ job: jobName })) as Record<string, unknown>;
        const stub = stubRequestHandler(leaseItem);
        const offlineDeps = createDeps({
          doc: createDocumentClient({ endpoint: 'http://127.0.0.1:9', requestHandler: stub }),
          tableName: dyn.tableName,
        });
        return {
          run: runner(jobName, offlineDeps),
          floor: floorOf({ endpoint: 'http://127.0.0.1:9', requestHandler: stub }, dyn.tableName, jobName),
        };
      }),
    );
    const runOffline = async (i: number) => Promise.all(lanes.map((l) => l.run(i)));
    const offlineFloor = floorsAtOnce(lanes.map((l) => l.floor));
    for (let i = next; i < next + WARMUP; i++) await runOffline(i);
    next += WARMUP;
    const offline = await compareWithFloor(
      runOffline,
      offlineFloor,
      next,
      OFFLINE_ROUNDS,
      OFFLINE_ROUND_RUNS,
      CONCURRENCY,
    );
    next += offline.used;
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    // The floor's requests are built before the profile starts, as before every timed floor phase.
    const floor = floorOf({ endpoint: dyn.endpoint }, dyn.tableName, 'profile-floor-profiled');
    if (SUBJECT === 'floor') floor.prepare(next, RUNS);
    if (SUBJECT === 'floor-offline') offlineFloor.prepare(next, RUNS);
    const cpu0 = process.cpuUsage();
    await session.post('Profiler.start');
    const body = async () => undefined;
    const subject = {
      cronfence: run,
      floor: (i: number) => floor.run(i, body),
      offline: runOffline,
      'floor-offline': (i: number) => offlineFloor.run(i, body),
    }[SUBJECT];
    for (let i = next; i < next + RUNS; i++) await subject(i);
    const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
    const cpu = process.cpuUsage(cpu0);
    session.disconnect();
    mkdirSync(OUT_DIR, { recursive: true });
    const file = join(OUT_DIR, `profile-run-${SUBJECT}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const s = summarise(profile, Number(process.env.BENCH_PROFILE_TOP ?? 30));
    const perOccurrence = SUBJECT === 'offline' || SUBJECT === 'floor-offline' ? CONCURRENCY : 1;
    const nodeCpuMsPerRun = round((cpu.user + cpu.system) / 1000 / (RUNS * perOccurrence), 3);
    emit(
      'profile-run',
      {
        command: 'npx tsx bench/profile-run.ts',
        subject: SUBJECT,
        runs: RUNS,
        offlineConcurrency: CONCURRENCY,
        nodeCpuMsPerRun,
        compared,
        offline,
        profile: file,
        ...s,
      },
      [
        {
          figure: 'Node CPU per run, ms: cronfence / floor (unprofiled, interleaved)',
          value: `${compared.cronfence.cpuMsPerRun} / ${compared.floor.cpuMsPerRun}`,
        },
        { figure: 'Node CPU per run, cronfence ÷ floor', value: compared.cpuRatio },
        {
          figure: 'without the network (stub handler): Node CPU per run, ms, cronfence / floor',
          value: `${offline.cronfence.cpuMsPerRun} / ${offline.floor.cpuMsPerRun}`,
        },
        {
          figure: "without the network: the library's own CPU per run, ms (cronfence − floor)",
          value: offline.libraryCpuMsPerRun,
        },
        {
          figure: 'median latency, ms: cronfence / floor',
          value: `${compared.cronfence.medianLatencyMs} / ${compared.floor.medianLatencyMs}`,
        },
        { figure: 'median latency, cronfence ÷ floor', value: compared.latencyRatio },
        { figure: `${SUBJECT} runs profiled (after warm-up)`, value: RUNS },
        { figure: 'Node CPU per run, ms (profiler on)', value: nodeCpuMsPerRun },
        ...s.byArea.slice(0, 12).map((a) => ({ figure: `area: ${a.fn}`, value: `${a.pctOfBusy}%` })),
        ...s.bySelf.map((a) => ({ figure: `self: ${a.fn}`, value: `${a.pctOfBusy}%` })),
        ...s.byTotal.map((a) => ({ figure: `total: ${a.fn}`, value: `${a.pctOfBusy}%` })),
      ],
    );
  } finally {
    await dyn.stop();
  }
}

await main();
