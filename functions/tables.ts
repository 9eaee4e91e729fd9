/**
 * The example application's business tables (not cronfence's): each job declares the ones it writes
 * in its `defineJob({ uses })`; `npm start` and the CDK app create them from these schemas.
 */
import type { TableSchema } from '../lib/index.js';

/** Daily reports, one per local report date (protected item, written with a fenced write). */
export const reportsTable: TableSchema = {
  defaultName: 'cronfence-example-reports',
  envVar: 'REPORTS_TABLE',
  partitionKey: { name: 'reportDate', type: 'S' },
};

/** Settlements, one insert-once row per merchant and settlement date. */
export const settlementsTable: TableSchema = {
  defaultName: 'cronfence-example-settlements',
  envVar: 'SETTLEMENTS_TABLE',
  partitionKey: { name: 'merchantId', type: 'S' },
  sortKey: { name: 'settlementDate', type: 'S' },
};

/** Physical name of a table: its env var (set by CDK / the emulator) or its default name. */
export { tableName } from '../lib/index.js';

/**
 * Ledger exports of the ECS example job (functions/nightly-export.ts): one insert-once row per export date
 * and part, and a fenced `manifest` row per date.
 */
export const exportsTable: TableSchema = {
  defaultName: 'cronfence-example-exports',
  envVar: 'EXPORTS_TABLE',
  partitionKey: { name: 'exportDate', type: 'S' },
  sortKey: { name: 'part', type: 'S' },
};
