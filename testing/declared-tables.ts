/**
 * The application tables a project's jobs declare, read from what its jobs module exports, so local
 * DynamoDB gets the same tables the CDK app creates in AWS.
 */
import type { JobHandler } from '../lib/runtime/define-job.js';
import type { JobEntryInput } from '../lib/runtime/registry.js';
import type { JobAccess } from '../lib/store/job-access.js';
import type { TableSchema } from '../lib/store/schema.js';

/**
 * What a jobs module exports: `defineJob` handlers or `defineRegistry` entries, as an array or a record
 * of them (the `jobs` or `handlers` export).
 */
export type JobsList =
  | readonly (JobHandler | JobEntryInput)[]
  | Readonly<Record<string, JobHandler | JobEntryInput>>;

/** The access a job declares: its registry entry's `uses`, else its definition's. */
function accessOf(item: JobHandler | JobEntryInput): JobAccess | undefined {
  if (typeof item === 'function') return item.uses;
  return item.uses ?? item.handler.uses;
}

/**
 * Every application table the jobs declare in `uses.tables` (on a registry entry or on the job's
 * definition), each once, in the order first declared.
 */
export function declaredTables(jobs: JobsList): TableSchema[] {
  const items = Array.isArray(jobs) ? jobs : Object.values(jobs);
  const seen = new Map<string, TableSchema>();
  for (const item of items as readonly (JobHandler | JobEntryInput)[]) {
    for (const use of accessOf(item)?.tables ?? []) {
      if (!seen.has(use.table.defaultName)) seen.set(use.table.defaultName, use.table);
    }
  }
  return [...seen.values()];
}
