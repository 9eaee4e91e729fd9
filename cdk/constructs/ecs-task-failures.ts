import { Stack, Validations } from 'aws-cdk-lib';
import type { ICluster } from 'aws-cdk-lib/aws-ecs';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DLQ_RETENTION } from './defaults.js';
import { ECS_CONTAINER_NAME } from './ecs-schedule.js';

/**
 * The event pattern of a failed task of one task definition family: an "ECS Task State Change" event
 * (Amazon ECS Developer Guide, "Amazon ECS task state change events") of a STOPPED task on the cluster
 * whose `job` container exited with a code other than 0 (the task entry exits 0 for succeeded and for a
 * recorded skip only), or that never started (`stopCode` TaskFailedToStart: image pull, ENI, capacity).
 */
export function taskFailurePattern(clusterArn: string, taskDefinitionArnPrefix: string) {
  return {
    source: ['aws.ecs'],
    detailType: ['ECS Task State Change'],
    detail: {
      clusterArn: [clusterArn],
      lastStatus: ['STOPPED'],
      taskDefinitionArn: [{ prefix: taskDefinitionArnPrefix }],
      $or: [
        { containers: { name: [ECS_CONTAINER_NAME], exitCode: [{ 'anything-but': 0 }] } },
        { stopCode: ['TaskFailedToStart'] },
      ],
    },
  };
}

/**
 * A queue receiving every failed task of the family (an EventBridge rule on the default bus): its
 * depth is the job's task-failure alarm, and each message is the stopped task's event (exit code,
 * stop code and reason) for the one reading the alarm. SSE-SQS, TLS enforced, 14 days retention.
 * @returns the queue and the rule
 */
export function taskFailureQueue(
  scope: Construct,
  id: string,
  cluster: ICluster,
  family: string,
): { queue: Queue; rule: Rule } {
  const stack = Stack.of(scope);
  const queue = new Queue(scope, `${id}Queue`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: DLQ_RETENTION,
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is where failed-task events end (the alarm counts its messages); nothing consumes it, ' +
      'so a dead-letter queue for it would never receive a message.',
  });
  const prefix = `arn:${stack.partition}:ecs:${stack.region}:${stack.account}:task-definition/${family}:`;
  const rule = new Rule(scope, `${id}Rule`, {
    description: `cronfence: failed tasks of ${family}`,
    eventPattern: taskFailurePattern(cluster.clusterArn, prefix),
    targets: [new SqsQueue(queue)],
  });
  return { queue, rule };
}
