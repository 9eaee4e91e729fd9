/**
 * The example app as `npm start` runs it: every job and table of the registry (functions/index.ts),
 * the local payment service, and the business invariants (one settlement row per merchant and date, one report per date) read back from
 * DynamoDB, plus one executed payout per merchant and date and one e-mail per date, asked of the
 * payment service itself.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type PaymentService, startPaymentService } from '../harness/local/payment-service.js';
import type { LocalApp } from '../harness/local/run-local.js';
import { type Check, scanAll } from '../harness/local/verify.js';
import { BusinessAttr } from '../lib/core/results.js';
import { libraryTable } from '../lib/store/schema.js';
import { jobs, tables } from './index.js';
import { MERCHANTS } from './merchants.js';
import { reportsTable, settlementsTable, tableName } from './tables.js';

async function getJson(url: string): Promise<{ key?: string; body: Record<string, unknown> }[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return (await res.json()) as { key?: string; body: Record<string, unknown> }[];
}

/** Count values; list the ones seen more than once. */
function duplicates(values: readonly string[]): string[] {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n].filter(([, c]) => c > 1).map(([v, c]) => `${v} x${c}`);
}

/** Payout and e-mail invariants, asked of the payment service (and the effect records in DynamoDB). */
async function paymentChecks(doc: DynamoDBDocumentClient, dates: readonly string[]): Promise<Check[]> {
  const url = process.env.PAYMENTS_URL;
  if (!url) return [];
  const expected = dates.length * MERCHANTS.length;
  const payouts = (await getJson(`${url}/payouts`)).filter((p) =>
    dates.includes(String(p.body.settlementDate)),
  );
  const payoutIds = payouts.map((p) => `${p.body.merchantId}|${p.body.settlementDate}`);
  const payoutDups = duplicates(payoutIds);
  const emails = await getJson(`${url}/emails`);
  const emailDups = duplicates(emails.map((e) => String(e.key)));
  const effects = (await scanAll(doc, process.env[libraryTable.envVar] ?? libraryTable.defaultName)).filter(
    (i) => i.kind === 'effect' && String(i.key).startsWith('payout#'),
  );
  const notSucceeded = effects.filter((e) => e.status !== 'succeeded');
  return [
    {
      name: 'merchant-settlement: one executed payout per merchant and date (asked the payment service)',
      ok: payouts.length === expected && new Set(payoutIds).size === expected && payoutDups.length === 0,
      detail: `${payouts.length} payouts executed for ${MERCHANTS.length} merchants x ${dates.length} dates${payoutDups.length ? `; executed twice: ${payoutDups.join(', ')}` : ''}`,
    },
    {
      name: 'merchant-settlement: one notification e-mail per date (asked the payment service)',
      ok: emails.length === dates.length && emailDups.length === 0,
      detail: `${emails.length} e-mails for ${dates.length} dates${emailDups.length ? `; sent twice: ${emailDups.join(', ')}` : ''}`,
    },
    {
      name: 'merchant-settlement: every payout effect record succeeded',
      ok: effects.length === expected && notSucceeded.length === 0,
      detail: `${effects.length} payout effects, ${notSucceeded.length} not succeeded${notSucceeded.length ? ` (${notSucceeded.map((e) => `${e.key}: ${e.status}`).join(', ')})` : ''}`,
    },
  ];
}

let payments: PaymentService | undefined;

/** The example app. */
export const exampleApp: LocalApp = {
  handlers: jobs.map((j) => j.handler),
  tables,
  async start(print) {
    if (process.env.PAYMENTS_URL) {
      print(`Using PAYMENTS_URL=${process.env.PAYMENTS_URL}`);
    } else {
      payments = await startPaymentService({ idempotencyKeys: true, lookup: true });
      process.env.PAYMENTS_URL = payments.url;
      process.env.PAYMENTS_CAPABILITIES ??= 'idempotency-keys,lookup';
      print(`Payment service started at ${payments.url} (idempotency keys + lookup)`);
    }
    // The provider wiring the handlers read, carried in .cronfence/local.json for `backfill --local`.
    return {
      PAYMENTS_URL: process.env.PAYMENTS_URL,
      PAYMENTS_CAPABILITIES: process.env.PAYMENTS_CAPABILITIES ?? 'idempotency-keys,lookup',
    };
  },
  async stop(print) {
    if (!payments) return;
    await payments.stop();
    print(`Payment service stopped (${payments.executed.length} operations executed)`);
    delete process.env.PAYMENTS_URL;
    payments = undefined;
  },
  async verify(doc, slotsByJob, summaries): Promise<Check[]> {
    // A row may come from any run that held the lease: a run that failed or went stale after some
    // inserts leaves rows its successor then finds existing (drills, `npm start -- --chaos`).
    const holders = new Set(summaries.filter((s) => s.fence !== undefined).map((s) => s.runId));
    const dates = [...new Set((slotsByJob.get('merchant-settlement') ?? []).map((s) => s.businessDate))];
    const rows = await scanAll(doc, tableName(settlementsTable));
    const expected = dates.length * MERCHANTS.length;
    const keys = new Set(rows.map((r) => `${r.merchantId}|${r.settlementDate}`));
    const orphan = rows.filter((r) => !holders.has(String(r[BusinessAttr.runId])));
    const reportDates = [...new Set((slotsByJob.get('daily-report') ?? []).map((s) => s.businessDate))];
    const reports = await scanAll(doc, tableName(reportsTable));
    return [
      {
        name: 'merchant-settlement: one settlement row per merchant and date',
        ok: rows.length === expected && keys.size === expected,
        detail: `${rows.length} rows for ${MERCHANTS.length} merchants x ${dates.length} dates (${dates.join(', ')})`,
      },
      {
        name: 'merchant-settlement: every row written by a run that held the lease',
        ok: orphan.length === 0,
        detail: orphan.length
          ? `${orphan.length} rows from runs that never held the lease`
          : 'all rows traced to lease holders’ run records',
      },
      {
        name: 'daily-report: one report per local date',
        ok:
          reports.length === reportDates.length &&
          reports.every((r) => reportDates.includes(String(r.reportDate))),
        detail: `${reports.length} reports for ${reportDates.length} dates (${reportDates.join(', ')})`,
      },
      ...(await paymentChecks(doc, dates)),
    ];
  },
};
