/**
 * Peer comparison: cronfence vs Powertools for AWS Lambda's idempotency utility
 * (`makeIdempotent` with its DynamoDB persistence layer, keyed by job + scheduled time) vs the bare body,
 * interleaved occurrence by occurrence in rounds against ONE DynamoDB Local, for a trivial body (one PutItem) and a 100-write
 * body, at concurrency 1 and 8 (8 lanes: 8 jobs / keys, each its own client like a Lambda instance).
 * Per run: requests, WCU, RCU (ReturnConsumedCapacity, bench/support/meter.ts), median latency,
 * runs/s and CPU (Node + DynamoDB Local). Per duplicate (concurrent, during-run, late): requests and
 * WCU, whether it throws, and — because a thrown duplicate under Lambda's async invoke is a function
 * error that Lambda retries — the end-to-end cost per occurrence including that retry.
 * Run: npx tsx bench/peer.ts   (BENCH_PEER_RUNS=<runs per lane per round>, default 30)
 */

import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { lambdaContext, schedulerPayload } from '../harness/local/scheduler-emulator.js';
import { dynamoItemBytes } from '../lib/core/item-bounds.js';
import { definitionId } from '../lib/core/liveness.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { createDeps } from '../lib/runtime/deps.js';
import { cpuNow, cpuSince } from './support/cpu.js';
import { FloorLane } from './support/floor.js';
import { benchJob, slotMs } from './support/jobs.js';
import { type BenchDynamo, benchDynamo } from './support/local.js';
import { type MeterSnapshot, RequestMeter } from './support/meter.js';
import { emit, type FigureRow, median, nowMs, round } from './support/report.js';

/** DynamoDB on-demand write price, USD per million WRU (as bench/protocol-cost.ts; BENCH_WRU_USD overrides). */
const WRU_USD_PER_MILLION = Number(process.env.BENCH_WRU_USD ?? 0.625);
/** Rounds of interleaved phases: each contender goes first once. */
const ROUNDS = 5;
const RUNS = Number(process.env.BENCH_PEER_RUNS ?? 30);
const DUPLICATES = 20;
/** Lambda price per request and per GB-s (us-east-1, x86), USD: for the end-to-end cost of a retry. */
const LAMBDA_USD = { perMillionRequests: 0.2, perGbSecond: 0.0000166667, memoryGb: 0.125 };

/**
 * `floor` and `floor-parallel` are not products: they send cronfence's own protocol requests for an
 * occurrence (claim, run record, release: built by the protocol's declarations before the phase, sent
 * through a bare DynamoDBClient with no library code around them) — the cost of the requests alone,
 * which bounds what any lightening of the library can reach. `floor-parallel` sends the run record
 * and the release at once (one round trip less, a guarantee less: docs/design.md "Why the finish is
 * two ordered writes").
 */
type Kind = 'cronfence' | 'powertools' | 'bare' | 'floor' | 'floor-parallel';
const KINDS: readonly Kind[] = ['cronfence', 'powertools', 'bare', 'floor', 'floor-parallel'];
type Body = 'trivial' | 'write100';

/** One contender on one lane: invoke an occurrence (slot index) as Lambda would. */
/** `hold`: the body waits on it; `entered`: called when the body starts (the claim is made). */
interface InvokeOpts {
  readonly hold?: Promise<void>;
  readonly entered?: () => void;
  readonly requestId?: string;
}
type Invoke = (slot: number, opts?: InvokeOpts) => Promise<unknown>;

interface Lane {
  readonly invoke: Invoke;
  /** Build the requests of occurrences `from`..`from + n - 1` ahead of the timed phase (the floors). */
  readonly prepare?: (from: number, n: number) => void;
}

async function bodyWrites(doc: DynamoDBDocumentClient, table: string, key: string, body: Body) {
  const n = body === 'trivial' ? 1 : 100;
  for (let j = 0; j < n; j++)
    await doc.send(new PutCommand({ TableName: table, Item: { pk: `${key}#${j}`, v: j } }));
}

/** The Powertools table: `id` string key, as its docs describe (TTL on `expiration`). */
async function powertoolsTable(dyn: BenchDynamo): Promise<string> {
  const name = `${dyn.tableName}-powertools`;
  const client = new DynamoDBClient({
    endpoint: dyn.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    }),
  );
  return name;
}

/** Make a lane of `kind` on its own client, metered by `meter`. */
function lane(
  kind: Kind,
  dyn: BenchDynamo,
  ptTable: string,
  meter: RequestMeter,
  name: string,
  body: Body,
): Lane {
  const doc = dyn.client();
  meter.attach(doc);
  // A during-run duplicate's original waits in its body on its slot's gate (by scheduled time, epoch ms).
  const holds = new Map<number, InvokeOpts>();
  const gate = async (scheduledMs: number) => {
    const o = holds.get(scheduledMs);
    o?.entered?.();
    if (o?.hold) await o.hold;
  };
  const withHold = async (slot: number, o: InvokeOpts, run: () => Promise<unknown>) => {
    if (o.hold) holds.set(slotMs(slot), o);
    try {
      return await run();
    } finally {
      if (o.hold) holds.delete(slotMs(slot));
    }
  };
  const context = (requestId?: string): Context => lambdaContext(name, 120, requestId);
  const payload = (slot: number) => schedulerPayload(name, slotMs(slot));
  // What Lambda hands a handler (the Scheduler payload, the context) is built ahead of a timed phase,
  // like the floors' requests: the harness's ids and ISO strings are not a contender's cost.
  const inputs = new Map<number, { payload: Record<string, unknown>; context: Context }>();
  const prepare = (from: number, n: number) => {
    for (let i = from; i < from + n; i++) inputs.set(i, { payload: payload(i), context: context() });
  };
  const input = (slot: number, requestId?: string) => {
    const ready = requestId === undefined ? inputs.get(slot) : undefined;
    inputs.delete(slot);
    return ready ?? { payload: payload(slot), context: context(requestId) };
  };
  if (kind === 'cronfence') {
    const job: JobHandler = benchJob(name, async (ctx) => {
      await gate(ctx.slot.scheduledTimeMs);
      await bodyWrites(doc, dyn.raw, `${name}|${ctx.slot.id}`, body);
    });
    const deps = createDeps({ doc, tableName: dyn.tableName });
    const h = job.withDeps(() => deps);
    return {
      prepare,
      invoke: (slot, opts = {}) =>
        withHold(slot, opts, () => {
          const i = input(slot, opts.requestId);
          return h(i.payload, i.context);
        }),
    };
  }
  if (kind === 'floor' || kind === 'floor-parallel') return floorLane(kind, dyn, meter, name, body, doc);
  if (kind === 'powertools') {
    const client = new DynamoDBClient({
      endpoint: dyn.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    meter.attach(client);
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName: ptTable, awsSdkV3Client: client });
    const config = new IdempotencyConfig({ eventKeyJmesPath: '[job, scheduledTime]' });
    const fn = makeIdempotent(
      async (event: { job: string; scheduledTime: string }, _ctx: Context) => {
        await gate(Date.parse(event.scheduledTime));
        await bodyWrites(doc, dyn.raw, `${event.job}|${event.scheduledTime}`, body);
        return { ok: true };
      },
      { persistenceStore, config },
    );
    return {
      prepare,
      invoke: (slot, opts = {}) =>
        withHold(slot, opts, () => {
          const i = input(slot, opts.requestId);
          return fn(i.payload as { job: string; scheduledTime: string }, i.context);
        }),
    };
  }
  return {
    prepare,
    invoke: async (slot) => {
      const event = input(slot).payload as { job: string; scheduledTime: string };
      await bodyWrites(doc, dyn.raw, `${event.job}|${event.scheduledTime}`, body);
      return { ok: true };
    },
  };
}

/** A floor lane: cronfence's own requests sent raw (bench/support/floor.ts), on a client of its own. */
function floorLane(
  kind: 'floor' | 'floor-parallel',
  dyn: BenchDynamo,
  meter: RequestMeter,
  name: string,
  body: Body,
  doc: DynamoDBDocumentClient,
): Lane {
  const client = new DynamoDBClient({
    endpoint: dyn.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  meter.attach(client);
  const floor = new FloorLane({
    client,
    table: dyn.tableName,
    job: name,
    def: definitionId(benchJob(name, async () => undefined).job),
    scheduledMs: slotMs,
  });
  return {
    prepare: (from, n) => floor.prepare(from, n),
    invoke: (slot) =>
      floor.run(slot, () => bodyWrites(doc, dyn.raw, `${name}|${slot}`, body), kind === 'floor-parallel'),
  };
}

interface Phase {
  readonly runs: number;
  readonly latenciesMs: number[];
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly meter: MeterSnapshot;
}

/** Run `RUNS` occurrences on each of `c` lanes (fresh slots), timing every invocation. */
async function phase(
  lanes: Lane[],
  meter: RequestMeter,
  pid: number | undefined,
  from: number,
  n: number,
): Promise<Phase> {
  for (const l of lanes) l.prepare?.(from, n);
  meter.reset();
  const latenciesMs: number[] = [];
  const cpu = cpuNow(pid);
  const start = nowMs();
  await Promise.all(
    lanes.map(async (l) => {
      for (let i = 0; i < n; i++) {
        const t = nowMs();
        await l.invoke(from + i);
        latenciesMs.push(nowMs() - t);
      }
    }),
  );
  const wallMs = nowMs() - start;
  const used = cpuSince(cpu, pid);
  return {
    runs: n * lanes.length,
    latenciesMs,
    wallMs,
    cpuMs: used.nodeMs + (used.serverMs ?? 0),
    meter: meter.snapshot(),
  };
}

/**
 * One measured round: occurrence by occurrence, each contender in turn (`order`) runs its lanes on
 * that occurrence at once (all `c` of them, then the next contender). A shared machine's load moves
 * from one second to the next; run in turn like this every contender meets the same load, where whole
 * phases run one after another met different load (on a loaded machine the phases' ratios moved by
 * ±50%). Per contender: every run's latency, its wall time, CPU (Node + DynamoDB Local, summed over its
 * turns) and requests.
 */
async function interleavedRound(
  lanes: Record<Kind, Lane[]>,
  meters: Record<Kind, RequestMeter>,
  pid: number | undefined,
  from: number,
  n: number,
  order: readonly Kind[],
): Promise<Record<Kind, Phase>> {
  const acc = new Map<Kind, { latenciesMs: number[]; wallMs: number; cpuMs: number }>();
  for (const k of order) {
    for (const l of lanes[k]) l.prepare?.(from, n);
    meters[k].reset();
    acc.set(k, { latenciesMs: [], wallMs: 0, cpuMs: 0 });
  }
  for (let i = 0; i < n; i++) {
    for (const k of order) {
      const a = acc.get(k) as { latenciesMs: number[]; wallMs: number; cpuMs: number };
      const cpu = cpuNow(pid);
      const start = nowMs();
      await Promise.all(
        lanes[k].map(async (l) => {
          const t = nowMs();
          await l.invoke(from + i);
          a.latenciesMs.push(nowMs() - t);
        }),
      );
      a.wallMs += nowMs() - start;
      const used = cpuSince(cpu, pid);
      a.cpuMs += used.nodeMs + (used.serverMs ?? 0);
    }
  }
  return Object.fromEntries(
    order.map((k) => {
      const a = acc.get(k) as { latenciesMs: number[]; wallMs: number; cpuMs: number };
      return [k, { runs: n * lanes[k].length, ...a, meter: meters[k].snapshot() }];
    }),
  ) as Record<Kind, Phase>;
}

interface Cost {
  writes: number;
  reads: number;
  wcu: number;
  rcu: number;
}
const costOf = (s: MeterSnapshot, n: number): Cost => ({
  writes: round(s.writes / n),
  reads: round(s.reads / n),
  wcu: round(s.wcu / n),
  rcu: round(s.rcu / n),
});
const minus = (a: Cost, b: Cost): Cost => ({
  writes: round(a.writes - b.writes),
  reads: round(a.reads - b.reads),
  wcu: round(a.wcu - b.wcu),
  rcu: round(a.rcu - b.rcu),
});

/** Duplicates of one kind on fresh occurrences: their cost beyond the original, and what they did. */
async function duplicates(
  kind: Kind,
  dyn: BenchDynamo,
  ptTable: string,
  scenario: 'concurrent' | 'during-run' | 'late',
  solo: Cost,
): Promise<{ perDuplicate: Cost; thrown: number; retry: Cost; retriesThrown: number }> {
  const origMeter = new RequestMeter();
  const dupMeter = new RequestMeter();
  const name = `peer-dup-${kind}-${scenario}`;
  const orig = lane(kind, dyn, ptTable, origMeter, name, 'trivial');
  const dup = lane(kind, dyn, ptTable, dupMeter, name, 'trivial');
  let thrown = 0;
  const retryMeter = new RequestMeter();
  const retryLane = lane(kind, dyn, ptTable, retryMeter, name, 'trivial');
  const toRetry: number[] = [];
  let retriesThrown = 0;
  for (let i = 0; i < DUPLICATES; i++) {
    const slot = 10_000 + i;
    const tryDup = (p: Promise<unknown>) =>
      p.then(
        () => false,
        () => true,
      );
    if (scenario === 'concurrent') {
      // Both copies at the same moment (Lambda's duplicate async delivery): one wins, one is the duplicate.
      const [a, b] = await Promise.all([tryDup(orig.invoke(slot)), tryDup(dup.invoke(slot))]);
      if (a || b) {
        thrown++;
        toRetry.push(slot);
      }
    } else if (scenario === 'during-run') {
      let open!: () => void;
      const hold = new Promise<void>((r) => {
        open = r;
      });
      let entered!: () => void;
      const inBody = new Promise<void>((r) => {
        entered = r;
      });
      const running = orig.invoke(slot, { hold, entered });
      await inBody; // the original has claimed and waits in its body
      if (await tryDup(dup.invoke(slot))) {
        thrown++;
        toRetry.push(slot);
      }
      open();
      await running;
    } else {
      await orig.invoke(slot);
      if (await tryDup(dup.invoke(slot))) thrown++;
    }
  }
  // Lambda's async retry of each thrown duplicate (≥ 1 min later: the original has finished).
  for (const slot of toRetry)
    if (
      await retryLane.invoke(slot).then(
        () => false,
        () => true,
      )
    )
      retriesThrown++;
  const both = costOf(
    {
      ...dupMeter.snapshot(),
      writes: origMeter.snapshot().writes + dupMeter.snapshot().writes,
      reads: origMeter.snapshot().reads + dupMeter.snapshot().reads,
      wcu: origMeter.snapshot().wcu + dupMeter.snapshot().wcu,
      rcu: origMeter.snapshot().rcu + dupMeter.snapshot().rcu,
    },
    DUPLICATES,
  );
  return {
    perDuplicate: minus(both, solo),
    thrown,
    retry:
      toRetry.length > 0
        ? costOf(retryMeter.snapshot(), toRetry.length)
        : { writes: 0, reads: 0, wcu: 0, rcu: 0 },
    retriesThrown,
  };
}

/** A figure row whose target is `value <= max` (the ratio targets in BENCHMARKS.md). */
const atMost = (figure: string, value: number, max: number): FigureRow => ({
  figure,
  value,
  target: `<= ${max}`,
  met: value <= max,
});

/**
 * The finish's two writes (run record PutItem, lease release UpdateItem) sent apart vs as one
 * `TransactWriteItems`, on copies of a real lease item and succeeded run record: WCU of each way.
 */
async function finishAsTransaction(
  dyn: BenchDynamo,
  lease: Record<string, unknown>,
  record: Record<string, unknown>,
): Promise<{ apart: number; transactionReportedByLocal: number; transaction: number }> {
  const meter = new RequestMeter();
  const doc = dyn.client();
  meter.attach(doc);
  const table = dyn.tableName;
  const leaseKey = { pk: `${String(lease.pk)}-txn`, sk: 'LEASE' };
  await doc.send(new PutCommand({ TableName: table, Item: { ...lease, ...leaseKey } }));
  const release = {
    TableName: table,
    Key: leaseKey,
    UpdateExpression: 'SET #u = :zero, #s = :released',
    ConditionExpression: '#o = :owner',
    ExpressionAttributeNames: { '#u': 'leaseUntilMs', '#s': 'holderState', '#o': 'owner' },
    ExpressionAttributeValues: { ':zero': 0, ':released': 'released', ':owner': lease.owner },
  };
  const put = (n: number) => ({
    TableName: table,
    Item: { ...record, sk: `${String(record.sk)}-txn${n}` },
    ConditionExpression: 'attribute_not_exists(pk)',
  });
  meter.reset();
  await doc.send(new PutCommand(put(1)));
  await doc.send(new UpdateCommand(release));
  const apart = meter.snapshot().wcu;
  meter.reset();
  await doc.send(new TransactWriteCommand({ TransactItems: [{ Put: put(2) }, { Update: release }] }));
  // DynamoDB Local reports a transaction like plain writes; AWS bills a transactional write 2 WCU per KB
  // of each item (prepare + commit; DynamoDB developer guide, transactions): the billed figure is twice.
  const reported = meter.snapshot().wcu;
  return { apart, transactionReportedByLocal: reported, transaction: 2 * apart };
}

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    const ptTable = await powertoolsTable(dyn);
    const results: Record<string, Record<Kind, Phase[]>> = {};
    let slotBase = 0;
    for (const body of ['trivial', 'write100'] as const) {
      for (const c of [1, 8]) {
        const key = `${body}/c${c}`;
        const meters = Object.fromEntries(KINDS.map((k) => [k, new RequestMeter()])) as Record<
          Kind,
          RequestMeter
        >;
        const lanes = Object.fromEntries(
          KINDS.map((k) => [
            k,
            Array.from({ length: c }, (_, i) =>
              lane(k, dyn, ptTable, meters[k], `peer-${body}-c${c}-${k}-${i}`, body),
            ),
          ]),
        ) as Record<Kind, Lane[]>;
        // Fewer runs with the 100-write body (each is 100 requests).
        const runs = body === 'trivial' ? RUNS : Math.max(3, Math.floor(RUNS / 6));
        // Warm-up: every client's connections, and with the trivial body cronfence's done sets filled
        // (32 slots: the steady-state lease item; its size does not change a write's WCU).
        const warm = body === 'trivial' ? Math.max(runs, 34) : runs;
        for (const k of KINDS) await phase(lanes[k], meters[k], dyn.pid, slotBase, warm);
        slotBase += warm;
        results[key] = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, Phase[]>;
        for (let r = 0; r < ROUNDS; r++) {
          // Interleaved occurrence by occurrence, rotating who goes first each round.
          const order = [...KINDS.slice(r % KINDS.length), ...KINDS.slice(0, r % KINDS.length)];
          const byKind = await interleavedRound(lanes, meters, dyn.pid, slotBase, runs, order);
          for (const k of KINDS) results[key][k].push(byKind[k]);
          slotBase += runs;
        }
      }
    }

    const summarize = (ps: Phase[]) => {
      const runs = ps.reduce((n, p) => n + p.runs, 0);
      const snap = ps.reduce(
        (acc, p) => ({
          writes: acc.writes + p.meter.writes,
          reads: acc.reads + p.meter.reads,
          wcu: acc.wcu + p.meter.wcu,
          rcu: acc.rcu + p.meter.rcu,
        }),
        { writes: 0, reads: 0, wcu: 0, rcu: 0 },
      );
      return {
        runs,
        perRun: costOf({ ...ps[0]?.meter, ...snap } as MeterSnapshot, runs),
        medianLatencyMs: round(median(ps.flatMap((p) => p.latenciesMs)), 2),
        // Median over rounds of each round's runs/s and CPU per run (robust to one noisy round).
        runsPerSecond: round(median(ps.map((p) => (p.runs / p.wallMs) * 1000)), 1),
        cpuMsPerRun: round(median(ps.map((p) => p.cpuMs / p.runs)), 3),
      };
    };
    const table = Object.fromEntries(
      Object.entries(results).map(([key, byKind]) => {
        const s = Object.fromEntries(KINDS.map((k) => [k, summarize(byKind[k])])) as Record<
          Kind,
          ReturnType<typeof summarize>
        >;
        return [
          key,
          {
            ...s,
            ratios: {
              medianLatencyCronfenceOverPowertools: round(
                s.cronfence.medianLatencyMs / s.powertools.medianLatencyMs,
                2,
              ),
              runsPerSecondCronfenceOverPowertools: round(
                s.cronfence.runsPerSecond / s.powertools.runsPerSecond,
                2,
              ),
              cpuPerRunCronfenceOverPowertools: round(s.cronfence.cpuMsPerRun / s.powertools.cpuMsPerRun, 2),
              medianLatencyCronfenceOverBare: round(s.cronfence.medianLatencyMs / s.bare.medianLatencyMs, 2),
              // The floors: cronfence's requests alone ÷ Powertools, and the library ÷ its own requests.
              medianLatencyFloorOverPowertools: round(
                s.floor.medianLatencyMs / s.powertools.medianLatencyMs,
                2,
              ),
              cpuPerRunFloorOverPowertools: round(s.floor.cpuMsPerRun / s.powertools.cpuMsPerRun, 2),
              medianLatencyParallelFinishOverPowertools: round(
                s['floor-parallel'].medianLatencyMs / s.powertools.medianLatencyMs,
                2,
              ),
              medianLatencyCronfenceOverFloor: round(
                s.cronfence.medianLatencyMs / s.floor.medianLatencyMs,
                2,
              ),
              cpuPerRunCronfenceOverFloor: round(s.cronfence.cpuMsPerRun / s.floor.cpuMsPerRun, 2),
            },
          },
        ];
      }),
    );

    // Duplicates, against each contender's solo run cost (trivial body, c = 1).
    const solo = {
      cronfence: table['trivial/c1']?.cronfence.perRun as Cost,
      powertools: table['trivial/c1']?.powertools.perRun as Cost,
    };
    const dupResults: Record<string, unknown> = {};
    const endToEnd: Record<string, unknown> = {};
    for (const scenario of ['concurrent', 'during-run', 'late'] as const) {
      const byKind: Record<string, Awaited<ReturnType<typeof duplicates>>> = {};
      for (const k of ['cronfence', 'powertools'] as const)
        byKind[k] = await duplicates(k, dyn, ptTable, scenario, solo[k]);
      dupResults[scenario] = byKind;
      endToEnd[scenario] = Object.fromEntries(
        Object.entries(byKind).map(([k, d]) => {
          const retriesPerDup = d.thrown / DUPLICATES;
          const wcu = round(d.perDuplicate.wcu + retriesPerDup * d.retry.wcu);
          const invocations = round(1 + retriesPerDup);
          const occurrenceWcu = round(solo[k as 'cronfence' | 'powertools'].wcu + wcu);
          const latencyS = (table['trivial/c1']?.[k as Kind].medianLatencyMs ?? 0) / 1000;
          const lambdaUsd =
            (1 + invocations) *
            (LAMBDA_USD.perMillionRequests + latencyS * LAMBDA_USD.memoryGb * LAMBDA_USD.perGbSecond * 1e6);
          return [
            k,
            {
              duplicateThrows: `${d.thrown}/${DUPLICATES}`,
              wcuPerDuplicateWithRetry: wcu,
              invocationsPerDuplicate: invocations,
              perOccurrenceWithOneDuplicate: {
                wcu: occurrenceWcu,
                invocations: round(1 + invocations),
                usdPerMillion: round(occurrenceWcu * WRU_USD_PER_MILLION + lambdaUsd, 3),
              },
            },
          ];
        }),
      );
    }

    // The items each writes per successful run (bytes, as DynamoDB sizes them).
    const items = await dyn.scan(dyn.tableName);
    const leaseSizes = items.filter((i) => i.sk === 'LEASE').map(dynamoItemBytes);
    const runSizes = items
      .filter((i) => String(i.sk).startsWith('RUN#') && i.outcome === 'succeeded')
      .map(dynamoItemBytes);
    const ptSizes = (await dyn.scan(ptTable)).map(dynamoItemBytes);
    const leaseItem = items.find((i) => i.sk === 'LEASE' && i.holderState === 'released');
    const runItem = items.find((i) => String(i.sk).startsWith('RUN#') && i.outcome === 'succeeded');
    if (!leaseItem || !runItem) throw new Error('peer: no lease item or run record to copy');
    const finishTxn = await finishAsTransaction(dyn, leaseItem, runItem);
    const itemBytes = {
      cronfenceLeaseMax: Math.max(...leaseSizes),
      cronfenceRunRecordMedian: median(runSizes),
      powertoolsRecordMedian: median(ptSizes),
    };

    const t1 = table['trivial/c1'];
    const t8 = table['trivial/c8'];
    const w1 = table['write100/c1'];
    const w8 = table['write100/c8'];
    if (!t1 || !t8 || !w1 || !w8) throw new Error('peer: a phase is missing');
    const conc = endToEnd.concurrent as Record<string, { wcuPerDuplicateWithRetry: number }>;
    const rows: FigureRow[] = [
      {
        figure: 'successful run: writes / WCU / reads, cronfence vs Powertools',
        value: `${t1.cronfence.perRun.writes} / ${t1.cronfence.perRun.wcu} / ${t1.cronfence.perRun.reads} vs ${t1.powertools.perRun.writes} / ${t1.powertools.perRun.wcu} / ${t1.powertools.perRun.reads}`,
        target: `WCU <= ${t1.powertools.perRun.wcu + 1}`,
        met: t1.cronfence.perRun.wcu <= t1.powertools.perRun.wcu + 1,
      },
      {
        figure: 'concurrent duplicate: WCU incl. the retry of a thrown one, cronfence vs Powertools',
        value: `${conc.cronfence?.wcuPerDuplicateWithRetry} vs ${conc.powertools?.wcuPerDuplicateWithRetry}`,
        target: '<= Powertools',
        met:
          (conc.cronfence?.wcuPerDuplicateWithRetry ?? 99) <=
          (conc.powertools?.wcuPerDuplicateWithRetry ?? 0),
      },
      atMost(
        'median latency, trivial body c=1, cronfence / Powertools',
        t1.ratios.medianLatencyCronfenceOverPowertools,
        1.35,
      ),
      atMost(
        'CPU per run (Node + DynamoDB Local), trivial c=1, cronfence / Powertools',
        t1.ratios.cpuPerRunCronfenceOverPowertools,
        1.3,
      ),
      {
        figure: "floor: cronfence's 3 protocol requests sent raw, trivial c=1, latency / CPU ÷ Powertools",
        value: `${t1.ratios.medianLatencyFloorOverPowertools} / ${t1.ratios.cpuPerRunFloorOverPowertools}`,
      },
      {
        figure: 'library overhead: cronfence ÷ its own requests sent raw, trivial c=1, latency / CPU',
        value: `${t1.ratios.medianLatencyCronfenceOverFloor} / ${t1.ratios.cpuPerRunCronfenceOverFloor}`,
      },
      {
        figure: 'floor with record and release sent at once (3 round trips, unsafe), latency ÷ Powertools',
        value: t1.ratios.medianLatencyParallelFinishOverPowertools,
      },
      {
        figure: 'median latency, trivial c=8, cronfence / Powertools',
        value: t8.ratios.medianLatencyCronfenceOverPowertools,
      },
      {
        figure: 'CPU per run, trivial c=8, cronfence / Powertools',
        value: t8.ratios.cpuPerRunCronfenceOverPowertools,
      },
      {
        figure: 'runs/s, trivial c=1 / c=8, cronfence / Powertools',
        value: `${t1.ratios.runsPerSecondCronfenceOverPowertools} / ${t8.ratios.runsPerSecondCronfenceOverPowertools}`,
      },
      {
        figure: 'runs/s, 100-write body c=1 / c=8, cronfence / Powertools',
        value: `${w1.ratios.runsPerSecondCronfenceOverPowertools} / ${w8.ratios.runsPerSecondCronfenceOverPowertools}`,
      },
      {
        figure: 'median latency, trivial c=1: cronfence / Powertools / bare, ms',
        value: `${t1.cronfence.medianLatencyMs} / ${t1.powertools.medianLatencyMs} / ${t1.bare.medianLatencyMs}`,
      },
      {
        figure: 'item bytes: lease max / run record / Powertools record',
        value: `${itemBytes.cronfenceLeaseMax} / ${itemBytes.cronfenceRunRecordMedian} / ${itemBytes.powertoolsRecordMedian}`,
      },
      {
        figure:
          'finish (run record + release) WCU: two requests / one TransactWriteItems as billed (Local reports)',
        value: `${finishTxn.apart} / ${finishTxn.transaction} (${finishTxn.transactionReportedByLocal})`,
      },
    ];
    for (const scenario of ['concurrent', 'during-run', 'late'] as const) {
      const e = endToEnd[scenario] as Record<
        string,
        { duplicateThrows: string; wcuPerDuplicateWithRetry: number; invocationsPerDuplicate: number }
      >;
      rows.push({
        figure: `${scenario} duplicate: WCU (with retry) / invocations / thrown, cronfence vs Powertools`,
        value: `${e.cronfence?.wcuPerDuplicateWithRetry} / ${e.cronfence?.invocationsPerDuplicate} / ${e.cronfence?.duplicateThrows} vs ${e.powertools?.wcuPerDuplicateWithRetry} / ${e.powertools?.invocationsPerDuplicate} / ${e.powertools?.duplicateThrows}`,
      });
    }
    emit(
      'peer',
      {
        command: 'npx tsx bench/peer.ts',
        rounds: ROUNDS,
        runsPerLanePerRound: RUNS,
        duplicatesPerScenario: DUPLICATES,
        powertools: 'makeIdempotent + DynamoDBPersistenceLayer, eventKeyJmesPath [job, scheduledTime]',
        phases: table,
        duplicates: dupResults,
        endToEndPerDuplicate: endToEnd,
        itemBytes,
        finishWcuApartVsTransaction: finishTxn,
        lambdaPrices: LAMBDA_USD,
      },
      rows,
    );
  } finally {
    await dyn.stop();
  }
}

await main();
