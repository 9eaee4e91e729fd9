/**
 * Where a trivial run's Node CPU goes: N runs of a job with an empty body on DynamoDB Local (the same
 * handler path as bench/peer.ts: Scheduler payload, Lambda context, defineJob's middy handler), sampled
 * by V8's CPU profiler (node:inspector, the profiler `node --cpu-prof` starts) around the timed runs
 * only, then summarised as text: top functions by self time and by total time, and the share of the
 * samples under cronfence's own files vs the AWS SDK, middy, luxon and Node's internals.
 * The raw profile is saved to bench/out/profile-run.cpuprofile (open it in Chrome DevTools or speedscope
 * for a flame graph).
 * Run: npx tsx bench/profile-run.ts [runs=3000] [cronfence|floor|offline|floor-offline]   (what to profile)
 *   (BENCH_PROFILE_TOP=<rows>, default 30; BENCH_PROFILE_ROUNDS=<interleaved rounds on DynamoDB Local>, default 6)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { lambdaContext, schedulerPayload } from '../harness/local/scheduler-emulator.js';
import { definitionId } from '../lib/core/liveness.js';
import { createDeps, type RuntimeDeps } from '../lib/runtime/deps.js';
import { createDocumentClient } from '../lib/store/client.js';
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
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 30);
/** Interleaved rounds of the unprofiled comparison with the floor, and runs per contender per round. */
const ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 6);
const ROUND_RUNS = 200;
/** The same without the network (runs are cheap there; more of them steady the ratio). */
const OFFLINE_ROUNDS = 10;
const OFFLINE_ROUND_RUNS = 500;

/** A V8 CPU profile node (Profiler.Profile, Chrome DevTools protocol). */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
}

/** Where a function lives: cronfence's own layer, a dependency, or Node. */
function areaOf(url: string): string {
  if (url === '') return '(native / VM)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = /\/(lib\/[a-z]+|bench|harness)\//.exec(url);
  return m ? `cronfence ${m[1]}` : url;
}

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.replace(/^.*\/(node_modules|lib|bench|harness)\//, '$1/').replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** Self and total sample counts per function (by name and location), and per area. */
function summarise(p: Profile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (const s of p.samples ?? []) self.set(s, (self.get(s) ?? 0) + 1);
  const total = (p.samples ?? []).length;
  const selfBy = new Map<string, number>();
  const totalBy = new Map<string, number>();
  const areaBy = new Map<string, number>();
  let idle = 0;
  for (const [id, hits] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const name = n.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      if (name === '(idle)') idle += hits;
      else areaBy.set(name, (areaBy.get(name) ?? 0) + hits);
      if (name === '(idle)') continue;
    }
    selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + hits);
    if (!name.startsWith('('))
      areaBy.set(areaOf(n.callFrame.url), (areaBy.get(areaOf(n.callFrame.url)) ?? 0) + hits);
    // Total: count the sample once for every distinct function on its stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const a = byId.get(at);
      if (!a) break;
      const l = label(a);
      if (seen.has(l)) continue;
      seen.add(l);
      totalBy.set(l, (totalBy.get(l) ?? 0) + hits);
    }
  }
  const busy = total - idle;
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([fn, hits]) => ({ fn, pctOfBusy: round((hits / busy) * 100, 1) }));
  return {
    samples: total,
    busySamples: busy,
    sampledMs: round((p.endTime - p.startTime) / 1000, 0),
    byArea: top(areaBy),
    bySelf: top(selfBy),
    byTotal: top(totalBy),
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
  floor: FloorLane,
  from: number,
  rounds = ROUNDS,
  roundRuns = ROUND_RUNS,
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
  const runs = rounds * roundRuns;
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
    const leaseItem = (await createDeps({ doc: dyn.client(), tableName: dyn.tableName }).leases.get({
      job: name,
    })) as Record<string, unknown>;
    const stub = stubRequestHandler(leaseItem);
    const offlineDeps = createDeps({
      doc: createDocumentClient({ endpoint: 'http://127.0.0.1:9', requestHandler: stub }),
      tableName: dyn.tableName,
    });
    const runOffline = runner(name, offlineDeps);
    const offlineFloor = floorOf(
      { endpoint: 'http://127.0.0.1:9', requestHandler: stub },
      dyn.tableName,
      name,
    );
    for (let i = next; i < next + WARMUP; i++) await runOffline(i);
    next += WARMUP;
    const offline = await compareWithFloor(
      runOffline,
      offlineFloor,
      next,
      OFFLINE_ROUNDS,
      OFFLINE_ROUND_RUNS,
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
    const s = summarise(profile);
    const nodeCpuMsPerRun = round((cpu.user + cpu.system) / 1000 / RUNS, 3);
    emit(
      'profile-run',
      {
        command: 'npx tsx bench/profile-run.ts',
        subject: SUBJECT,
        runs: RUNS,
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
