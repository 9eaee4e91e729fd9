/**
 * The sweeper's catch-up of an ECS job: one ECS `RunTask` per missed or unfinished occurrence, with
 * the occurrence in the container overrides exactly as Scheduler's ECS target passes it
 * (`overrides.containerOverrides[{ name: "job", environment: [{ name: "CRONFENCE_OCCURRENCE" }] }]`),
 * beside the Lambda `Invoke` catch-up of Lambda jobs.
 */
import { randomUUID } from 'node:crypto';
import { RunTaskCommand, type RunTaskCommandInput, type RunTaskCommandOutput } from '@aws-sdk/client-ecs';
import * as v from 'valibot';
import { Trigger } from '../core/outcomes.js';

/** The container the task definition runs the job in (the overrides name it). */
export const ECS_JOB_CONTAINER = 'job';
/** The container variable carrying the occurrence as JSON. */
export const ECS_OCCURRENCE_ENV = 'CRONFENCE_OCCURRENCE';

/** Where and how to run an ECS job's task (from the sweeper's `CRONFENCE_JOBS` entry `ecs`). */
export const EcsTargetSchema = v.object({
  cluster: v.pipe(v.string('must be a cluster name or ARN'), v.minLength(1, 'must not be empty')),
  taskDefinition: v.pipe(v.string('must be a task definition ARN'), v.minLength(1, 'must not be empty')),
  subnets: v.pipe(
    v.array(v.string('must be a subnet id'), 'must be an array of subnet ids'),
    v.minLength(1, 'must name at least one subnet'),
  ),
  securityGroups: v.array(v.string('must be a security group id'), 'must be an array of security group ids'),
  assignPublicIp: v.boolean('must be true or false'),
  spot: v.optional(v.boolean('must be true or false')),
});

/** An ECS job's task target. */
export type EcsTarget = v.InferOutput<typeof EcsTargetSchema>;

/** The one operation the catch-up sends (an `ECSClient` satisfies it). */
export interface RunTaskClient {
  send(command: RunTaskCommand): Promise<RunTaskCommandOutput>;
}

/** ECS refused to start the catch-up task: RunTask answered with `failures[]` and no task. */
export class RunTaskRefusedError extends Error {
  override readonly name = 'RunTaskRefusedError';
  constructor(
    readonly failures: readonly {
      readonly arn?: string;
      readonly reason?: string;
      readonly detail?: string;
    }[],
  ) {
    super(
      `ECS RunTask started no task: ${failures.map((f) => `${f.reason ?? 'unknown reason'}${f.detail ? ` (${f.detail})` : ''}${f.arn ? ` for ${f.arn}` : ''}`).join('; ') || 'no failures given'}`,
    );
  }
}

/**
 * The occurrence JSON of a catch-up payload (`catchUpPayload`): `scheduledTime`, attempt 1, a fresh
 * execution id (`sweeper-<uuid>`, as Scheduler gives each attempt its own), trigger `catch-up`, and the
 * nominal local `slot` of a shifted DST-gap occurrence, `requestedBy` and `reason` as the payload has them.
 */
export function catchUpOccurrence(payload: Record<string, unknown>): string {
  return JSON.stringify({
    scheduledTime: payload.scheduledTime,
    attempt: 1,
    executionId: `sweeper-${randomUUID()}`,
    trigger: Trigger.CatchUp,
    ...(payload.slot !== undefined && { slot: payload.slot }),
    ...(payload.requestedBy !== undefined && { requestedBy: payload.requestedBy }),
    ...(payload.reason !== undefined && { reason: payload.reason }),
  });
}

/** The RunTask request of one catch-up (ECS API reference, RunTask). */
export function catchUpRunTask(job: string, target: EcsTarget, occurrence: string): RunTaskCommandInput {
  return {
    cluster: target.cluster,
    taskDefinition: target.taskDefinition,
    count: 1,
    ...(target.spot
      ? { capacityProviderStrategy: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }] }
      : { launchType: 'FARGATE' }),
    networkConfiguration: {
      awsvpcConfiguration: {
        subnets: [...target.subnets],
        securityGroups: [...target.securityGroups],
        assignPublicIp: target.assignPublicIp ? 'ENABLED' : 'DISABLED',
      },
    },
    group: `cronfence:${job}`,
    startedBy: 'cronfence-sweeper',
    overrides: {
      containerOverrides: [
        { name: ECS_JOB_CONTAINER, environment: [{ name: ECS_OCCURRENCE_ENV, value: occurrence }] },
      ],
    },
  };
}

/**
 * The sweeper's invoke for an ECS job: RunTask of one task with the occurrence in its overrides.
 * No `clientToken`: a repeated catch-up is one more duplicate the lease turns into a `skipped` record,
 * while a token would make ECS drop a later catch-up of the same slot.
 * @throws RunTaskRefusedError when ECS answers with `failures[]` and starts no task (the sweeper then
 *   records `failed / sweep-failed` with the reasons); the SDK's error when the request is refused.
 */
export function ecsCatchUpInvoker(
  client: RunTaskClient,
  job: string,
  target: EcsTarget,
): (payload: Record<string, unknown>) => Promise<void> {
  return async (payload) => {
    const out = await client.send(
      new RunTaskCommand(catchUpRunTask(job, target, catchUpOccurrence(payload))),
    );
    if ((out.tasks ?? []).length === 0) throw new RunTaskRefusedError(out.failures ?? []);
  };
}
