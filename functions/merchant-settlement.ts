/**
 * Example job: every day at 01:00 Asia/Shanghai, settle the PREVIOUS local day for every merchant:
 * one insert-once row per merchant_id + settlement_date, one payout per merchant and date
 * (`payout#<merchant>#<date>`) through the payment provider, and ONE notification e-mail per date.
 * A re-run (retry, duplicate, manual backfill) finds the existing rows and stored effect outcomes and
 * writes nothing new and calls no provider.
 *
 * The provider is configured by environment: `PAYMENTS_URL` (base URL; without it the job settles
 * rows only and makes no payouts or e-mails), `PAYMENTS_CAPABILITIES` (`idempotency-keys`, `lookup`,
 * both comma-separated, or `none`; @default `idempotency-keys`), `PAYMENTS_TIMEOUT_MS` (@default 5000),
 * `SETTLEMENT_EMAIL_TO` (@default `finance@example.com`).
 */

import type { EffectProvider } from '../lib/core/effects.js';
import { httpJsonProvider, parseCapabilities } from '../lib/effects/http-provider.js';
import { createObserver } from '../lib/entries/observability.js';
import { defineJob, effectRunner, type JobHandler } from '../lib/index.js';
import { ownsKey, type ShardDispatcher } from '../lib/runtime/fan-out.js';
import type { JobContext } from '../lib/runtime/job-context.js';
import { MERCHANTS, type Merchant, settlementAmountCents } from './merchants.js';
import { settlementsTable, tableName } from './tables.js';

/** A payout as the payment provider receives it. */
export interface PayoutRequest {
  readonly merchantId: string;
  readonly settlementDate: string;
  readonly amountCents: number;
  readonly currency: string;
}

/** The settlement notification e-mail. Deterministic per date, so every run asks for the same one. */
export interface EmailRequest {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Options of {@link settlementJob}. */
export interface SettlementJobOptions {
  /** @default 'merchant-settlement' */
  readonly name?: string;
  /** @default the merchants of data/merchants.json */
  readonly merchants?: readonly Merchant[];
  /** The payout provider, built at each run. @default from `PAYMENTS_URL` (none when unset) */
  readonly payments?: () => EffectProvider<PayoutRequest> | undefined;
  /** The e-mail provider, built at each run. @default from `PAYMENTS_URL` (`/emails`; none when unset) */
  readonly emails?: () => EffectProvider<EmailRequest> | undefined;
  /**
   * Shards (each settles the merchants `shardOf` assigns to it; no e-mail: it describes the whole date).
   * @default 1
   */
  readonly shards?: number;
  /** The shard dispatcher of a sharded variant. */
  readonly dispatch?: ShardDispatcher;
  /** Called before each merchant is settled (drills inject a failing shard here). */
  readonly beforeMerchant?: (ctx: JobContext, merchantId: string) => void;
}

function fromEnv<T>(path: string, name: string): EffectProvider<T> | undefined {
  const baseUrl = process.env.PAYMENTS_URL;
  if (!baseUrl) return undefined;
  return httpJsonProvider<T>({
    name,
    baseUrl,
    path,
    ...parseCapabilities(process.env.PAYMENTS_CAPABILITIES),
    timeoutMs: Number(process.env.PAYMENTS_TIMEOUT_MS ?? 5_000),
    // What the payment API declares (docs/design.md protocol 5): how long a request may stay in flight
    // after it was sent, and how long it remembers an idempotency key (24 h, like common payment APIs).
    lookupSettleMs: Number(process.env.PAYMENTS_LOOKUP_SETTLE_MS ?? 30_000),
    keyRetentionMs: Number(process.env.PAYMENTS_KEY_RETENTION_MS ?? 86_400_000),
  });
}

/** The run detail `payouts` of a run with no payment provider (no payouts and no e-mail were made). */
export const PAYOUTS_NOT_CONFIGURED = 'not configured (PAYMENTS_URL unset)';

/** Idempotency key of a merchant's payout for a settlement date. */
export function payoutKey(merchantId: string, settlementDate: string): string {
  return `payout#${merchantId}#${settlementDate}`;
}

/** Idempotency key of the settlement e-mail for a date. */
export function settlementEmailKey(settlementDate: string): string {
  return `email#settlement#${settlementDate}`;
}

/**
 * Build the settlement job (the exported `handler` is `settlementJob()`; tests build variants with
 * other merchants or providers). Run details: `inserted`, `existing`, and with a provider `payouts`
 * (`sent`, `resent`, `lookedUp`, `stored`, `markedForReview` — how each payout's outcome was obtained —
 * and `succeeded`, `failed`, `needsReview`) and `email` (`<status> (<source>)`); without a provider,
 * `payouts` is {@link PAYOUTS_NOT_CONFIGURED}.
 */
export function settlementJob(options: SettlementJobOptions = {}): JobHandler {
  const all = options.merchants ?? MERCHANTS;
  const shards = options.shards ?? 1;
  const payments = options.payments ?? (() => fromEnv<PayoutRequest>('/payouts', 'payments'));
  const emails = options.emails ?? (() => fromEnv<EmailRequest>('/emails', 'emails'));
  return defineJob({
    effects: effectRunner,
    name: options.name ?? 'merchant-settlement',
    schedule: 'cron(0 1 * * ? *)',
    timeZone: 'Asia/Shanghai',
    businessDate: 'previous-day',
    catchUp: { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3 },
    lease: { durationSeconds: 120 },
    timeoutSeconds: 300,
    ...(shards > 1 && { shards }),
    ...(options.dispatch && { dispatch: options.dispatch }),
    // One insert-once row per merchant and date, and the payouts and e-mails as effects.
    uses: { tables: [{ table: settlementsTable, writes: ['insertOnce'] }], effects: true },
    // Deployed: one log line per decision and the metrics the stack's alarms read.
    observe: createObserver,
    run: async (ctx) => {
      const merchants = all.filter((m) => ownsKey(ctx, m.merchantId, shards));
      const table = tableName(settlementsTable);
      const payer = payments();
      const mailer = emails();
      let inserted = 0;
      let existing = 0;
      let totalCents = 0;
      const payouts = {
        sent: 0,
        resent: 0,
        lookedUp: 0,
        stored: 0,
        markedForReview: 0,
        succeeded: 0,
        failed: 0,
        needsReview: 0,
      };
      const bySource = {
        sent: 'sent',
        resent: 'resent',
        'looked-up': 'lookedUp',
        stored: 'stored',
        'marked-for-review': 'markedForReview',
      } as const;
      const byStatus = { succeeded: 'succeeded', failed: 'failed', 'needs-review': 'needsReview' } as const;
      for (const m of merchants) {
        ctx.throwIfAborted();
        options.beforeMerchant?.(ctx, m.merchantId);
        const amountCents = settlementAmountCents(m, ctx.businessDate);
        totalCents += amountCents;
        const r = await ctx.insertOnce(
          table,
          { merchantId: m.merchantId, settlementDate: ctx.businessDate },
          { merchantName: m.name, currency: m.currency, amountCents },
        );
        if (r.status === 'inserted') inserted++;
        else existing++;
        if (!payer) continue;
        const payout: PayoutRequest = {
          merchantId: m.merchantId,
          settlementDate: ctx.businessDate,
          amountCents,
          currency: m.currency,
        };
        const p = await ctx.effect(payoutKey(m.merchantId, ctx.businessDate), payout, payer);
        payouts[bySource[p.source]]++;
        payouts[byStatus[p.status]]++;
      }
      ctx.setDetail('inserted', inserted);
      ctx.setDetail('existing', existing);
      // Without a provider nobody was paid: say so on the run record, so `succeeded` never reads as "paid".
      ctx.setDetail('payouts', payer ? payouts : PAYOUTS_NOT_CONFIGURED);
      if (mailer && ctx.shard === undefined) {
        const email: EmailRequest = {
          to: process.env.SETTLEMENT_EMAIL_TO ?? 'finance@example.com',
          subject: `Settlement ${ctx.businessDate}`,
          text: `${merchants.length} merchants settled for ${ctx.businessDate}, ${totalCents} cents in total.`,
        };
        const e = await ctx.effect(settlementEmailKey(ctx.businessDate), email, mailer);
        ctx.setDetail('email', `${e.status} (${e.source})`);
      }
    },
  });
}

/** The example's handler. */
export const handler = settlementJob();

/** The job definition (read by the CDK app). */
export const job = handler.job;
