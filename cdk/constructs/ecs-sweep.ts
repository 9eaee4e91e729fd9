/** What the sweeper needs to catch up ECS jobs: their `CRONFENCE_JOBS` entries and the RunTask grant. */
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { EcsScheduledJob } from './ecs-job.js';

/** Longest renderings of the deploy-time values of an entry (for Lambda's 4 KB environment check). */
const REGION_ACCOUNT = `${'x'.repeat(14)}:${'1'.repeat(12)}`;
const MAX_CLUSTER_ARN = `arn:aws-us-gov:ecs:${REGION_ACCOUNT}:cluster/${'x'.repeat(255)}`;
const MAX_TASK_DEFINITION_ARN = `arn:aws-us-gov:ecs:${REGION_ACCOUNT}:task-definition/${'x'.repeat(255)}:${'9'.repeat(10)}`;
const MAX_SUBNET_ID = `subnet-${'0'.repeat(17)}`;
const MAX_SECURITY_GROUP_ID = `sg-${'0'.repeat(17)}`;

/**
 * The sweeper's `CRONFENCE_JOBS` entries of the ECS jobs, `{ name, startMs?, ecs: { cluster,
 * taskDefinition, subnets, securityGroups, assignPublicIp, spot } }` (the schedule's own placement, so a
 * catch-up task runs where a scheduled one does), and the same entries with every deploy-time value at
 * its longest.
 */
export function ecsSweepTargets(jobs: readonly EcsScheduledJob[]): {
  entries: Record<string, unknown>[];
  bounds: Record<string, unknown>[];
} {
  const entries = jobs.map((job) => {
    const { cluster, subnets, securityGroups, assignPublicIp } = job.placement;
    return {
      name: job.definition.name,
      ...(job.startMs === undefined ? {} : { startMs: job.startMs }),
      ecs: {
        cluster: cluster.clusterArn,
        taskDefinition: job.taskDefinition.taskDefinitionArn,
        subnets: cluster.vpc.selectSubnets(subnets).subnetIds,
        securityGroups: securityGroups.map((g) => g.securityGroupId),
        assignPublicIp,
        spot: job.spot,
      },
    };
  });
  const bounds = entries.map((e) => ({
    ...e,
    ecs: {
      ...e.ecs,
      cluster: MAX_CLUSTER_ARN,
      taskDefinition: MAX_TASK_DEFINITION_ARN,
      subnets: e.ecs.subnets.map(() => MAX_SUBNET_ID),
      securityGroups: e.ecs.securityGroups.map(() => MAX_SECURITY_GROUP_ID),
    },
  }));
  return { entries, bounds };
}

/**
 * Let the sweeper start the ECS jobs' tasks and nothing else: `ecs:RunTask` on each job's task
 * definition, only on its cluster (`ecs:cluster`), and `iam:PassRole` of exactly their task and
 * execution roles, only to ECS tasks (`iam:PassedToService`) — what RunTask of a task definition with
 * those roles requires (Amazon ECS Developer Guide, "Amazon ECS task execution IAM role").
 */
export function grantEcsCatchUp(role: Role, jobs: readonly EcsScheduledJob[]): void {
  for (const job of jobs)
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ecs:RunTask'],
        resources: [job.taskDefinition.taskDefinitionArn],
        conditions: { ArnEquals: { 'ecs:cluster': job.placement.cluster.clusterArn } },
      }),
    );
  if (jobs.length > 0)
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: jobs.flatMap((job) => [job.taskRole.roleArn, job.executionRole.roleArn]),
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
}
