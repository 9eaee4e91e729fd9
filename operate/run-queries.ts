/**
 * Read-side queries the CLI runs on the library table: a job's run records (Query on `JOB#<job>`,
 * newest slot first) and problem records across jobs (Query on the sparse `problems` GSI). Never a Scan.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryItems } from '../lib/store/client.js';
import { Attr, Keys, PROBLEMS_INDEX } from '../lib/store/schema.js';

/** A stored item as the CLI shows it. */
export type Item = Record<string, unknown>;

/** Attributes of the stored form that only serve keys, TTL or the index. */
const INTERNAL = new Set<string>([Attr.pk, Attr.sk, Attr.expiresAt, Attr.problem, Attr.problemAt, 'kind']);

/** An item without its key/TTL/index attributes (what `--json` prints). */
export function publicView(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([k]) => !INTERNAL.has(k)));
}

/** Filters of {@link queryJobRuns}. */
export interface JobRunsQuery {
  readonly job: string;
  /** Slot id or a prefix of one (`2026-03-28`, `2026-03-28T02:30`). */
  readonly slot?: string;
  /** Only attempts started at or after this instant, epoch ms. */
  readonly sinceMs?: number;
  readonly outcomes?: readonly string[];
  /** @default 20 */
  readonly limit?: number;
  /** Oldest slot first. @default false (newest first) */
  readonly ascending?: boolean;
}

/** A job's run records, newest slot first: one Query on `pk = JOB#<job>`, `sk` prefix `RUN#[<slot>]`. */
export async function queryJobRuns(
  doc: DynamoDBDocumentClient,
  tableName: string,
  q: JobRunsQuery,
): Promise<Item[]> {
  const filters: string[] = [];
  const names: Record<string, string> = { '#pk': Attr.pk, '#sk': Attr.sk };
  const values: Record<string, unknown> = {
    ':pk': Keys.lease(q.job).pk,
    ':prefix': `RUN#${q.slot ?? ''}`,
  };
  if (q.sinceMs !== undefined) {
    filters.push('#startedAtMs >= :since');
    names['#startedAtMs'] = 'startedAtMs';
    values[':since'] = q.sinceMs;
  }
  if (q.outcomes?.length) {
    names['#outcome'] = 'outcome';
    filters.push(`#outcome IN (${q.outcomes.map((_, i) => `:o${i}`).join(', ')})`);
    q.outcomes.forEach((o, i) => {
      values[`:o${i}`] = o;
    });
  }
  return queryItems(
    doc,
    {
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: q.ascending ?? false,
      ConsistentRead: true,
    },
    q.limit ?? 20,
  );
}

/** Filters of {@link queryProblems}. */
export interface ProblemsQuery {
  /**
   * Index partitions: run outcomes (`failed`, `stale`, `abandoned`, and `skipped`, which holds only
   * skips for a reason in PROBLEM_REASONS: RUN_PROBLEM_PARTITIONS) or effect statuses (`needs-review`).
   */
  readonly problems: readonly string[];
  /** Only problems recorded at or after this instant, epoch ms. */
  readonly sinceMs: number;
  /** Only this job's records. */
  readonly job?: string;
  /** @default 50 (`Infinity`: every one) */
  readonly limit?: number;
}

/**
 * Problem records across jobs, newest first: one Query per partition of the sparse `problems` GSI
 * (`problem = <outcome>`, `problemAtMs >= since`), merged.
 */
export async function queryProblems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  q: ProblemsQuery,
): Promise<Item[]> {
  const limit = q.limit ?? 50;
  const parts = await Promise.all(
    q.problems.map((problem) =>
      queryItems(
        doc,
        {
          TableName: tableName,
          IndexName: PROBLEMS_INDEX,
          KeyConditionExpression: '#problem = :problem AND #at >= :since',
          ...(q.job !== undefined && { FilterExpression: '#job = :job' }),
          ExpressionAttributeNames: {
            '#problem': Attr.problem,
            '#at': Attr.problemAtMs,
            ...(q.job !== undefined && { '#job': 'job' }),
          },
          ExpressionAttributeValues: {
            ':problem': problem,
            ':since': q.sinceMs,
            ...(q.job !== undefined && { ':job': q.job }),
          },
          ScanIndexForward: false,
        },
        limit,
      ),
    ),
  );
  return parts
    .flat()
    .sort((a, b) => Number(b[Attr.problemAtMs] ?? 0) - Number(a[Attr.problemAtMs] ?? 0))
    .slice(0, limit);
}
