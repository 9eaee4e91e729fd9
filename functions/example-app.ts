/**
 * The example app as `npm start` runs it: both jobs, their tables, and the business invariants
 * (one settlement row per merchant and date, one report per date), read back from DynamoDB.
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalApp } from '../lib/local/run-local.js';
import type { Check } from '../lib/local/verify.js';
import { handler as dailyReport } from './daily-report.js';
import { handler as merchantSettlement } from './merchant-settlement.js';
import { MERCHANTS } from './merchants.js';
import { exampleTables, reportsTable, settlementsTable, tableName } from './tables.js';

async function scanAll(doc: DynamoDBDocumentClient, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The example app. */
export const exampleApp: LocalApp = {
  handlers: [dailyReport, merchantSettlement],
  tables: exampleTables,
  async verify(doc, slotsByJob, summaries): Promise<Check[]> {
    const succeededRuns = new Set(summaries.filter((s) => s.outcome === 'succeeded').map((s) => s.runId));
    const dates = [...new Set((slotsByJob.get('merchant-settlement') ?? []).map((s) => s.businessDate))];
    const rows = await scanAll(doc, tableName(settlementsTable));
    const expected = dates.length * MERCHANTS.length;
    const keys = new Set(rows.map((r) => `${r.merchantId}|${r.settlementDate}`));
    const orphan = rows.filter((r) => !succeededRuns.has(String(r.runId)));
    const reportDates = [...new Set((slotsByJob.get('daily-report') ?? []).map((s) => s.businessDate))];
    const reports = await scanAll(doc, tableName(reportsTable));
    return [
      {
        name: 'merchant-settlement: one settlement row per merchant and date',
        ok: rows.length === expected && keys.size === expected,
        detail: `${rows.length} rows for ${MERCHANTS.length} merchants x ${dates.length} dates (${dates.join(', ')})`,
      },
      {
        name: 'merchant-settlement: every row written by a succeeded run',
        ok: orphan.length === 0,
        detail: orphan.length
          ? `${orphan.length} rows from runs that did not succeed`
          : 'all rows traced to succeeded run records',
      },
      {
        name: 'daily-report: one report per local date',
        ok:
          reports.length === reportDates.length &&
          reports.every((r) => reportDates.includes(String(r.reportDate))),
        detail: `${reports.length} reports for ${reportDates.length} dates (${reportDates.join(', ')})`,
      },
    ];
  },
};
