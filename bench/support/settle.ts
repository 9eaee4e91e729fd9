/**
 * The merchant-settlement logic at benchmark scale: the example's row per merchant and date
 * (functions/merchant-settlement.ts: same key, attributes and amount), optionally its payout through
 * `ctx.effect`, over a generated merchant list, with bounded concurrency inside the body, an optional
 * shard split, and a fenced progress checkpoint so an invocation that runs out of time (or dies) is
 * continued by the next one from what DynamoDB holds.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Merchant, settlementAmountCents } from '../../functions/merchants.js';
import { settlementsTable, tableName } from '../../functions/tables.js';
import type { EffectProvider } from '../../lib/core/effects.js';
import { DeadlineError } from '../../lib/errors.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { ownsKey } from '../../lib/runtime/fan-out.js';
import type { JobContext } from '../../lib/runtime/job-context.js';

/** `count` merchants `M1..M<count>` (deterministic names, currencies and volumes). */
export function generateMerchants(count: number): Merchant[] {
  return Array.from({ length: count }, (_, i) => ({
    merchantId: `M${i + 1}`,
    name: `Merchant ${i + 1}`,
    currency: 'CNY',
    dailyVolumeCents: 30_000 + ((i * 137) % 50_000),
  }));
}

/** Options of {@link settleJob}. */
export interface SettleOptions {
  readonly name: string;
  readonly merchants: readonly Merchant[];
  /** Merchants in flight at once inside one invocation. */
  readonly concurrency: number;
  /** @default 1 (unsharded) */
  readonly shards?: number;
  /** @default 30 */
  readonly leaseSeconds?: number;
  /** @default 300 */
  readonly timeoutSeconds?: number;
  /** Payout provider: one `ctx.effect` per merchant. @default none (rows only) */
  readonly payments?: EffectProvider<Record<string, unknown>>;
  /** Progress checkpoint: a table with string key `pk`, and a client to read it once per invocation. */
  readonly progress?: { readonly tableName: string; readonly doc: DynamoDBDocumentClient };
  /** Write the checkpoint every this many merchants. @default 500 */
  readonly checkpointEvery?: number;
  /** Called after each merchant is settled (benchmarks count and "kill" with it). */
  readonly onSettled?: (ctx: JobContext) => void;
}

/** The settlement job, in the example's shape, for benchmarks. */
export function settleJob(o: SettleOptions): JobHandler {
  const shards = o.shards ?? 1;
  const every = o.checkpointEvery ?? 500;
  return defineJob({
    effects: effectRunner,
    name: o.name,
    schedule: 'cron(0 1 * * ? *)',
    timeZone: 'Asia/Shanghai',
    businessDate: 'previous-day',
    lease: { durationSeconds: o.leaseSeconds ?? 30 },
    timeoutSeconds: o.timeoutSeconds ?? 300,
    shards,
    run: async (ctx) => {
      const table = tableName(settlementsTable);
      const mine = o.merchants.filter((m) => ownsKey(ctx, m.merchantId, shards));
      const key = { pk: `${ctx.job}#${ctx.shard ?? '-'}#${ctx.slot.id}` };
      let start = 0;
      if (o.progress) {
        const got = await o.progress.doc.send(
          new GetCommand({ TableName: o.progress.tableName, Key: key, ConsistentRead: true }),
        );
        start = Number(got.Item?.done ?? 0);
      }
      const done = new Uint8Array(mine.length);
      let low = start;
      let written = start;
      let chain: Promise<void> = Promise.resolve();
      const checkpoint = (upTo: number) => {
        if (!o.progress || upTo <= written) return chain;
        written = upTo;
        const table = o.progress.tableName;
        chain = chain.then(() => ctx.fencedPut(table, key, { done: upTo }));
        return chain;
      };
      let next = start;
      const settle = async (m: Merchant) => {
        const amountCents = settlementAmountCents(m, ctx.businessDate);
        await ctx.insertOnce(
          table,
          { merchantId: m.merchantId, settlementDate: ctx.businessDate },
          { merchantName: m.name, currency: m.currency, amountCents },
        );
        if (o.payments) {
          const payout = {
            merchantId: m.merchantId,
            settlementDate: ctx.businessDate,
            amountCents,
            currency: m.currency,
          };
          await ctx.effect(`payout#${m.merchantId}#${ctx.businessDate}`, payout, o.payments);
        }
      };
      const worker = async () => {
        while (next < mine.length) {
          ctx.throwIfAborted();
          const i = next++;
          await settle(mine[i] as Merchant);
          done[i] = 1;
          while (low < mine.length && done[low]) low++;
          o.onSettled?.(ctx);
          if (low - written >= every) await checkpoint(low);
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(o.concurrency, mine.length) }, worker));
      } catch (err) {
        // Out of time: leave the next invocation a precise resume point, then fail so it is retried.
        if (err instanceof DeadlineError) await checkpoint(low).catch(() => undefined);
        throw err;
      }
      await checkpoint(low);
      ctx.setDetail('settled', mine.length - start);
      ctx.setDetail('resumedAt', start);
    },
  });
}
