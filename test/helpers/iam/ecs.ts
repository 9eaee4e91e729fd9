/**
 * The ECS side of the IAM test: the template's Fargate task definitions (task role, execution role,
 * container environment), their tables, and the authorizations AWS performs around them — Scheduler's
 * AssumeRole, RunTask and PassRole of an ECS schedule (Service Authorization Reference, Amazon ECS:
 * `ecs:RunTask` on the task definition with the `ecs:cluster` condition key; IAM: `iam:PassRole` of
 * each role the task definition names, with `iam:PassedToService`), ECS's AssumeRole of the task role,
 * the execution role's image pull and log writes.
 */
import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../harness/local/tables.js';
import { libraryTable, type TableSchema } from '../../../lib/store/schema.js';
import type { Deployment } from './deployment.js';
import type { IamCheck } from './requests.js';
import { ACCOUNT, REGION } from './template.js';

/** A Fargate task definition of the template. */
export interface DeployedTask {
  readonly logicalId: string;
  readonly family: string;
  readonly arn: string;
  /** Logical ids of its roles. */
  readonly taskRole: string;
  readonly executionRole: string;
  /** The `job` container's environment, resolved. */
  readonly environment: Record<string, string>;
}

type Env = { Name: string; Value: unknown }[];

/** The template's task definitions. */
export function ecsTasks(d: Deployment): DeployedTask[] {
  return d.t.ofType('AWS::ECS::TaskDefinition').map(([id, r]) => {
    const p = r.Properties ?? {};
    const [container] = p.ContainerDefinitions as { Environment?: Env }[];
    const environment = Object.fromEntries(
      (container?.Environment ?? []).map((e) => [e.Name, String(d.t.resolve(e.Value))]),
    );
    return {
      logicalId: id,
      family: String(p.Family),
      arn: d.t.ref(id),
      taskRole: d.t.roleOf(p.TaskRoleArn).logicalId,
      executionRole: d.t.roleOf(p.ExecutionRoleArn).logicalId,
      environment,
    };
  });
}

/** The task of a job (its `CRONFENCE_JOB`). @throws when there is none */
export function ecsTask(d: Deployment, job: string): DeployedTask {
  const task = ecsTasks(d).find((t) => t.environment.CRONFENCE_JOB === job);
  if (!task) throw new Error(`no ECS task for job ${job}`);
  return task;
}

/**
 * Tell the deployment which schema each table stands for (from the containers' and functions'
 * environments) and create the tables under their physical names.
 */
export async function createEcsTables(
  d: Deployment,
  doc: DynamoDBDocumentClient,
  schemas: readonly TableSchema[],
): Promise<void> {
  const envs: Record<string, unknown>[] = [
    ...d.t
      .ofType('AWS::ECS::TaskDefinition')
      .map(([, r]) =>
        Object.fromEntries(
          (((r.Properties?.ContainerDefinitions ?? []) as { Environment?: Env }[])[0]?.Environment ?? []).map(
            (e) => [e.Name, e.Value],
          ),
        ),
      ),
    ...d.t
      .ofType('AWS::Lambda::Function')
      .map(
        ([, r]) =>
          (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      ),
  ];
  for (const [id] of d.t.ofType('AWS::DynamoDB::Table')) {
    const schema = [libraryTable, ...schemas].find((s) =>
      envs.some((vars) => JSON.stringify(vars[s.envVar]) === JSON.stringify({ Ref: id })),
    );
    if (!schema) throw new Error(`table ${id} is used by no task's or function's environment`);
    d.tables.set(id, schema);
  }
  await ensureTables(
    doc,
    [...d.tables].map(([id, schema]) => ({ schema, tableName: d.t.ref(id) })),
  );
}

/** What IAM checks for one RunTask as `role` (the task definition's two roles are passed to ECS). */
export function runTaskChecks(
  d: Deployment,
  role: string,
  input: RunTaskCommandInput,
  what: string,
): IamCheck[] {
  const task = ecsTasks(d).find((t) => t.arn === input.taskDefinition);
  if (!task)
    throw new Error(
      `${what}: RunTask of ${String(input.taskDefinition)}, not a task definition of the template`,
    );
  return [
    {
      role,
      action: 'ecs:RunTask',
      resource: task.arn,
      context: { 'ecs:cluster': String(input.cluster) },
      what: `${what}: RunTask`,
    },
    ...[task.taskRole, task.executionRole].map((passed) => ({
      role,
      action: 'iam:PassRole',
      resource: `arn:aws:iam::${ACCOUNT}:role/${passed}`,
      context: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' },
      what: `${what}: RunTask passes ${passed}`,
    })),
  ];
}

/**
 * What the services do with the ECS roles: Scheduler assumes an ECS schedule's role (group ARN, account)
 * and runs the task (RunTask + PassRole) or dead-letters the occurrence; ECS assumes the task role for
 * a task of this account; the execution role pulls the image from the assets repository and writes the
 * container's log group.
 */
export function ecsServiceChecks(d: Deployment): IamCheck[] {
  const checks: IamCheck[] = [];
  for (const [id, r] of d.t.ofType('AWS::Scheduler::Schedule')) {
    const p = r.Properties ?? {};
    const target = p.Target as Record<string, unknown>;
    const ecs = target.EcsParameters as Record<string, unknown> | undefined;
    if (!ecs) continue;
    const role = d.t.roleOf(target.RoleArn);
    const group = d.t
      .ofType('AWS::Scheduler::ScheduleGroup')
      .find(([gid]) => d.t.ref(gid) === d.t.resolve(p.GroupName));
    if (!group) throw new Error(`${id}: no schedule group`);
    const what = `scheduler: ${String(p.Name)}`;
    checks.push(
      {
        role: role.logicalId,
        assumedBy: 'scheduler.amazonaws.com',
        action: 'sts:AssumeRole',
        resource: role.arn,
        context: { 'aws:SourceArn': d.t.attribute(group[0], 'Arn'), 'aws:SourceAccount': ACCOUNT },
        what: `${what} assumes its role`,
      },
      ...runTaskChecks(
        d,
        role.logicalId,
        {
          cluster: String(d.t.resolve(target.Arn)),
          taskDefinition: String(d.t.resolve(ecs.TaskDefinitionArn)),
        },
        what,
      ),
      {
        role: role.logicalId,
        action: 'sqs:SendMessage',
        resource: String(d.t.resolve((target.DeadLetterConfig as { Arn: unknown }).Arn)),
        context: {},
        what: `${what} dead-letters an occurrence`,
      },
    );
  }
  for (const task of ecsTasks(d)) {
    const taskRole = d.t.roles.get(task.taskRole);
    if (!taskRole) throw new Error(`no role ${task.taskRole}`);
    const logGroup = d.t.ofType('AWS::Logs::LogGroup').find(([gid]) => {
      const def = d.t.resource(task.logicalId).Properties?.ContainerDefinitions as {
        LogConfiguration: { Options: Record<string, unknown> };
      }[];
      return (
        JSON.stringify(def[0]?.LogConfiguration.Options['awslogs-group']) === JSON.stringify({ Ref: gid })
      );
    });
    if (!logGroup) throw new Error(`${task.family}: no log group`);
    const repo = `arn:aws:ecr:${REGION}:${ACCOUNT}:repository/cdk-hnb659fds-container-assets-${ACCOUNT}-${REGION}`;
    checks.push(
      {
        role: task.taskRole,
        assumedBy: 'ecs-tasks.amazonaws.com',
        action: 'sts:AssumeRole',
        resource: taskRole.arn,
        context: {
          'aws:SourceArn': `arn:aws:ecs:${REGION}:${ACCOUNT}:task/cluster/0f9d8c7b6a5e4d3c`,
          'aws:SourceAccount': ACCOUNT,
        },
        what: `ecs: ${task.family} task assumes its task role`,
      },
      ...['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'].map(
        (action) => ({
          role: task.executionRole,
          action,
          resource: repo,
          context: {},
          what: `ecs: ${task.family} pulls its image`,
        }),
      ),
      {
        role: task.executionRole,
        action: 'ecr:GetAuthorizationToken',
        resource: '*',
        context: {},
        what: `ecs: ${task.family} gets a registry token`,
      },
      ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
        role: task.executionRole,
        action,
        resource: `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup[0]}:log-stream:job/job/0f9d8c7b6a5e4d3c`,
        context: {},
        what: `ecs: ${task.family} writes its logs`,
      })),
    );
  }
  return checks;
}
