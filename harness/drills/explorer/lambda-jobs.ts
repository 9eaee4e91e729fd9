/**
 * The jobs of Lambda-model histories, per deployment: the fenced report (a cron whose zone or schedule
 * a redeploy may change), the insert-once settlement with effects (whose details may exceed the item
 * limit), and a sharded job (whose shard count a redeploy may change; shard 1 may fail its attempts).
 */
import { defineJob, type JobHandler } from '../../../lib/runtime/define-job.js';
import { effectRunner } from '../../../lib/runtime/effect-runner.js';
import { ownsKey, type ShardDispatcher } from '../../../lib/runtime/fan-out.js';
import { explorerReports, explorerRows, ROWS_PER_SLOT, SLOT_MINUTES } from './jobs.js';
import { type OverlapSpec, overlapJobFields } from './overlap-shape.js';
import type { SimProvider } from './provider.js';
import { loggedPayer, type SendCall } from './shapes.js';

/** What a deployment fixes. */
export interface Deployment {
  readonly reportZone: 'UTC' | 'Asia/Kolkata';
  readonly reportSchedule: string;
  readonly shards: number;
}

/** The first deployment of every history. */
export const FIRST_DEPLOYMENT: Deployment = {
  reportZone: 'UTC',
  reportSchedule: `cron(0/${SLOT_MINUTES} * * * ? *)`,
  shards: 2,
};

/** The deployment after a redeploy of `change`. */
export function redeployed(change: 'zone' | 'schedule' | 'reshard'): Deployment {
  if (change === 'zone') return { ...FIRST_DEPLOYMENT, reportZone: 'Asia/Kolkata' };
  if (change === 'schedule')
    return { ...FIRST_DEPLOYMENT, reportSchedule: `cron(0/${2 * SLOT_MINUTES} * * * ? *)` };
  return { ...FIRST_DEPLOYMENT, shards: 3 };
}

/** Slots the jobs' done sets remember: few, so that histories outlive them. */
export const EXPLORER_REMEMBER_SLOTS = 4;

/** Keys of the sharded job per slot. */
export const SHARD_KEYS = 6;

const tableOf = (schema: { envVar: string; defaultName: string }) =>
  process.env[schema.envVar] ?? schema.defaultName;

/** Options of {@link lambdaJobs}. */
export interface LambdaJobsOptions {
  readonly provider: SimProvider;
  readonly sleep: (ms: number) => Promise<void>;
  readonly workMs: number;
  /** Index of the slot a scheduled time belongs to. */
  readonly slotIndex: (scheduledTimeMs: number) => number;
  readonly oversized: ReadonlySet<number>;
  /** Shard 1 fails this many attempts. */
  readonly failShard: number;
  readonly dispatch: ShardDispatcher;
  /** Every provider call is logged here with its run and true time (invariant I7 reads them). */
  readonly sends: SendCall[];
  /** True time, epoch ms. */
  readonly now: () => number;
  /** Settle's rows in parallel branches (`Promise.all`). @default false */
  readonly parallelBody?: boolean;
  /** The report writes its key insert-once, then fenced. @default false */
  readonly mixedWrites?: boolean;
  /**
   * Wait `ms` on the clock of the environment that runs `runId` (frozen with it). When set, the settle
   * body leaves a branch that outlives the handler on it and then tries an effect and a fenced write.
   */
  readonly straggler?: (runId: string, ms: number) => Promise<void>;
  /** The settle job's overlap policy, deadline, catch-up and schedule from `startMs` (overlap-shape.ts). @default skip */
  readonly overlap?: { readonly spec: OverlapSpec; readonly startMs: number; readonly enforced: boolean };
}

/** The three jobs of a deployment (cached by the caller). */
export function lambdaJobs(d: Deployment, o: LambdaJobsOptions, failures: { shard1: number }) {
  const payerFor = (runId: string) => loggedPayer(o.provider, runId, o.sends, o.now);
  const common = {
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    rememberSlots: EXPLORER_REMEMBER_SLOTS,
  };
  const report: JobHandler = defineJob({
    ...common,
    name: 'ex-report',
    schedule: d.reportSchedule,
    timeZone: d.reportZone,
    run: async (ctx) => {
      await o.sleep(o.workMs);
      ctx.throwIfAborted();
      if (o.mixedWrites)
        await ctx.insertOnce(
          tableOf(explorerReports),
          { slot: ctx.slot.id },
          { body: `first report ${ctx.slot.id}` },
        );
      await ctx.fencedPut(tableOf(explorerReports), { slot: ctx.slot.id }, { body: `report ${ctx.slot.id}` });
    },
  });
  const settle: JobHandler = defineJob({
    effects: effectRunner,
    ...common,
    name: 'ex-settle',
    schedule: `rate(${SLOT_MINUTES} minutes)`,
    ...(o.overlap && overlapJobFields(o.overlap.spec, o.overlap.startMs, o.overlap.enforced)),
    run: async (ctx) => {
      const payer = payerFor(ctx.runId);
      if (o.oversized.has(o.slotIndex(ctx.slot.scheduledTimeMs))) ctx.setDetail('trace', 'x'.repeat(500_000));
      const row = async (i: number) => {
        ctx.throwIfAborted();
        const id = `${ctx.slot.id}#${i}`;
        await ctx.insertOnce(tableOf(explorerRows), { id }, { amountCents: 100 + i });
        await o.sleep(o.workMs);
        await ctx.effect(`pay#${id}`, { id, amountCents: 100 + i }, payer);
      };
      if (o.straggler) {
        const wait = o.straggler;
        // Outlives the handler on its environment: resumes only when that environment is thawed.
        void (async () => {
          await wait(ctx.runId, o.workMs + 5_000);
          await ctx.effect(`late#${ctx.slot.id}`, { id: `late#${ctx.slot.id}`, amountCents: 1 }, payer);
          await ctx.fencedPut(tableOf(explorerReports), { slot: `late#${ctx.slot.id}` }, { body: 'late' });
        })().catch(() => undefined);
      }
      const indexes = Array.from({ length: ROWS_PER_SLOT }, (_, i) => i);
      if (o.parallelBody) await Promise.all(indexes.map(row));
      else for (const i of indexes) await row(i);
    },
  });
  const shard: JobHandler = defineJob({
    ...common,
    name: 'ex-shard',
    schedule: `rate(${SLOT_MINUTES} minutes)`,
    shards: d.shards,
    dispatch: o.dispatch,
    run: async (ctx) => {
      if (ctx.shard === 1 && failures.shard1 < o.failShard) {
        failures.shard1++;
        throw new Error('injected: shard 1 failed');
      }
      for (let i = 0; i < SHARD_KEYS; i++) {
        const key = `k${i}`;
        if (!ownsKey(ctx, key, d.shards)) continue;
        await ctx.insertOnce(
          tableOf(explorerRows),
          { id: `shard#${ctx.slot.id}#${key}` },
          { shards: d.shards },
        );
      }
    },
  });
  return { report, settle, shard };
}
