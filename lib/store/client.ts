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
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
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
