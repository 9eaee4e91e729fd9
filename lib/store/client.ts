/**
 * The one DynamoDB client factory (runtime, CLI, harness, tests) and paginated reads built on the
 * SDK's own paginators (`paginateQuery` / `paginateScan` of lib-dynamodb), never on hand-written
 * `LastEvaluatedKey` loops.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';

/**
 * A Document client (undefined attributes removed, class instances not converted).
 * Endpoint: `config.endpoint`, else `DYNAMODB_ENDPOINT` (e.g. DynamoDB Local). Region: `AWS_REGION`.
 * Every key of `config` wins, an `undefined` one too (`region: undefined` leaves the region to the
 * SDK's chain). @default region 'us-east-1'; dummy credentials for a localhost endpoint when no
 * `AWS_ACCESS_KEY_ID` is set.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const endpoint = 'endpoint' in config ? config.endpoint : process.env.DYNAMODB_ENDPOINT;
  const local = endpoint !== undefined && /localhost|127\.0\.0\.1|\[::1\]/.test(String(endpoint));
  const client = new DynamoDBClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint !== undefined && { endpoint }),
    ...(local &&
      !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    ...config,
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/** An item as the Document client returns it. */
export type StoredItem = Record<string, unknown>;

/**
 * Every item of a Query, all pages, or the first `limit`. @default limit: all
 * @throws the SDK's error (callers name the read)
 */
export async function queryItems(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit: number = Number.POSITIVE_INFINITY,
): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  // A filtered query reads up to 500 items a page; an unfiltered one no more than it still needs.
  const pageSize =
    input.FilterExpression || !Number.isFinite(limit) ? 500 : Math.max(Math.min(limit, 500), 1);
  const paged = input.FilterExpression || Number.isFinite(limit);
  for await (const page of paginateQuery({ client: doc, ...(paged && { pageSize }) }, input)) {
    items.push(...(page.Items ?? []));
    if (items.length >= limit) break;
  }
  return items.slice(0, limit);
}

/** Every item of a Scan, all pages. @throws the SDK's error */
export async function scanItems(doc: DynamoDBDocumentClient, input: ScanCommandInput): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for await (const page of paginateScan({ client: doc }, input)) items.push(...(page.Items ?? []));
  return items;
}
