/**
 * The operator API on a test's DynamoDB Local tables, in this process: what the CLI tests call
 * instead of spawning `cronfence` (the CLI is a thin shell over it; a few end-to-end tests spawn it).
 */
import { jobs as exampleJobs } from '../../functions/index.js';
import { type Operator, type OperatorOptions, openOperator } from '../../operate/operator.js';
import type { LocalStack } from '../helpers/local-stack.js';

/** An operator on `stack`'s library table with the example jobs (functions/index.ts), unless overridden. */
export function operatorOn(stack: LocalStack, options: OperatorOptions = {}): Operator {
  return openOperator({
    endpoint: stack.endpoint,
    table: stack.tableName,
    region: 'us-east-1',
    env: {},
    jobs: exampleJobs,
    ...options,
  });
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection, got a result');
}
