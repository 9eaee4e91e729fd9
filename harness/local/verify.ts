/**
 * Invariant checks read from DynamoDB's own state after an emulated run: one run record per
 * invocation, no lease left held. Business checks (one result per key) come from the app.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { queryItems, scanItems } from '../../lib/store/client.js';
import { Keys } from '../../lib/store/schema.js';

/** One invariant and whether it held. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Every item of a table, consistent, all pages (local checks and tests; never on a run's path). */
export function scanAll(doc: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  return scanItems(doc, { TableName: tableName, ConsistentRead: true });
}

/** Run records of a job (all slots), consistent read. */
export function runRecordsOf(
  doc: DynamoDBDocumentClient,
  tableName: string,
  job: string,
): Promise<Record<string, unknown>[]> {
  return queryItems(doc, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :run)',
    ExpressionAttributeValues: { ':pk': `JOB#${job}`, ':run': 'RUN#' },
    ConsistentRead: true,
  });
}

/**
 * Generic invariants: each invocation (summary) has exactly one run record with the same outcome,
 * there are no run records nobody invoked, and every job's lease item is released.
 */
export async function verifyRunRecordsAndLeases(
  doc: DynamoDBDocumentClient,
  tableName: string,
  jobs: readonly string[],
  summaries: readonly RunSummary[],
): Promise<Check[]> {
  const checks: Check[] = [];
  for (const job of jobs) {
    // The sweeper's own `catch-up-limit` records are decisions, not invocations.
    const records = (await runRecordsOf(doc, tableName, job)).filter(
      (r) => !String(r.runId).startsWith('sweeper-'),
    );
    const mine = summaries.filter((s) => s.job === job);
    const byRun = new Map(records.map((r) => [String(r.runId), r]));
    const missing = mine.filter((s) => byRun.get(s.runId)?.outcome !== s.outcome);
    checks.push({
      name: `${job}: one run record per invocation`,
      ok: records.length === mine.length && missing.length === 0,
      detail: `${mine.length} invocations, ${records.length} run records${missing.length ? `, ${missing.length} without a matching record` : ''}`,
    });
    const lease = await queryItems(doc, {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk = :sk',
      ExpressionAttributeValues: { ':pk': Keys.lease(job).pk, ':sk': 'LEASE' },
      ConsistentRead: true,
    });
    const held = lease.filter((l) => l.holderState !== 'released');
    checks.push({
      name: `${job}: no lease left held`,
      ok: held.length === 0,
      detail: lease.length ? `fence ${lease[0]?.fence}, ${String(lease[0]?.holderState)}` : 'never claimed',
    });
  }
  return checks;
}
