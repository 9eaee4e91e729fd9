/**
 * Example ECS job: every night at 00:30 Europe/London, export the previous day's ledger in parts, a job
 * that outgrows a Lambda's 15 minutes and runs as an ECS Fargate task (`runtime: 'ecs'`, `cronfence/ecs-task`).
 * Each part is an insert-once row (`exportDate`, `part-NNN`), so a task that is stopped, killed or
 * superseded half way leaves parts a re-run finds and does not write twice; the `manifest` row is a
 * fenced write (a paused old task cannot overwrite the newer task's manifest); one notification e-mail
 * per date through the payment service's `/emails` (`PAYMENTS_URL`; none when unset), as an effect.
 * The body checks `ctx.signal` between parts: SIGTERM (a stopped task, a Spot reclaim) aborts it there.
 */
import type { EffectProvider } from '../lib/core/effects.js';
import { httpJsonProvider, parseCapabilities } from '../lib/effects/http-provider.js';
import { createObserver } from '../lib/entries/observability.js';
import { defineJob, effectRunner, type JobContext, type JobHandler } from '../lib/index.js';
import type { EmailRequest } from './merchant-settlement.js';
import { exportsTable, tableName } from './tables.js';

/** Options of {@link exportJob}. */
export interface ExportJobOptions {
  /** @default 'nightly-export' */
  readonly name?: string;
  /** Parts per export. @default `EXPORT_PARTS` at import, else 48 */
  readonly parts?: number;
  /**
   * Time one part takes, ms (the example sleeps: the work it stands for reads a ledger).
   * @default `EXPORT_PART_MS` at run time, else 60000 (`npm start -- --ecs` sets 400)
   */
  readonly partMs?: number;
  /** Lease, in seconds. @default 120 */
  readonly leaseSeconds?: number;
  /** The job's deadline, in seconds. @default 4 h */
  readonly timeoutSeconds?: number;
  /** Awaited before part `i` is written (drills hold a task here). @default none */
  readonly beforePart?: (i: number, ctx: JobContext) => Promise<void>;
}

/** Idempotency key of the export e-mail of a date. */
export function exportEmailKey(exportDate: string): string {
  return `email#export#${exportDate}`;
}

/** Part key of part `i` (`part-000`), sorted as numbers. */
export function partKey(i: number): string {
  return `part-${String(i).padStart(3, '0')}`;
}

function mailer(): EffectProvider<EmailRequest> | undefined {
  const baseUrl = process.env.PAYMENTS_URL;
  if (!baseUrl) return undefined;
  return httpJsonProvider<EmailRequest>({
    name: 'emails',
    baseUrl,
    path: '/emails',
    ...parseCapabilities(process.env.PAYMENTS_CAPABILITIES),
    keyRetentionMs: 86_400_000,
    lookupSettleMs: 30_000,
  });
}

/** Sleep `ms`, or reject with the signal's reason when it aborts first. */
function work(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Build the export job (the exported `handler` is `exportJob()`; drills build short variants). */
export function exportJob(options: ExportJobOptions = {}): JobHandler {
  const parts = options.parts ?? Number(process.env.EXPORT_PARTS ?? 48);
  return defineJob({
    effects: effectRunner,
    name: options.name ?? 'nightly-export',
    runtime: 'ecs',
    // One log line per decision and the EMF metrics the alarms read (the task's stdout, awslogs).
    observe: createObserver,
    schedule: 'cron(30 0 * * ? *)',
    timeZone: 'Europe/London',
    businessDate: 'previous-day',
    lease: { durationSeconds: options.leaseSeconds ?? 120 },
    timeoutSeconds: options.timeoutSeconds ?? 4 * 3600,
    uses: { tables: [{ table: exportsTable, writes: ['insertOnce', 'fencedPut'] }], effects: true },
    run: async (ctx) => {
      const table = tableName(exportsTable);
      let inserted = 0;
      for (let i = 0; i < parts; i++) {
        await work(options.partMs ?? Number(process.env.EXPORT_PART_MS ?? 60_000), ctx.signal);
        await options.beforePart?.(i, ctx);
        const r = await ctx.insertOnce(
          table,
          { exportDate: ctx.businessDate, part: partKey(i) },
          { rows: 1000 },
        );
        if (r.status === 'inserted') inserted++;
      }
      await ctx.fencedPut(
        table,
        { exportDate: ctx.businessDate, part: 'manifest' },
        { parts, runId: ctx.runId },
      );
      ctx.setDetail('inserted', inserted);
      const m = mailer();
      if (m) {
        const text = `${parts} parts exported for ${ctx.businessDate}.`;
        const e = await ctx.effect(
          exportEmailKey(ctx.businessDate),
          { to: 'ledger@example.com', subject: `Export ${ctx.businessDate}`, text },
          m,
        );
        ctx.setDetail('email', `${e.status} (${e.source})`);
      }
    },
  });
}

/** The example's handler. */
export const handler = exportJob();

/** The job definition (read by the CDK app). */
export const job = handler.job;
