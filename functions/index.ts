/**
 * The example app's jobs, with their handler files and what each body touches, for the CDK app and
 * `npm start`.
 */
import type { JobAccess, JobDefinition } from '../lib/index.js';
import { handler as dailyReport } from './daily-report.js';
import { handler as merchantSettlement } from './merchant-settlement.js';
import { reportsTable, settlementsTable } from './tables.js';

/** A job, the file that exports its `handler` (path relative to the repo root) and what it uses. */
export interface JobEntry {
  readonly definition: JobDefinition;
  readonly entry: string;
  /** Tables and effects the body uses: the stack grants exactly these (least privilege). */
  readonly uses: JobAccess;
}

/** Job handlers by name. */
export const handlers = { 'daily-report': dailyReport, 'merchant-settlement': merchantSettlement } as const;

/** Every example job. */
export const jobs: readonly JobEntry[] = [
  {
    definition: dailyReport.job,
    entry: 'functions/daily-report.ts',
    uses: { tables: [{ table: reportsTable, writes: ['fencedPut'] }] },
  },
  {
    definition: merchantSettlement.job,
    entry: 'functions/merchant-settlement.ts',
    uses: { tables: [{ table: settlementsTable, writes: ['insertOnce'] }], effects: true },
  },
];
