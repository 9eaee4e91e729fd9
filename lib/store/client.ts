/**
 * DynamoDB client construction and error mapping shared by every store.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreError } from '../errors.js';

/**
 * A Document client for the configured endpoint. `DYNAMODB_ENDPOINT` (e.g. DynamoDB Local) wins;
 * region from `AWS_REGION`. @default region 'us-east-1' locally; dummy credentials for a local endpoint.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const endpoint = config.endpoint ?? process.env.DYNAMODB_ENDPOINT;
  const local = endpoint !== undefined && /localhost|127\.0\.0\.1|\[::1\]/.test(String(endpoint));
  const client = new DynamoDBClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint !== undefined && { endpoint }),
    ...(local &&
      !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    ...config,
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  addConflictRetry(doc);
  return doc;
}

/** Attempts per request when DynamoDB reports a transaction conflict (on top of the SDK's own retries). */
export const CONFLICT_ATTEMPTS = 8;

/** Backoff before conflict retry `attempt` (1-based), ms: full jitter over 25 ms x 2^attempt, capped at 1.6 s. */
export function conflictBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(1_600, 25 * 2 ** attempt));
}

/**
 * True for an error that means "a transaction touching this item is in flight; try again":
 * `TransactionConflictException` on a single-item request, or a cancelled transaction whose only
 * reasons are conflicts (none is a condition failure). The SDK's standard retry strategy retries
 * neither (they are not throttling or transient errors to it).
 */
export function isConflictOnly(err: unknown): boolean {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'TransactionConflictException') return true;
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons) return false;
  const codes = e.CancellationReasons.map((r) => r.Code ?? 'None');
  return (
    codes.includes('TransactionConflict') && codes.every((c) => c === 'TransactionConflict' || c === 'None')
  );
}

/**
 * Retry transaction conflicts with backoff for every request of this client: one SDK middleware at
 * the `initialize` step, so each retry passes through the SDK's own retry step (and any fault layer
 * after it) again. Conflicts are transient by nature (DynamoDB docs: "Transaction conflict handling").
 */
function addConflictRetry(doc: DynamoDBDocumentClient): void {
  doc.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any) => async (args: any) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (err) {
          if (!isConflictOnly(err) || attempt >= CONFLICT_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, conflictBackoffMs(attempt)));
        }
      }
    },
    { step: 'initialize', name: 'cronfenceConflictRetry', override: true },
  );
}

/** True for DynamoDB's TransactionConflictException (an item is part of a transaction in flight). */
export function isTransactionConflict(err: unknown): boolean {
  return (err as Error)?.name === 'TransactionConflictException';
}

/** True for the SDK's condition-check failure. */
export function isConditionFailure(err: unknown): err is Error & { Item?: Record<string, unknown> } {
  return (err as Error)?.name === 'ConditionalCheckFailedException';
}

/**
 * The item a failed condition returned (`ReturnValuesOnConditionCheckFailure: ALL_OLD`). The
 * Document client leaves it marshalled (STYLE.md convention 5), so unmarshall here.
 */
export function itemOfConditionFailure(err: {
  Item?: Record<string, unknown>;
}): Record<string, unknown> | undefined {
  if (!err.Item) return undefined;
  // biome-ignore lint/suspicious/noExplicitAny: the SDK types Item as AttributeValue records
  return unmarshall(err.Item as any);
}

/** Wrap a non-condition SDK error as a StoreError naming the operation. */
export function storeError(operation: string, err: unknown): StoreError {
  return new StoreError(operation, err);
}
