/**
 * Figure 6 — fan-out (docs/design.md "Scale"): a sharded settlement job; one scheduled slot (delivered 3
 * times) fans out to 16 shard invocations, each under its own lease `JOB#<job>#<shard>` and fence,
 * merchants split by shardOf(merchantId, 16). On DynamoDB Local, in process (the dispatcher the local
 * emulator uses; in AWS it is a Lambda async Invoke per shard). Reports requests per merchant (the
 * insert, and in a smaller payouts run the effect's writes; no per-merchant reads) and the claims and
 * skips on every lease: shard leases never contend with each other.
 * Throughput is set against raw conditional PutItems at the same number in flight, measured in the
 * same process (16 shards x BENCH_PER_SHARD, default 1 = 16).
 * Run: npx tsx bench/fan-out.ts [merchants=50000] [payoutMerchants=1000]
 * (100,000 merchants: `npx tsx bench/fan-out.ts 100000` — 2-4 min on 2 shared cores.)
 */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startPaymentService } from '../harness/local/payment-service.js';
import { deliver } from '../harness/local/scheduler-emulator.js';
import { BusinessAttr } from '../lib/core/results.js';
import { httpJsonProvider } from '../lib/effects/http-provider.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../lib/runtime/deps.js';
import type { RuntimeEvent } from '../lib/runtime/events.js';
import { InProcessShardDispatcher, shardOf } from '../lib/runtime/fan-out.js';
import { scanItems } from '../lib/store/client.js';
import { benchWorker } from './support/jobs.js';
import { type BenchDynamo, benchDynamo } from './support/local.js';
import { emit, nowMs, peakRssMb, pool, round } from './support/report.js';
import { generateMerchants, settleJob } from './support/settle.js';

const COUNT = Number(process.argv[2] ?? 50_000);
const PAYOUT_COUNT = Number(process.argv[3] ?? 1_000);
const RAW_PUTS = 5_000;
const SHARDS = 16;
const PER_SHARD_CONCURRENCY = Number(process.env.BENCH_PER_SHARD ?? 1);
const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');

async function run(
  dyn: BenchDynamo,
  name: string,
  { count, slotMs, payouts }: { count: number; slotMs: number; payouts: boolean },
) {
  const merchants = generateMerchants(count);
  const service = payouts ? await startPaymentService({ idempotencyKeys: true }) : undefined;
  let renewals = 0;
  const claims = new Map<string, { won: number; lost: Record<string, number> }>();
  const leaseOf = (e: RuntimeEvent) => (e.shard === undefined ? 'job' : `shard ${e.shard}`);
  const w = benchWorker(dyn, {
    observe: (e) => {
      if (e.type === 'renew') renewals++;
      if (e.type !== 'claim-won' && e.type !== 'claim-lost') return;
      const c = claims.get(leaseOf(e)) ?? { won: 0, lost: {} };
      if (e.type === 'claim-won') c.won++;
      else c.lost[e.reason] = (c.lost[e.reason] ?? 0) + 1;
      claims.set(leaseOf(e), c);
    },
  });
  let handler: JobHandler | undefined;
  const dispatcher = new InProcessShardDispatcher(() => handler as JobHandler);
  handler = settleJob({
    name,
    merchants,
    shards: SHARDS,
    concurrency: PER_SHARD_CONCURRENCY,
    leaseSeconds: 60,
    timeoutSeconds: 900,
    ...(service && {
      payments: httpJsonProvider<Record<string, unknown>>({
        name: 'payments',
        baseUrl: service.url,
        path: '/payouts',
        idempotencyKeys: true,
        keyRetentionMs: Number.POSITIVE_INFINITY, // the local service never forgets a key
        lookup: false,
      }),
    }),
  }).withDeps(() => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps);

  const t0 = nowMs();
  const parents = await Promise.all(
    Array.from({ length: 3 }, () =>
      deliver(handler as JobHandler, {
        job: name,
        scheduledTimeMs: slotMs,
        awsRequestId: 'r-1',
        label: 'dup',
      }),
    ),
  );
  const shards = await dispatcher.settled();
  const wallMs = nowMs() - t0;
  const failed = shards.filter((s) => s.summary?.outcome !== 'succeeded');
  if (failed.length > 0) throw new Error(`${failed.length} shard runs did not succeed: ${failed[0]?.error}`);

  // Every row once, under the lease of the shard shardOf() names.
  let rows = 0;
  let misplaced = 0;
  const doc = dyn.client();
  for (const r of await scanItems(doc, {
    TableName: dyn.settlements,
    ProjectionExpression: 'merchantId, #lease',
    FilterExpression: '#lease >= :p AND #lease < :q',
    ExpressionAttributeNames: { '#lease': BusinessAttr.lease },
    ExpressionAttributeValues: { ':p': `JOB#${name}#`, ':q': `JOB#${name}$` },
  })) {
    rows++;
    if (r[BusinessAttr.lease] !== `JOB#${name}#${shardOf(String(r.merchantId), SHARDS)}`) misplaced++;
  }
  doc.destroy();
  const m = w.meter.snapshot();
  const executed = service?.payouts().length;
  await service?.stop();
  const shardLeases = [...claims].filter(([k]) => k !== 'job');
  const leaseHeldOnShards = shardLeases.reduce((n, [, c]) => n + (c.lost['lease-held'] ?? 0), 0);
  // claim + record + release per run, 2 writes per skipped duplicate, 1 per lease renewal
  const protocolWrites = 3 * (1 + SHARDS) + 2 * 2 + renewals;
  return {
    merchants: count,
    shards: SHARDS,
    perShardConcurrency: PER_SHARD_CONCURRENCY,
    wallMs: round(wallMs, 1),
    merchantsPerSecond: round((count / wallMs) * 1000, 1),
    rows,
    misplacedRows: misplaced,
    ...(executed !== undefined && { executedPayouts: executed }),
    parents: parents.map((p) => `${p.summary?.outcome}/${p.summary?.reason ?? '-'}`),
    requests: m.requests,
    writesPerMerchant: round(m.writes / count, 4),
    readsPerMerchant: round(m.reads / count, 4),
    renewals,
    writesPerMerchantBeyondProtocol: round((m.writes - protocolWrites) / count, 4),
    wcuPerMerchant: round(m.wcu / count, 3),
    leases: Object.fromEntries(claims),
    leaseHeldSkipsOnShardLeases: leaseHeldOnShards,
    shardLeasesClaimedOnce: shardLeases.length === SHARDS && shardLeases.every(([, c]) => c.won === 1),
  };
}

/** Raw conditional PutItems of settlement-shaped rows per second, at the shards' total concurrency. */
async function rawPutsPerSecond(dyn: BenchDynamo, date: string): Promise<number> {
  const doc = dyn.client();
  const ms = await pool(RAW_PUTS, SHARDS * PER_SHARD_CONCURRENCY, (i) =>
    doc.send(
      new PutCommand({
        TableName: dyn.settlements,
        Item: {
          merchantId: `M${i + 1}`,
          settlementDate: date,
          merchantName: `Merchant ${i + 1}`,
          currency: 'CNY',
          amountCents: 1,
        },
        ConditionExpression: 'attribute_not_exists(#k)',
        ExpressionAttributeNames: { '#k': 'merchantId' },
      }),
    ),
  );
  doc.destroy();
  return (RAW_PUTS / ms) * 1000;
}

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    // Warm both JITs (DynamoDB Local's and Node's) on every request shape the runs send.
    await rawPutsPerSecond(dyn, '1999-01-01');
    await run(dyn, 'bench-fanout-warmup', {
      count: 3_000,
      slotMs: SLOT_MS + 30 * 86_400_000,
      payouts: false,
    });
    const raw1 = await rawPutsPerSecond(dyn, '2000-01-01');
    const rows = await run(dyn, 'bench-fanout', { count: COUNT, slotMs: SLOT_MS, payouts: false });
    const raw2 = await rawPutsPerSecond(dyn, '2000-01-02');
    const rawPerSecond = round((raw1 + raw2) / 2, 1);
    const fractionOfRaw = round(rows.merchantsPerSecond / rawPerSecond);
    const withPayouts = await run(dyn, 'bench-fanout-pay', {
      count: PAYOUT_COUNT,
      slotMs: SLOT_MS + 86_400_000,
      payouts: true,
    });
    const rss = peakRssMb();
    emit(
      'fan-out',
      {
        command: 'npx tsx bench/fan-out.ts',
        rowsOnly: rows,
        rawPutsPerSecond: { before: round(raw1, 1), after: round(raw2, 1), mean: rawPerSecond },
        merchantsPerSecondOverRawPuts: fractionOfRaw,
        withPayouts,
        peakRssMb: rss,
      },
      [
        {
          figure: `rows (${COUNT} merchants, ${SHARDS} shards)`,
          value: rows.rows,
          target: `= ${COUNT}`,
          met: rows.rows === COUNT && rows.misplacedRows === 0,
        },
        {
          figure: 'wall s | merchants/s | raw puts/s (same in flight)',
          value: `${round(rows.wallMs / 1000, 1)} | ${rows.merchantsPerSecond} | ${rawPerSecond}`,
        },
        { figure: 'merchants/s over raw puts/s', value: fractionOfRaw },
        { figure: 'parent deliveries', value: rows.parents.join(', ') },
        {
          figure: 'writes / reads per merchant (rows)',
          value: `${rows.writesPerMerchant} / ${rows.readsPerMerchant}`,
          target: '1 insert (+protocol) / 0',
          met: rows.writesPerMerchantBeyondProtocol === 1 && rows.readsPerMerchant === 0,
        },
        {
          figure: 'lease-held skips on shard leases | each shard claimed once',
          value: `${rows.leaseHeldSkipsOnShardLeases} | ${rows.shardLeasesClaimedOnce}`,
          target: '0 | true',
          met: rows.leaseHeldSkipsOnShardLeases === 0 && rows.shardLeasesClaimedOnce,
        },
        {
          figure: `payouts run (${PAYOUT_COUNT}): rows | executed payouts`,
          value: `${withPayouts.rows} | ${withPayouts.executedPayouts}`,
          target: `= ${PAYOUT_COUNT} | ${PAYOUT_COUNT}`,
          met: withPayouts.rows === PAYOUT_COUNT && withPayouts.executedPayouts === PAYOUT_COUNT,
        },
        {
          figure: 'payouts run: requests per merchant (beyond protocol) / reads',
          value: `${withPayouts.writesPerMerchantBeyondProtocol} / ${withPayouts.readsPerMerchant}`,
          target: 'insert + effect writes / 0',
        },
        { figure: 'peak RSS MB', value: rss },
      ],
    );
  } finally {
    await dyn.stop();
  }
}

await main();
process.exit(0);
