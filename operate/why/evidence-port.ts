/**
 * The port `why` reads AWS's evidence through: one `send` per service, the shape every AWS SDK v3 client
 * has. Production passes the SDK clients (aws-clients.ts); tests pass recorded responses of the shapes
 * the AWS API references give, keyed by the command's name.
 */

/** An AWS SDK v3 client as `why` uses it: `send(command)` resolving to the operation's output. */
export interface SendPort {
  send(command: object): Promise<unknown>;
}

/** The clients `why` reads from: EventBridge Scheduler, CloudWatch, SQS and Lambda. */
export interface EvidenceClients {
  readonly scheduler: SendPort;
  readonly cloudwatch: SendPort;
  readonly sqs: SendPort;
  readonly lambda: SendPort;
}

/** Where the job is deployed: what `why` asks AWS about. */
export interface DeployedTarget {
  /** The Scheduler schedule's name (the job's name, cdk/constructs/scheduled-job.ts). */
  readonly scheduleName: string;
  /** Its schedule group. @default found with ListSchedules (needs `scheduler:ListSchedules`) */
  readonly scheduleGroup?: string;
  /** The job's Lambda function name. */
  readonly functionName: string;
}

/** An error of an AWS read as `why` reports it: a missing permission names the IAM action. */
export function unreadable(
  source: string,
  action: string,
  err: unknown,
): {
  source: string;
  reason: string;
  action?: string;
} {
  const e = err as { name?: string; message?: string };
  const name = e?.name ?? 'Error';
  const denied = /AccessDenied|Unauthorized|AuthorizationError|NotAuthorized|Forbidden/i.test(name);
  return {
    source,
    reason: denied
      ? `not permitted: the operator needs ${action} (${name}: ${e?.message ?? ''})`
      : `${name}: ${e?.message ?? String(err)}`,
    ...(denied && { action }),
  };
}
