/**
 * Example job: every day at 02:30 Europe/Berlin, build the report for the slot's local date and store
 * it with a fenced write (a paused old holder cannot overwrite a newer holder's report).
 */
import { createObserver } from '../lib/entries/observability.js';
import { defineJob } from '../lib/index.js';
import { MERCHANTS } from './merchants.js';
import { reportsTable, tableName } from './tables.js';

export const handler = defineJob({
  name: 'daily-report',
  schedule: 'cron(30 2 * * ? *)',
  timeZone: 'Europe/Berlin',
  catchUp: { mode: 'latest', windowHours: 48, maxSlotsPerSweep: 1 },
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  // What the body writes: the role gets exactly this (fencedPut -> UpdateItem on the reports table).
  uses: { tables: [{ table: reportsTable, writes: ['fencedPut'] }] },
  // Deployed: one log line per decision and the metrics the stack's alarms read.
  observe: createObserver,
  run: async (ctx) => {
    const lines = MERCHANTS.map(
      (m) => `${m.merchantId} ${m.name}: ${m.currency} ${(m.dailyVolumeCents / 100).toFixed(2)}`,
    );
    ctx.throwIfAborted();
    await ctx.fencedPut(
      tableName(reportsTable),
      { reportDate: ctx.businessDate },
      {
        title: `Daily report ${ctx.businessDate}`,
        slot: ctx.slot.id,
        merchantCount: MERCHANTS.length,
        lines,
      },
    );
    ctx.setDetail('reportDate', ctx.businessDate);
  },
});

/** The job definition (read by the CDK app). */
export const job = handler.job;
