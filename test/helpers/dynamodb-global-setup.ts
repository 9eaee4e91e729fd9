/**
 * vitest globalSetup for the integ project: one DynamoDB Local for the whole run (or the endpoint in
 * DYNAMODB_ENDPOINT), stopped by PID at teardown. Tests get the endpoint with `inject('dynamoEndpoint')`.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../harness/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.DYNAMODB_ENDPOINT) {
    project.provide('dynamoEndpoint', process.env.DYNAMODB_ENDPOINT);
    return async () => undefined;
  }
  const local = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', local.endpoint);
  return () => local.stop();
}
