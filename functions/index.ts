/**
 * The example app's jobs, with their handler files, for the CDK app and `npm start`.
 */
import type { JobDefinition } from '../lib/index.js';
import { handler as dailyReport } from './daily-report.js';
import { handler as merchantSettlement } from './merchant-settlement.js';

/** A job and the file that exports its `handler` (path relative to the repo root). */
export interface JobEntry {
  readonly definition: JobDefinition;
  readonly entry: string;
}

/** Job handlers by name. */
export const handlers = { 'daily-report': dailyReport, 'merchant-settlement': merchantSettlement } as const;

/** Every example job. */
export const jobs: readonly JobEntry[] = [
  { definition: dailyReport.job, entry: 'functions/daily-report.ts' },
  { definition: merchantSettlement.job, entry: 'functions/merchant-settlement.ts' },
];
