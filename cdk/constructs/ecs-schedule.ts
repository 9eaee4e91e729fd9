import { type Duration, TimeZone } from 'aws-cdk-lib';
import type { FargateTaskDefinition } from 'aws-cdk-lib/aws-ecs';
import type { Role } from 'aws-cdk-lib/aws-iam';
import {
  ContextAttribute,
  type IScheduleGroup,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import { EcsRunFargateTask } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_SCHEDULER_MAX_EVENT_AGE, DEFAULT_SCHEDULER_RETRY_ATTEMPTS } from './defaults.js';
import type { EcsPlacement } from './ecs-network.js';
import { CronfenceValidationError } from './errors.js';
import { schedulerRole } from './scheduler-role.js';

/** The task definition's container the job runs in (the overrides name it). */
export const ECS_CONTAINER_NAME = 'job';
/** The container variable carrying one occurrence (JSON), set per task through the RunTask overrides. */
export const OCCURRENCE_ENV = 'CRONFENCE_OCCURRENCE';

/**
 * The occurrence as the task entry reads it from {@link OCCURRENCE_ENV}, with Scheduler's context
 * attributes in place: EventBridge Scheduler replaces each `<aws.scheduler.*>` keyword in the target's
 * Input by its value (User Guide, "Adding context attributes"), here inside a JSON string, so the
 * variable's value renders as `{"scheduledTime":"2026-03-28T01:30:00Z","attempt":1,"executionId":"…","trigger":"schedule"}`.
 */
export const SCHEDULED_OCCURRENCE =
  `{"scheduledTime":"${ContextAttribute.scheduledTime}","attempt":${ContextAttribute.attemptNumber},` +
  `"executionId":"${ContextAttribute.executionId}","trigger":"schedule"}`;

/**
 * The schedule target's Input for an ECS task: Scheduler converts an ECS target's Input into the
 * RunTask request's `overrides` (a TaskOverride; CreateSchedule refuses an Input that is not one), so
 * the Input is `{"containerOverrides":[{"name":"job","environment":[{"name":"CRONFENCE_OCCURRENCE",
 * "value":<the occurrence>}]}]}` (ECS API reference, RunTask `overrides.containerOverrides[].environment`:
 * it adds a variable to the container or overrides one of the task definition's).
 */
export function ecsOccurrenceOverrides(occurrence: string): {
  containerOverrides: { name: string; environment: { name: string; value: string }[] }[];
} {
  return {
    containerOverrides: [
      { name: ECS_CONTAINER_NAME, environment: [{ name: OCCURRENCE_ENV, value: occurrence }] },
    ],
  };
}

/** Properties of {@link EcsSchedule}. */
export interface EcsScheduleProps {
  /** The task definition each occurrence runs. */
  readonly taskDefinition: FargateTaskDefinition;
  /** Where the task runs. */
  readonly placement: EcsPlacement;
  /** Fargate Spot instead of on-demand Fargate. */
  readonly spot: boolean;
  /** Schedule name: the job name. */
  readonly scheduleName: string;
  /** The stack's schedule group. */
  readonly group: IScheduleGroup;
  /** EventBridge Scheduler expression. */
  readonly expression: string;
  /** IANA zone of the expression. */
  readonly timeZone: string;
  /** Where Scheduler puts occurrences it could not hand to ECS after its retries. */
  readonly deadLetterQueue: IQueue;
  /** Scheduler hand-off retries (0–185). @default 185 */
  readonly retryAttempts?: number;
  /** How long Scheduler retries a hand-off (60 s – 24 h). @default Duration.hours(24) */
  readonly maxEventAge?: Duration;
  /** Scheduler StartDate. @default - none */
  readonly start?: Date;
  /** Description. @default - none */
  readonly description?: string;
}

/**
 * An EventBridge Scheduler schedule whose target is ECS RunTask of one Fargate task definition (the
 * `EcsRunFargateTask` target of aws-cdk-lib): flexible time window off, the retry policy and an SQS
 * dead-letter queue, the occurrence in the container overrides ({@link ecsOccurrenceOverrides}), the
 * task group `cronfence:<job>`. Its own role (one per job, not one per cluster as the target's default
 * would share) may run only this task definition (`ecs:RunTask`), pass only its task and execution
 * roles (`iam:PassRole`) and write the DLQ; it trusts Scheduler acting for this account and schedule
 * group only (see `FunctionSchedule` for why the group ARN).
 * @example
 * new EcsSchedule(this, 'Schedule', { taskDefinition, placement, spot: false, scheduleName: 'export',
 *   group, expression: 'cron(0 2 * * ? *)', timeZone: 'UTC', deadLetterQueue });
 */
export class EcsSchedule extends Construct {
  /** The schedule. */
  public readonly schedule: Schedule;
  /** The role Scheduler assumes to run the task. */
  public readonly role: Role;

  constructor(scope: Construct, id: string, props: EcsScheduleProps) {
    super(scope, id);
    this.role = schedulerRole(
      this,
      props.group,
      `EventBridge Scheduler: run the ECS task of ${props.scheduleName}`,
    );
    const retryAttempts = props.retryAttempts ?? DEFAULT_SCHEDULER_RETRY_ATTEMPTS;
    if (!Number.isInteger(retryAttempts) || retryAttempts < 0 || retryAttempts > 185)
      throw new CronfenceValidationError(
        `${this.node.path}: Scheduler retryAttempts = ${retryAttempts}: must be an integer 0-185`,
        this,
      );
    const maxEventAge = props.maxEventAge ?? DEFAULT_SCHEDULER_MAX_EVENT_AGE;
    const { placement } = props;
    const target = new EcsRunFargateTask(placement.cluster, {
      taskDefinition: props.taskDefinition,
      role: this.role,
      input: ScheduleTargetInput.fromObject(ecsOccurrenceOverrides(SCHEDULED_OCCURRENCE)),
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts,
      maxEventAge,
      vpcSubnets: placement.subnets,
      securityGroups: [...placement.securityGroups],
      assignPublicIp: placement.assignPublicIp,
      group: `cronfence:${props.scheduleName}`,
      ...(props.spot
        ? { capacityProviderStrategies: [{ capacityProvider: 'FARGATE_SPOT', weight: 1 }] }
        : {}),
    });
    this.schedule = new Schedule(this, 'Schedule', {
      scheduleName: props.scheduleName,
      scheduleGroup: props.group,
      schedule: ScheduleExpression.expression(props.expression, TimeZone.of(props.timeZone)),
      timeWindow: TimeWindow.off(),
      target,
      ...(props.description ? { description: props.description } : {}),
      ...(props.start ? { start: props.start } : {}),
    });
  }
}
