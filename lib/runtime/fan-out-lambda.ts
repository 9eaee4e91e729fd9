/**
 * The AWS shard dispatcher: Lambda async `Invoke` (InvocationType `Event`) of the same function, one
 * per shard payload. In its own module so only sharded jobs bundle the Lambda client.
 * The function's role needs `lambda:InvokeFunction` on itself (the CDK construct grants it for jobs
 * with `shards > 1`).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { InvalidArgumentError } from '../core/input-errors.js';
import type { ShardDispatcher } from './fan-out.js';

/** Options of {@link lambdaShardDispatcher}. */
export interface LambdaShardDispatcherOptions {
  /** Function to invoke. @default `process.env.AWS_LAMBDA_FUNCTION_NAME` (this function) */
  readonly functionName?: string;
  /** @default a client for `AWS_REGION`, created at the first dispatch */
  readonly client?: LambdaClient;
  /** Invokes in flight at once. @default 32 */
  readonly concurrency?: number;
}

/**
 * Dispatch shards by async self-invocation. Lambda queues each event (and may deliver it more than
 * once: the shard's lease absorbs that).
 * @throws InvalidArgumentError at dispatch when no function name is known; the SDK's error when an
 *   Invoke is refused (the fan-out run fails and Scheduler/Lambda retry it; shards already done skip).
 */
export function lambdaShardDispatcher(options: LambdaShardDispatcherOptions = {}): ShardDispatcher {
  let client = options.client;
  return {
    async dispatch(payloads) {
      const functionName = options.functionName ?? process.env.AWS_LAMBDA_FUNCTION_NAME;
      if (!functionName)
        throw new InvalidArgumentError('functionName', functionName, 'is required outside Lambda');
      client ??= new LambdaClient({});
      const c = client;
      let next = 0;
      const worker = async () => {
        while (next < payloads.length) {
          const payload = payloads[next++];
          await c.send(
            new InvokeCommand({
              FunctionName: functionName,
              InvocationType: 'Event',
              Payload: new TextEncoder().encode(JSON.stringify(payload)),
            }),
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 32, payloads.length) }, worker));
    },
  };
}
