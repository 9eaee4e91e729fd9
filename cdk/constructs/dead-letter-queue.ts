import { Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DLQ_RETENTION } from './defaults.js';

/**
 * An SQS dead-letter queue for a cronfence function: both Scheduler's undeliverable invocations
 * and Lambda's failed async events land here. SQS-managed encryption (both services can write to
 * it without a key policy), TLS enforced, 14 days retention.
 * @example
 * const deadLetters = createDeadLetterQueue(this, 'DeadLetters');
 */
export function createDeadLetterQueue(scope: Construct, id: string): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DLQ_RETENTION,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue IS the dead-letter queue (Scheduler DeadLetterConfig and the Lambda on-failure destination); ' +
      'a DLQ for it would only move the same messages, and its depth is alarmed.',
  });
  return queue;
}
