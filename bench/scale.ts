/**
 * Figure 5 — scale: the merchant-settlement logic over 10,000 merchants (bounded concurrency inside
 * the invocation) with 3 duplicate invocations and one kill midway, on DynamoDB Local: exactly 10,000
 * rows (and, in the payouts scenario, 10,000 payouts executed by the payment service). Wall time as a
 * ratio to 10,000 raw conditional PutItems of the same rows at the same concurrency, measured before
 * and after in the same process; peak RSS. Then continuation across invocations with a short deadline.
 *
 * The kill: invocation A's client stops sending (every later request hangs, as in a dead process)
 * once A has settled half; the retry B is delivered at once with its clock past A's lease (the wait
 * for the lease to expire is configuration, not work, and is left out of the wall time).
 * Run: npx tsx bench/scale.ts [merchants=10000]
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { settlementAmountCents } from '../functions/merchants.js';
import { ControlledClock } from '../harness/faults/clock.js';
import { FaultInjector } from '../harness/faults/sdk-faults.js';
import { startPaymentService } from '../harness/local/payment-service.js';
import { deliver } from '../harness/local/scheduler-emulator.js';
import { BusinessAttr } from '../lib/core/results.js';
import { httpJsonProvider } from '../lib/effects/http-provider.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { benchWorker } from './support/jobs.js';
import { type BenchDynamo, benchDynamo } from './support/local.js';
import { RequestMeter } from './support/meter.js';
import { emit, nowMs, peakRssMb, pool, round } from './support/report.js';
import { generateMerchants, settleJob } from './support/settle.js';

const COUNT = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = 16;
/** 01:00 Asia/Shanghai on 2026-03-29 (settles 2026-03-28); each scenario takes its own day. */
const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const DAY_MS = 86_400_000;
const LEASE_S = 30;
const ROUNDS = 2;

/** 10,000 raw conditional PutItems of the same rows, same concurrency, on a date no run uses. */
async function rawPuts(dyn: BenchDynamo, date: string, merchants: ReturnType<typeof generateMerchants>) {
  const doc = dyn.client();
  const ms = await pool(merchants.length, CONCURRENCY, async (i) => {
    const m = merchants[i] as (typeof merchants)[number];
    await doc.send(
      new PutCommand({
        TableName: dyn.settlements,
        Item: {
          merchantId: m.merchantId,
          settlementDate: date,
          merchantName: m.name,
          currency: m.currency,
          amountCents: settlementAmountCents(m, date),
          [BusinessAttr.status]: 'succeeded',
          [BusinessAttr.fence]: 1,
          [BusinessAttr.runId]: '00000000a-0123456789',
          [BusinessAttr.lease]: 'JOB#raw',
          [BusinessAttr.writtenAtMs]: Date.now(),
        },
        ConditionExpression: 'attribute_not_exists(#k)',
        ExpressionAttributeNames: { '#k': 'merchantId' },
      }),
    );
  });
  doc.destroy();
  return ms;
}

/** A, 3 duplicates, kill A at half, retry B: returns wall time and what happened. */
async function killScenario(
  dyn: BenchDynamo,
  name: string,
  { payments, slotMs, count = COUNT }: { payments: boolean; slotMs: number; count?: number },
) {
  const merchants = generateMerchants(count);
  const progressDoc = dyn.client();
  const progressMeter = new RequestMeter().attach(progressDoc);
  const service = payments ? await startPaymentService({ idempotencyKeys: true }) : undefined;
  const provider = service
    ? httpJsonProvider<Record<string, unknown>>({
        name: 'payments',
        baseUrl: service.url,
        path: '/payouts',
        idempotencyKeys: true,
        keyRetentionMs: Number.POSITIVE_INFINITY, // the local service never forgets a key
        lookup: false,
      })
    : undefined;
  const faultsA = new FaultInjector();
  let settledByA = 0;
  let killed = false;
  let bodyStarted: () => void = () => undefined;
  const started = new Promise<void>((r) => {
    bodyStarted = r;
  });
  const job = (onSettled?: () => void) =>
    settleJob({
      name,
      merchants,
      concurrency: CONCURRENCY,
      leaseSeconds: LEASE_S,
      ...(provider && { payments: provider }),
      progress: { tableName: dyn.progress, doc: progressDoc },
      ...(onSettled && { onSettled }),
    });
  const a = benchWorker(dyn, { faults: faultsA });
  const handlerA = job(() => {
    bodyStarted();
    if (++settledByA >= Math.floor(count * 0.525) && !killed) {
      killed = true; // from now on A's process sends nothing: every request hangs
      faultsA.add({
        name: 'kill -9',
        match: () => true,
        action: { kind: 'hold', release: new Promise<void>(() => undefined) },
        times: Number.POSITIVE_INFINITY,
      });
    }
  }).withDeps(() => a.deps);
  const dups = Array.from({ length: 3 }, () => benchWorker(dyn));
  const b = benchWorker(dyn, { clock: new ControlledClock((LEASE_S + 1) * 1000) });

  const t0 = nowMs();
  void deliver(handlerA, { job: name, scheduledTimeMs: slotMs, awsRequestId: 'req-1', label: 'A' });
  await started;
  const duplicates = await Promise.all(
    dups.map((d) =>
      deliver(job().withDeps(() => d.deps) as JobHandler, {
        job: name,
        scheduledTimeMs: slotMs,
        awsRequestId: 'req-1',
        label: 'duplicate',
      }),
    ),
  );
  while (!killed) await new Promise((r) => setTimeout(r, 5));
  const retry = await deliver(
    job().withDeps(() => b.deps),
    {
      job: name,
      scheduledTimeMs: slotMs,
      attemptNumber: 2,
      label: 'B (retry after the kill)',
    },
  );
  const wallMs = nowMs() - t0;
  const rows = await dyn.count(dyn.settlements, (r) => r[BusinessAttr.lease] === `JOB#${name}`);
  const executedPayouts = service?.payouts().length;
  const perMerchant = (n: number) => round(n / count, 3);
  const writes = a.meter.snapshot().writes + b.meter.snapshot().writes + progressMeter.snapshot().writes;
  const reads = a.meter.snapshot().reads + b.meter.snapshot().reads + progressMeter.snapshot().reads;
  await service?.stop();
  progressDoc.destroy();
  if (retry.summary?.outcome !== 'succeeded') throw new Error(`retry did not succeed: ${retry.error}`);
  return {
    wallMs: round(wallMs, 1),
    rows,
    ...(executedPayouts !== undefined && { executedPayouts }),
    settledByA,
    duplicates: duplicates.map((d) => `${d.summary?.outcome}/${d.summary?.reason}`),
    retry: { outcome: retry.summary.outcome, fence: retry.summary.fence },
    requests: { A: a.meter.snapshot().requests, B: b.meter.snapshot().requests, progressReads: reads },
    writesPerMerchant: perMerchant(writes),
    readsPerMerchant: perMerchant(reads),
  };
}

/** Continuation with a short deadline: invocations of `timeoutSeconds` until the slot succeeds. */
async function deadlineScenario(dyn: BenchDynamo, count: number, timeoutSeconds: number) {
  const merchants = generateMerchants(count);
  const progressDoc = dyn.client();
  const w = benchWorker(dyn);
  const handler = settleJob({
    name: 'bench-deadline',
    merchants,
    concurrency: CONCURRENCY,
    leaseSeconds: timeoutSeconds,
    timeoutSeconds,
    progress: { tableName: dyn.progress, doc: progressDoc },
  }).withDeps(() => w.deps);
  const invocations = [];
  for (let attempt = 1; attempt <= 30; attempt++) {
    const r = await deliver(handler, {
      job: 'bench-deadline',
      scheduledTimeMs: SLOT_MS + 2 * DAY_MS,
      attemptNumber: attempt,
      label: `attempt ${attempt}`,
    });
    const rows = await dyn.count(
      dyn.settlements,
      (x) => String(x[BusinessAttr.lease]) === 'JOB#bench-deadline',
    );
    invocations.push({
      attempt,
      outcome: r.summary?.outcome,
      reason: r.summary?.reason ?? '-',
      rowsAfter: rows,
    });
    if (r.summary?.outcome === 'succeeded') break;
  }
  progressDoc.destroy();
  return { merchants: count, timeoutSeconds, invocations };
}

async function main(): Promise<void> {
  const dyn = await benchDynamo();
  try {
    const merchants = generateMerchants(COUNT);
    // Warm both JITs (DynamoDB Local's and Node's) on every request shape the scenarios send.
    await rawPuts(dyn, '1999-01-01', merchants);
    await killScenario(dyn, 'bench-scale-warmup', {
      payments: false,
      slotMs: SLOT_MS + 30 * DAY_MS,
      count: 2_000,
    });
    const rssBefore = peakRssMb();
    // raw, scenario, raw, scenario, raw: each scenario against the mean of the raw runs around it.
    const raws = [await rawPuts(dyn, '2000-01-01', merchants)];
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const scenario = await killScenario(dyn, `bench-scale-rows-${r}`, {
        payments: false,
        slotMs: SLOT_MS + (10 + r) * DAY_MS,
      });
      raws.push(await rawPuts(dyn, `2000-01-0${r + 2}`, merchants));
      const rawMs = ((raws[r] as number) + (raws[r + 1] as number)) / 2;
      rounds.push({ ...scenario, rawMs: round(rawMs, 1), ratioToRaw: round(scenario.wallMs / rawMs) });
    }
    const rssAfterRows = peakRssMb();
    const rowsOnly = rounds[rounds.length - 1] as (typeof rounds)[number];
    const ratio = round(rounds.reduce((a, x) => a + x.ratioToRaw, 0) / rounds.length);
    const rawMs = raws.reduce((a, b) => a + b, 0) / raws.length;
    const withPayouts = await killScenario(dyn, 'bench-scale-payouts', {
      payments: true,
      slotMs: SLOT_MS + DAY_MS,
    });
    const ratioPayouts = round(withPayouts.wallMs / rawMs);
    const deadline = await deadlineScenario(dyn, 6000, 4);
    const rss = peakRssMb();
    emit(
      'scale',
      {
        command: 'npx tsx bench/scale.ts',
        merchants: COUNT,
        concurrency: CONCURRENCY,
        rawPutsMs: raws.map((x) => round(x, 1)),
        rowsOnlyRounds: rounds,
        rowsOnlyRatioMean: ratio,
        withPayouts: { ...withPayouts, ratioToRaw: ratioPayouts },
        deadline,
        peakRssMb: { beforeScenarios: rssBefore, afterRowsOnly: rssAfterRows, end: rss },
      },
      [
        {
          figure: 'rows per rows-only round',
          value: rounds.map((x) => x.rows).join(', '),
          target: `= ${COUNT}`,
          met: rounds.every((x) => x.rows === COUNT),
        },
        { figure: 'duplicates (last round)', value: rowsOnly.duplicates.join(', ') },
        {
          figure: `wall ms per round: scenario / ${COUNT} raw puts`,
          value: rounds.map((x) => `${x.wallMs} / ${x.rawMs}`).join(', '),
        },
        {
          figure: 'wall time ratio (rows only), mean of rounds',
          value: ratio,
          target: '<= 1.25',
          met: ratio <= 1.25,
        },
        {
          figure: 'writes / reads per merchant (rows only)',
          value: `${rowsOnly.writesPerMerchant} / ${rowsOnly.readsPerMerchant}`,
        },
        {
          figure: 'rows | payouts executed (with payouts)',
          value: `${withPayouts.rows} | ${withPayouts.executedPayouts}`,
          target: `= ${COUNT} | ${COUNT}`,
          met: withPayouts.rows === COUNT && withPayouts.executedPayouts === COUNT,
        },
        { figure: 'wall time ratio (with payouts)', value: ratioPayouts },
        {
          figure: 'writes / reads per merchant (with payouts)',
          value: `${withPayouts.writesPerMerchant} / ${withPayouts.readsPerMerchant}`,
        },
        {
          figure: `deadline ${deadline.timeoutSeconds}s, ${deadline.merchants} merchants: invocations`,
          value: deadline.invocations.map((i) => `${i.outcome}/${i.reason}@${i.rowsAfter}`).join(' '),
        },
        {
          figure: 'peak RSS MB: before | after rows-only | end',
          value: `${rssBefore} | ${rssAfterRows} | ${rss}`,
        },
      ],
    );
  } finally {
    await dyn.stop();
  }
}

await main();
process.exit(0);
