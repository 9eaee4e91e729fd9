/**
 * Example job: every day at 01:00 Asia/Shanghai, settle the PREVIOUS local day for every merchant:
 * one insert-once row per merchant_id + settlement_date. A re-run (retry, duplicate, manual backfill)
 * finds the existing rows and writes nothing new.
 */
import { defineJob } from '../lib/index.js';
import { MERCHANTS, settlementAmountCents } from './merchants.js';
import { settlementsTable, tableName } from './tables.js';

export const handler = defineJob({
  name: 'merchant-settlement',
  schedule: 'cron(0 1 * * ? *)',
  timeZone: 'Asia/Shanghai',
  businessDate: 'previous-day',
  catchUp: { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3 },
  lease: { durationSeconds: 120 },
  timeoutSeconds: 300,
  run: async (ctx) => {
    const table = tableName(settlementsTable);
    let inserted = 0;
    let existing = 0;
    for (const m of MERCHANTS) {
      ctx.throwIfAborted();
      const r = await ctx.insertOnce(
        table,
        { merchantId: m.merchantId, settlementDate: ctx.businessDate },
        {
          merchantName: m.name,
          currency: m.currency,
          amountCents: settlementAmountCents(m, ctx.businessDate),
        },
      );
      if (r.status === 'inserted') inserted++;
      else existing++;
    }
    ctx.setDetail('inserted', inserted);
    ctx.setDetail('existing', existing);
  },
});

/** The job definition (read by the CDK app). */
export const job = handler.job;
