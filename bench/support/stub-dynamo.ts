/**
 * A DynamoDB that answers without a network, for measuring the client side of a run alone: an SDK
 * request handler (the `requestHandler` client option) that answers every request at once with a
 * canned HTTP response of the shape the DynamoDB API reference gives (`application/x-amz-json-1.0`):
 * an `UpdateItem` asking `ReturnValues: ALL_OLD` (a claim) gets the lease item given, every other
 * request `{}`. Everything above the socket — the SDK's middleware, marshalling, signing, the library
 * — runs as against a real endpoint, so the CPU a run costs here is the client's CPU without the
 * network's and DynamoDB Local's share (and without their noise).
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

const JSON_HEADERS = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'stub' };

/** A request handler answering claims with `leaseItem` (as ALL_OLD) and everything else with `{}`. */
export function stubRequestHandler(
  leaseItem: Record<string, unknown>,
): DynamoDBClientConfig['requestHandler'] {
  const encoder = new TextEncoder();
  const claimBody = encoder.encode(
    JSON.stringify({ Attributes: marshall(leaseItem, { removeUndefinedValues: true }) }),
  );
  const emptyBody = encoder.encode('{}');
  return {
    handle: async (request: { body?: unknown }) => {
      const body = typeof request.body === 'string' ? request.body : '';
      const claim = body.includes('"ReturnValues":"ALL_OLD"');
      return {
        response: {
          statusCode: 200,
          reason: 'OK',
          headers: { ...JSON_HEADERS, 'content-length': String((claim ? claimBody : emptyBody).length) },
          body: claim ? claimBody : emptyBody,
        },
      };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
    destroy: () => undefined,
  } as unknown as DynamoDBClientConfig['requestHandler'];
}
