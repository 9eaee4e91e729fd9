/**
 * What the shape of cronfence's requests costs: the floor (cronfence's own claim, run
 * record and release sent raw, bench/support/floor.ts) against Powertools `makeIdempotent`, and the
 * floor with parts of its requests stripped — each strip drops a guarantee (bench/support/floor.ts
 * `Strip`), so none is a candidate: they measure how far lighter requests could go at all. All
 * interleaved in rounds against ONE DynamoDB Local, trivial body (one PutItem), concurrency 1.
 * Run: npx tsx bench/peer-shapes.ts   (BENCH_SHAPES_RUNS=<runs per variant per round>, default 100)
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { lambdaContext, schedulerPayload } from '../harness/local/scheduler-emulator.js';
import { cpuNow, cpuSince } from './support/cpu.js';
import { FloorLane, type Strip } from './support/floor.js';
import { slotMs } from './support/jobs.js';
import { benchDynamo } from './support/local.js';
import { emit, type FigureRow, median, nowMs, round } from './support/report.js';

const RUNS = Number(process.env.BENCH_SHAPES_RUNS ?? 100);
const ROUNDS = 8;
const WARM = 300;

/** The variants: the floor as shipped, then one strip each, then every strip at once. */
const VARIANTS: Record<string, Strip> = {
  floor: {},
  'claim returns nothing': { claimReturnsNothing: true },
  'minimal claim': { minimalClaim: true },
  'slim run record': { slimRecord: true },
  'release without done set': { releaseWithoutDoneSet: true },
  'no item on refusal': { noRefusalItem: true },
  'no run record (3 requests)': { noRunRecord: true },
  'record + release as one transaction (3 requests, 5 WCU)': { transactionFinish: true },
  'all stripped': {
    minimalClaim: true,
    slimRecord: true,
    releaseWithoutDoneSet: true,
    noRefusalItem: true,
  },
};

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    const config = {
      endpoint: dyn.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    };
    const ptTable = `${dyn.tableName}-powertools`;
    await new DynamoDBClient(config).send(
      new CreateTableCommand({
        TableName: ptTable,
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      }),
    );
    const bodyClient = new DynamoDBClient(config);
    const body = (key: string) => () =>
      bodyClient.send(new PutItemCommand({ TableName: dyn.raw, Item: { pk: { S: key }, v: { N: '1' } } }));
    const powertools = makeIdempotent(
      async (event: { job: string; scheduledTime: string }, _context: Context) => {
        await body(`${event.job}|${event.scheduledTime}`)();
        return { ok: true };
      },
      {
        persistenceStore: new DynamoDBPersistenceLayer({
          tableName: ptTable,
          awsSdkV3Client: new DynamoDBClient(config),
        }),
        config: new IdempotencyConfig({ eventKeyJmesPath: '[job, scheduledTime]' }),
      },
    );
    interface Contender {
      prepare(from: number, n: number): void;
      run(i: number): Promise<unknown>;
    }
    const contenders: Record<string, Contender> = {
      powertools: {
        prepare: () => undefined,
        run: (i) =>
          powertools(
            schedulerPayload('shapes-pt', slotMs(i)) as { job: string; scheduledTime: string },
            lambdaContext('shapes-pt', 120),
          ),
      },
    };
    Object.entries(VARIANTS).forEach(([name, strip], n) => {
      const job = `shapes-${n}`;
      const lane = new FloorLane({
        client: new DynamoDBClient(config),
        table: dyn.tableName,
        job,
        def: 'shapes',
        scheduledMs: slotMs,
        strip,
      });
      contenders[name] = {
        prepare: (f, k) => lane.prepare(f, k),
        run: (i) => lane.run(i, body(`${job}|${i}`)),
      };
    });
    const names = Object.keys(contenders);
    for (const c of Object.values(contenders)) {
      c.prepare(0, WARM);
      for (let i = 0; i < WARM; i++) await c.run(i);
    }
    const acc = Object.fromEntries(names.map((k) => [k, { latenciesMs: [] as number[], cpuMs: 0, runs: 0 }]));
    let base = WARM;
    for (let r = 0; r < ROUNDS; r++) {
      for (const k of [...names.slice(r % names.length), ...names.slice(0, r % names.length)]) {
        const c = contenders[k] as Contender;
        const a = acc[k] as (typeof acc)[string];
        c.prepare(base, RUNS);
        const cpu = cpuNow(dyn.pid);
        for (let i = base; i < base + RUNS; i++) {
          const t = nowMs();
          await c.run(i);
          a.latenciesMs.push(nowMs() - t);
        }
        const used = cpuSince(cpu, dyn.pid);
        a.cpuMs += used.nodeMs + (used.serverMs ?? 0);
        a.runs += RUNS;
      }
      base += RUNS;
    }
    const pt = acc.powertools as (typeof acc)[string];
    const ptLatency = median(pt.latenciesMs);
    const ptCpu = pt.cpuMs / pt.runs;
    const results = Object.fromEntries(
      names.map((k) => {
        const a = acc[k] as (typeof acc)[string];
        return [
          k,
          {
            medianLatencyMs: round(median(a.latenciesMs), 2),
            cpuMsPerRun: round(a.cpuMs / a.runs, 2),
            latencyOverPowertools: round(median(a.latenciesMs) / ptLatency, 2),
            cpuOverPowertools: round(a.cpuMs / a.runs / ptCpu, 2),
          },
        ];
      }),
    );
    const rows: FigureRow[] = names
      .filter((k) => k !== 'powertools')
      .map((k) => ({
        figure: `${k}: latency / CPU ÷ Powertools (targets 1.35 / 1.3)`,
        value: `${results[k]?.latencyOverPowertools} / ${results[k]?.cpuOverPowertools}`,
      }));
    emit(
      'peer-shapes',
      {
        command: 'npx tsx bench/peer-shapes.ts',
        rounds: ROUNDS,
        runsPerVariantPerRound: RUNS,
        variants: VARIANTS,
        results,
      },
      rows,
    );
  } finally {
    await dyn.stop();
  }
}

await main();
