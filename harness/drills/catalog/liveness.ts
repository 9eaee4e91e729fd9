/**
 * Liveness drills (no occurrence silently lost, none re-run): a crash whose Lambda retry meets
 * the dead holder's lease, a shard that fails all its attempts, a zone and a schedule change between
 * deploys, and a run whose details exceed DynamoDB's item limit. Each proves its outcome from the run
 * records, the business rows and the effect records.
 */
import { settlementJob } from '../../../functions/merchant-settlement.js';
import { MERCHANTS } from '../../../functions/merchants.js';
import { settlementsTable } from '../../../functions/tables.js';
import { definitionId } from '../../../lib/core/liveness.js';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import { defineJob, type JobHandler } from '../../../lib/runtime/define-job.js';
import type { ShardDispatcher } from '../../../lib/runtime/fan-out.js';
import { sweep } from '../../../lib/runtime/sweeper.js';
import { forever } from '../../faults/pause-points.js';
import { type Check, check } from '../checks.js';
import type { Worker } from '../stage.js';
import type { Drill, DrillContext } from '../types.js';
import { recordIs, recordOf, recordsMatch, show, tally } from './helpers.js';

/** Rows per merchant and executed payouts of one settlement date, as checks. */
async function settledOnce(ctx: DrillContext, date: string, expectPayouts: boolean): Promise<Check[]> {
  const rows = (await ctx.tables.scan(ctx.tables.names.get(settlementsTable) ?? '')).filter(
    (r) => r.settlementDate === date,
  );
  const perMerchant = new Map<string, number>();
  for (const r of rows)
    perMerchant.set(String(r.merchantId), (perMerchant.get(String(r.merchantId)) ?? 0) + 1);
  const checks = [
    check(
      `one settlement row per merchant for ${date} (${MERCHANTS.length} merchants)`,
      perMerchant.size === MERCHANTS.length && [...perMerchant.values()].every((n) => n === 1),
      `${rows.length} rows for ${perMerchant.size} merchants`,
    ),
  ];
  if (expectPayouts) {
    const effects = (await ctx.tables.scan(ctx.tables.tableName)).filter(
      (i) => i.kind === 'effect' && String(i.key).startsWith('payout#') && String(i.key).endsWith(date),
    );
    checks.push(
      check(
        `one succeeded payout effect per merchant for ${date}`,
        effects.length === MERCHANTS.length && effects.every((e) => e.status === 'succeeded'),
        `${effects.length} payout effects: ${tally2(effects.map((e) => String(e.status)))}`,
      ),
    );
  }
  return checks;
}

function tally2(values: readonly string[]): string {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].map(([k, n]) => `${n}x ${k}`).join(', ') || 'none';
}

/** Case 1: the holder's environment dies after its claim; Lambda's retry arrives a minute later. */
export const crashThenRetry: Drill = {
  name: 'crash-then-retry',
  injected:
    'settlement holder A (120 s lease) killed right after its claim (out of memory); Lambda retries the same event (same request id) at +60 s',
  expected:
    'the retry B sees a holder that stopped renewing, waits for its lease to end, claims fence 2, marks A abandoned and settles every merchant once (not skipped lease-held)',
  async run(ctx) {
    const h = ctx.insertOnce;
    const a = ctx.stage.worker('A');
    const b = ctx.stage.worker('B');
    a.pauses.add({
      name: 'killed after claim',
      at: 'after-claim',
      action: async () => {
        a.kill();
        return forever();
      },
    });
    void ctx.send(a, h, { label: 'A holder', requestId: 'evt-1' });
    const rb = ctx.send(b, h, { label: 'B Lambda retry', requestId: 'evt-1', delayMs: 60_000 });
    await ctx.stage.run();
    const B = await rb;
    const records = await ctx.tables.runRecords(h.job.name);
    const aId = ctx.runIdsOf(a)[0];
    const A = recordOf(records, aId);
    const bRec = recordOf(records, B.summary?.runId);
    return {
      observed: `A ${show(A)}; B ${show(bRec)} after waiting; ${records.length} records`,
      jobs: [h],
      checks: [
        recordIs('A (killed)', A, { outcome: 'abandoned', reason: 'not-released', fence: 1 }),
        recordIs('B (Lambda retry)', bRec, { outcome: 'succeeded', fence: 2 }),
        check('2 run records: one per claimed fence', records.length === 2, `${records.length} records`),
        recordsMatch([B], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** Stage dispatcher: each shard payload is an async invocation on worker `w` after `delayMs`. */
function stageDispatcher(ctx: DrillContext, pick: () => Worker, handler: () => JobHandler): ShardDispatcher {
  return {
    async dispatch(payloads) {
      for (const p of payloads) {
        const h = handler();
        void ctx.stage.deliver(
          {
            worker: pick(),
            handler: h,
            job: h.job.name,
            scheduledTimeMs: Date.parse(String(p.scheduledTime)),
            label: `shard ${String(p.shard)}/${String(p.shards)}`,
            extra: p,
          },
          1_000,
        );
      }
    },
  };
}

/** The sweeper on a worker's client (so virtual time waits for its requests), at `atMs` of stage time. */
function sweepAt(ctx: DrillContext, w: Worker, handler: JobHandler, afterMs: number) {
  // Only the drill's own slot: the fresh table has no history of earlier days.
  const notBeforeMs = ctx.slot(handler).scheduledTimeMs - 1;
  return (async () => {
    await w.clock.sleep(afterMs);
    return sweep(
      {
        leases: w.deps.leases,
        runs: w.deps.runs,
        clock: w.clock,
        log: () => undefined,
      },
      [
        {
          definition: handler.job,
          expression: handler.expression,
          invoke: async (payload) => {
            void ctx.stage.deliver(
              {
                worker: w,
                handler,
                job: handler.job.name,
                scheduledTimeMs: Date.parse(String(payload.scheduledTime)),
                label: `catch-up ${payload.shard === undefined ? '' : `shard ${String(payload.shard)}`}`,
                extra: payload,
              },
              1_000,
            );
          },
        },
      ],
      600_000,
      notBeforeMs,
    );
  })();
}

/** Case 3: a 2-shard settlement whose shard 1 fails its three attempts; the sweeper runs later. */
export const shardFailure: Drill = {
  name: 'shard-failure',
  injected:
    '2-shard settlement: the fan-out hands off both payloads; shard 1 fails all 3 attempts (Lambda: first + 2 retries); the sweeper runs 25 min later (catchUp all)',
  expected:
    'the slot is not done while shard 1 is missing: the sweeper re-triggers shard 1 only, and every merchant is settled and paid once',
  async run(ctx) {
    const w = ctx.stage.worker('W');
    const sweeperWorker = ctx.stage.worker('sweeper');
    let failures = 0;
    let handler: JobHandler | undefined;
    handler = settlementJob({
      name: 'sharded-settlement',
      shards: 2,
      dispatch: stageDispatcher(
        ctx,
        () => w,
        () => handler as JobHandler,
      ),
      beforeMerchant: (c) => {
        if (c.shard === 1 && failures < 3) {
          failures++;
          throw new Error('injected: shard 1 crashed (downstream outage)');
        }
      },
    });
    const h = handler;
    const results = [ctx.send(w, h, { label: 'scheduled fan-out' })];
    // Lambda retries the failed shard invocation twice (function error): two more shard-1 deliveries.
    for (const delayMs of [70_000, 200_000]) {
      results.push(
        ctx.stage.deliver(
          {
            worker: w,
            handler: h,
            job: h.job.name,
            scheduledTimeMs: ctx.slot(h).scheduledTimeMs,
            label: 'Lambda retry of shard 1',
            extra: { shard: 1, shards: 2 },
          },
          delayMs,
        ),
      );
    }
    const report = sweepAt(ctx, sweeperWorker, h, 25 * 60_000);
    await ctx.stage.run();
    const swept = await report;
    const settled = await Promise.all(results);
    const records = await ctx.tables.runRecords(h.job.name);
    const shard1 = records.filter((r) => r.shard === 1);
    const triggered = swept.decisions.filter((d) => d.action === 'triggered');
    const date = ctx.slot(h).businessDate;
    return {
      observed: `${tally(settled)}; sweeper: ${triggered.map((d) => d.reason).join(', ') || 'nothing'}; shard 1 records: ${shard1.map(show).join(', ')}`,
      jobs: [h],
      checks: [
        check(
          'shard 1 failed its 3 attempts',
          shard1.filter((r) => r.outcome === 'failed').length === 3,
          shard1.map(show).join(', '),
        ),
        check(
          'the sweeper re-triggered shard 1 only',
          triggered.length === 1 && triggered[0]?.reason === 'unfinished: shards 1',
          triggered.map((d) => `${d.slot} ${d.reason}`).join('; ') || 'nothing triggered',
        ),
        check(
          'shard 1 then succeeded (catch-up)',
          shard1.some((r) => r.outcome === 'succeeded' && r.trigger === 'catch-up'),
          shard1.map((r) => `${show(r)} ${String(r.trigger)}`).join(', '),
        ),
        ...(await settledOnce(ctx, date, process.env.PAYMENTS_URL !== undefined)),
      ],
    };
  },
};

/** Case 5: an hourly job redeployed from Asia/Tokyo to America/Los_Angeles, then a schedule change. */
export const zoneAndScheduleChange: Drill = {
  name: 'zone-and-schedule-change',
  injected:
    'an hourly job runs 20 h in Asia/Tokyo, is redeployed in America/Los_Angeles (17 local times repeat); a daily cron(0 1) run fails and the job is redeployed as cron(0 2) before Lambda retries it',
  expected:
    'the Los Angeles occurrences run (slot ids are compared per definition), and the refused retry is recorded skipped/not-on-schedule as a problem',
  async run(ctx) {
    const w = ctx.stage.worker('W');
    const reports = ctx.tables.names.get(settlementsTable) ?? '';
    const hourly = (timeZone: string) =>
      defineJob({
        name: 'hourly',
        schedule: 'cron(0 * * * ? *)',
        timeZone,
        lease: { durationSeconds: 60 },
        run: async (c) => {
          await c.insertOnce(reports, { merchantId: `hourly-${timeZone}`, settlementDate: c.slot.id }, {});
        },
      });
    const tokyo = hourly('Asia/Tokyo');
    const la = hourly('America/Los_Angeles');
    const startMs = ctx.stage.time.nowMs;
    const base = Math.floor(startMs / 3_600_000) * 3_600_000 - 40 * 3_600_000;
    const deliver = (h: JobHandler, atMs: number, label: string, extra?: Record<string, unknown>) =>
      ctx.stage.deliver(
        { worker: w, handler: h, job: 'hourly', scheduledTimeMs: atMs, label, ...(extra && { extra }) },
        atMs - base,
      );
    // The stage starts at `startMs`: run the histories in its past by delivering on a clock offset.
    const results: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) results.push(deliver(tokyo, base + i * 3_600_000, `Tokyo hour ${i}`));
    for (let i = 20; i < 37; i++) results.push(deliver(la, base + i * 3_600_000, `LA hour ${i}`));
    const daily1 = defineJob({
      name: 'daily-close',
      schedule: 'cron(0 1 * * ? *)',
      lease: { durationSeconds: 60 },
      run: async () => {
        throw new Error('injected: downstream unavailable');
      },
    });
    const daily2 = defineJob({
      name: 'daily-close',
      schedule: 'cron(0 2 * * ? *)',
      lease: { durationSeconds: 60 },
      run: async () => undefined,
    });
    const oneAm = enumerateSlots(
      { ...daily1.job, schedule: daily1.expression },
      base,
      base + 30 * 3_600_000,
    )[0];
    if (!oneAm) throw new Error('no 01:00 slot in range');
    const first = ctx.stage.deliver(
      {
        worker: w,
        handler: daily1,
        job: 'daily-close',
        scheduledTimeMs: oneAm.scheduledTimeMs,
        label: 'cron(0 1)',
      },
      oneAm.scheduledTimeMs - base,
    );
    const retry = ctx.stage.deliver(
      {
        worker: w,
        handler: daily2,
        job: 'daily-close',
        scheduledTimeMs: oneAm.scheduledTimeMs,
        label: 'Lambda retry after redeploy as cron(0 2)',
        awsRequestId: 'evt-daily',
      },
      oneAm.scheduledTimeMs - base + 60_000,
    );
    await ctx.stage.run();
    await Promise.all(results);
    const [, R] = [await first, await retry];
    const hourlyRecords = await ctx.tables.runRecords('hourly');
    const laRuns = hourlyRecords.filter((r) => r.def === definitionId(la.job) && r.outcome === 'succeeded');
    const laSkipped = hourlyRecords.filter((r) => r.def === definitionId(la.job) && r.outcome === 'skipped');
    const dailyRecords = await ctx.tables.runRecords('daily-close');
    const refused = recordOf(dailyRecords, R.summary?.runId);
    return {
      observed: `Tokyo ${hourlyRecords.length - laRuns.length - laSkipped.length} runs, LA ${laRuns.length} succeeded / ${laSkipped.length} skipped; retry after the schedule change: ${show(refused)}`,
      jobs: [tokyo, daily2],
      checks: [
        check(
          'all 17 Los Angeles occurrences ran (none skipped already-succeeded for a Tokyo slot id)',
          laRuns.length === 17 && laSkipped.length === 0,
          `${laRuns.length} succeeded, ${laSkipped.length} skipped`,
        ),
        recordIs('the retry refused by cron(0 2)', refused, {
          outcome: 'skipped',
          reason: 'not-on-schedule',
        }),
        check(
          'the refused retry is a problem record (the alarm counts it)',
          refused?.problem === 'skipped',
          `problem=${String(refused?.problem)} slot=${String(refused?.slot)}`,
        ),
      ],
    };
  },
};

/** Case 7: the body records ~510 KB of details. */
export const oversizedDetail: Drill = {
  name: 'oversized-detail',
  injected:
    'the settlement body records ~510 KB with ctx.setDetail (over DynamoDB’s 400 KB item limit); Lambda retry at +60 s',
  expected:
    'the run record is written with its details truncated (marked, with the original size) and the run succeeds; the retry is skipped already-succeeded',
  async run(ctx) {
    const w = ctx.stage.worker('A');
    const b = ctx.stage.worker('B');
    const h = settlementJob({
      beforeMerchant: (c, merchantId) => c.setDetail(`log-${merchantId}`, 'x'.repeat(43_000)),
    });
    const ra = ctx.send(w, h, { label: 'A', requestId: 'evt-big' });
    const rb = ctx.send(b, h, { label: 'B Lambda retry', requestId: 'evt-big', delayMs: 60_000 });
    await ctx.stage.run();
    const [A, B] = [await ra, await rb];
    const records = await ctx.tables.runRecords(h.job.name);
    const aRec = recordOf(records, A.summary?.runId);
    const details = (aRec?.details ?? {}) as { truncated?: boolean; originalBytes?: number };
    const lease = (await ctx.tables.scan(ctx.tables.tableName)).find(
      (i) => i.pk === 'JOB#merchant-settlement' && i.sk === 'LEASE',
    );
    return {
      observed: `A ${show(aRec)} details truncated=${details.truncated} (${details.originalBytes} bytes); B ${show(recordOf(records, B.summary?.runId))}; lease ${String(lease?.holderState)}`,
      jobs: [h],
      checks: [
        recordIs('A', aRec, { outcome: 'succeeded', fence: 1 }),
        check(
          'A’s details are truncated and marked with their original size',
          details.truncated === true && Number(details.originalBytes) > 500_000,
          JSON.stringify({ truncated: details.truncated, originalBytes: details.originalBytes }),
        ),
        recordIs('B (retry)', recordOf(records, B.summary?.runId), {
          outcome: 'skipped',
          reason: 'already-succeeded',
        }),
        check(
          'the lease is released',
          lease?.holderState === 'released',
          `holderState ${String(lease?.holderState)}`,
        ),
        recordsMatch([A, B], records),
        ...(await ctx.verifyApp([h])),
      ],
    };
  },
};

/** The liveness drills, in catalogue order. */
export const LIVENESS_DRILLS: readonly Drill[] = [
  crashThenRetry,
  shardFailure,
  zoneAndScheduleChange,
  oversizedDetail,
];
