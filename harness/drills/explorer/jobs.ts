/**
 * The jobs the history explorer runs: the real runtime (defineJob, RunSession, LeaseKeeper, JobContext)
 * with small bodies that exercise every kind of write — a fenced report per slot, insert-once rows per
 * slot, and one external effect per row through a simulated provider.
 */
import type { EffectProvider } from '../../../lib/core/effects.js';
import { defineJob, type JobHandler } from '../../../lib/runtime/define-job.js';
import { effectRunner } from '../../../lib/runtime/effect-runner.js';
import type { TableSchema } from '../../../lib/store/schema.js';
import type { SimProvider } from './provider.js';

/** Fenced reports, one per slot. */
export const explorerReports: TableSchema = {
  defaultName: 'ex-reports',
  envVar: 'EXPLORER_REPORTS_TABLE',
  partitionKey: { name: 'slot', type: 'S' },
};

/** Insert-once rows, `ROWS_PER_SLOT` per slot. */
export const explorerRows: TableSchema = {
  defaultName: 'ex-rows',
  envVar: 'EXPLORER_ROWS_TABLE',
  partitionKey: { name: 'id', type: 'S' },
};

/** Rows (and effects) per settle slot. */
export const ROWS_PER_SLOT = 3;

/** Minutes between slots of both jobs. */
export const SLOT_MINUTES = 5;

const tableOf = (schema: TableSchema) => process.env[schema.envVar] ?? schema.defaultName;

/** The explorer's two jobs; bodies "work" `workMs` of virtual time between writes. */
export function explorerJobs(options: {
  readonly provider: SimProvider;
  readonly sleep: (ms: number) => Promise<void>;
  readonly workMs: number;
}): { report: JobHandler; settle: JobHandler } {
  const { sleep, workMs } = options;
  const payer: EffectProvider<{ id: string; amountCents: number }> = options.provider;
  const report = defineJob({
    name: 'ex-report',
    schedule: `rate(${SLOT_MINUTES} minutes)`,
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    run: async (ctx) => {
      await sleep(workMs);
      ctx.throwIfAborted();
      await ctx.fencedPut(tableOf(explorerReports), { slot: ctx.slot.id }, { body: `report ${ctx.slot.id}` });
    },
  });
  const settle = defineJob({
    effects: effectRunner,
    name: 'ex-settle',
    schedule: `rate(${SLOT_MINUTES} minutes)`,
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    run: async (ctx) => {
      for (let i = 0; i < ROWS_PER_SLOT; i++) {
        ctx.throwIfAborted();
        const id = `${ctx.slot.id}#${i}`;
        await ctx.insertOnce(tableOf(explorerRows), { id }, { amountCents: 100 + i });
        await sleep(workMs);
        await ctx.effect(`pay#${id}`, { id, amountCents: 100 + i }, payer);
      }
    },
  });
  return { report, settle };
}
