/**
 * An SDK request handler that answers every request `{}` (HTTP 200) at once, without a network: the
 * body DynamoDB returns for PutItem, UpdateItem and TransactWriteItems without `ReturnValues` (DynamoDB
 * API reference). For unit tests of what the SDK's middleware stack sees and sends.
 */
export const answerEmpty = {
  handle: async () => ({
    response: {
      statusCode: 200,
      reason: 'OK',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': '2' },
      body: new TextEncoder().encode('{}'),
    },
  }),
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
  destroy: () => undefined,
};
