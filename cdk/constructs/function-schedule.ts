import { type Duration, TimeZone } from 'aws-cdk-lib';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  type ISchedule,
  type IScheduleGroup,
  type IScheduleTarget,
  Schedule,
  ScheduleExpression,
  type ScheduleTargetConfig,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_SCHEDULER_MAX_EVENT_AGE, DEFAULT_SCHEDULER_RETRY_ATTEMPTS } from './defaults.js';
import { CronfenceValidationError } from './errors.js';
import { schedulerRole } from './scheduler-role.js';

/** Properties of {@link FunctionSchedule}. */
export interface FunctionScheduleProps {
  /** The function the schedule invokes (asynchronously). */
  readonly target: IFunction;
  /** Schedule name, unique within the group: the job name. */
  readonly scheduleName: string;
  /** The group the schedule belongs to (one per stack). */
  readonly group: IScheduleGroup;
  /** EventBridge Scheduler expression (`cron(...)`, `rate(...)`, `at(...)`). */
  readonly expression: string;
  /** IANA zone the expression is evaluated in. */
  readonly timeZone: string;
  /** The Input template (JSON object; context attributes as `<aws.scheduler.*>` strings). */
  readonly input: Readonly<Record<string, string>>;
  /** Where Scheduler puts invocations it could not hand off after its retries. */
  readonly deadLetterQueue: IQueue;
  /** Scheduler hand-off retries (0–185). @default 185 */
  readonly retryAttempts?: number;
  /** How long Scheduler retries a hand-off (60 s – 24 h). @default Duration.hours(24) */
  readonly maxEventAge?: Duration;
  /** Scheduler StartDate. @default - none (starts at creation) */
  readonly start?: Date;
  /** Description shown in the console. @default - none */
  readonly description?: string;
}

/** A Lambda target whose role may invoke exactly this function ARN (no `:*` version wildcard). */
class ExactLambdaTarget implements IScheduleTarget {
  constructor(
    private readonly fn: IFunction,
    private readonly role: Role,
    private readonly config: Omit<ScheduleTargetConfig, 'arn' | 'role'>,
  ) {}

  bind(_schedule: ISchedule): ScheduleTargetConfig {
    return { arn: this.fn.functionArn, role: this.role, ...this.config };
  }
}

/**
 * An EventBridge Scheduler schedule invoking one Lambda: expression + IANA zone, flexible time
 * window OFF, a retry policy and an SQS dead-letter queue. Its role may only invoke the target and
 * write to the DLQ, and trusts only Scheduler acting for this account (`aws:SourceAccount`) and this
 * stack's schedule group (`aws:SourceArn` = the group ARN `arn:…:scheduler:<region>:<account>:schedule-group/<group>`).
 *
 * Why the group and not the schedule: the EventBridge Scheduler User Guide, "Confused deputy
 * prevention" (https://docs.aws.amazon.com/scheduler/latest/UserGuide/cross-service-confused-deputy-prevention.html,
 * changed 2023-09-07 per the guide's document history), says the value of `aws:SourceArn` must be
 * the schedule group ARN and not to scope it to a specific schedule or a schedule-name prefix.
 * Region and account are the stack's (CloudFormation pseudo parameters unless the stack pins an env).
 * @example
 * new FunctionSchedule(this, 'Schedule', {
 *   target: fn, scheduleName: 'daily-report', group, expression: 'cron(30 2 * * ? *)',
 *   timeZone: 'Europe/Berlin', input: { job: 'daily-report' }, deadLetterQueue,
 * });
 */
export class FunctionSchedule extends Construct {
  /** The schedule. */
  public readonly schedule: Schedule;
  /** The role Scheduler assumes to invoke the target. */
  public readonly role: Role;

  constructor(scope: Construct, id: string, props: FunctionScheduleProps) {
    super(scope, id);
    this.role = schedulerRole(this, props.group, `EventBridge Scheduler: invoke ${props.scheduleName}`);
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.target.functionArn] }),
    );
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [props.deadLetterQueue.queueArn] }),
    );
    const retryAttempts = props.retryAttempts ?? DEFAULT_SCHEDULER_RETRY_ATTEMPTS;
    const maxEventAgeSeconds = (props.maxEventAge ?? DEFAULT_SCHEDULER_MAX_EVENT_AGE).toSeconds();
    if (!Number.isInteger(retryAttempts) || retryAttempts < 0 || retryAttempts > 185) {
      throw new CronfenceValidationError(
        `${this.node.path}: Scheduler retryAttempts = ${retryAttempts}: must be an integer 0-185`,
        this,
      );
    }
    if (maxEventAgeSeconds < 60 || maxEventAgeSeconds > 86_400) {
      throw new CronfenceValidationError(
        `${this.node.path}: Scheduler maxEventAge = ${maxEventAgeSeconds} s: must be 60-86400 s`,
        this,
      );
    }
    const target = new ExactLambdaTarget(props.target, this.role, {
      input: ScheduleTargetInput.fromObject(props.input),
      retryPolicy: {
        maximumRetryAttempts: retryAttempts,
        maximumEventAgeInSeconds: maxEventAgeSeconds,
      },
      deadLetterConfig: { arn: props.deadLetterQueue.queueArn },
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
