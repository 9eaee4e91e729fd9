/**
 * How a backfill hands each manual event to the job: the deployed function (Lambda Invoke,
 * InvocationType `Event`: asynchronous, like Scheduler) or the job's handler in this process (`--local`).
 * Used by trigger and backfill alike.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { lambdaContext } from '../harness/local/scheduler-emulator.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { createDeps } from '../lib/runtime/deps.js';
import { summaryOfError } from '../lib/runtime/middleware.js';
import type { RunSummary } from '../lib/runtime/run-session.js';
import type { Connection } from './connection.js';
import { usage } from './input.js';

/** What one hand-off produced: accepted (async), a finished run (local), or an error. */
export interface InvokeResult {
  readonly ok: boolean;
  readonly summary?: RunSummary;
  readonly error?: string;
}

/** Sends one event; never throws. */
export type Invoker = ((event: Record<string, unknown>) => Promise<InvokeResult>) & {
  /** Where events go, for the summary. */
  readonly target: string;
  close(): void;
};

/**
 * An invoker on the deployed function. Checks first with a `DryRun` invocation (parameters and
 * permission, nothing runs) so a wrong name fails before any event is sent.
 * @throws InvalidArgumentError naming `functionName` when the function is missing or not invokable.
 */
export async function lambdaInvoker(conn: Connection, functionName: string): Promise<Invoker> {
  const lambda = new LambdaClient({ ...conn.clientConfig, maxAttempts: 3 });
  try {
    await lambda.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'DryRun' }));
  } catch (err) {
    lambda.destroy();
    const e = err as Error;
    throw usage(
      'functionName',
      functionName,
      `cannot be invoked (${e.name}: ${e.message}); pass \`functionName\` with the deployed function's name or ARN`,
    );
  }
  const send = async (event: Record<string, unknown>): Promise<InvokeResult> => {
    try {
      const out = await lambda.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(event)),
        }),
      );
      return out.StatusCode === 202 ? { ok: true } : { ok: false, error: `status ${out.StatusCode}` };
    } catch (err) {
      return { ok: false, error: `${(err as Error).name}: ${(err as Error).message}` };
    }
  };
  return Object.assign(send, { target: `lambda:${functionName}`, close: () => lambda.destroy() });
}

/**
 * An invoker running the job's handler here, on the connection's table (DynamoDB Local or AWS), with
 * a Lambda-like context whose deadline is the job's timeout. Application table names and the app's
 * other settings (the example's `PAYMENTS_URL`) come from the environment, else from `npm start`'s
 * state file, so a local backfill wires the handler exactly as `npm start` does.
 */
export function localInvoker(conn: Connection, handler: JobHandler): Invoker {
  for (const [envVar, value] of Object.entries({ ...conn.appEnv, ...conn.tables }))
    process.env[envVar] ??= value;
  const deps = createDeps({ doc: conn.doc, tableName: conn.tableName });
  const local = handler.withDeps(() => deps);
  const send = async (event: Record<string, unknown>): Promise<InvokeResult> => {
    try {
      const summary = await local(event, lambdaContext(handler.job.name, handler.job.timeoutSeconds));
      return { ok: true, summary };
    } catch (err) {
      const summary = summaryOfError(err);
      return {
        ok: Boolean(summary),
        ...(summary && { summary }),
        error: `${(err as Error).name}: ${(err as Error).message}`,
      };
    }
  };
  return Object.assign(send, { target: 'local handler', close: () => undefined });
}

/** Where a manual run's events go. */
export interface InvokeTarget {
  /** Run the job's handler in this process instead of invoking the deployed function. @default false */
  readonly local?: boolean;
  /** Invoke the deployed function in AWS although the records are read from DynamoDB Local. @default false */
  readonly invokeAws?: boolean;
  /** The deployed function's name or ARN. @default the stack's (`<stack>-<job>`), else `cronfence-<job>` */
  readonly functionName?: string;
}

/**
 * The refusal of a deployed run of an ECS job: it has no function to invoke (its runs are ECS tasks
 * Scheduler starts with RunTask), so nothing is sent rather than an Invoke of a function that does not
 * exist.
 */
function ecsRefusal(job: string, target: InvokeTarget) {
  return usage(
    target.functionName !== undefined ? 'functionName' : 'local',
    target.functionName ?? '(not given)',
    `job "${job}" runs on the ECS runtime (runtime: 'ecs'): it has no Lambda function to invoke, and this command does not start ECS tasks. Pass \`local: true\` to run its handler in this process against the same table, or start one task of its task definition with ECS RunTask (the container override CRONFENCE_OCCURRENCE = {"scheduledTime":"<slot ISO instant>","trigger":"manual","requestedBy":"<you>"}); the sweeper's catch-up starts missed occurrences the same way`,
  );
}

/**
 * Where the events go: this process (`local`) or the deployed function. Refuses to mix a local
 * table (DynamoDB Local) with invocations of a function in AWS unless `invokeAws` asks for it
 * (or `AWS_ENDPOINT_URL_LAMBDA` points the Lambda client at a local emulator). An ECS job runs only
 * `local`: its deployed runs are ECS tasks, not invocations.
 * @throws InvalidArgumentError naming `local` or `functionName` before anything is sent (also for an
 *   ECS job without `local`).
 */
export async function openInvoker(
  conn: Connection,
  handler: JobHandler,
  target: InvokeTarget,
): Promise<Invoker> {
  if (target.local) return localInvoker(conn, handler);
  if (handler.job.runtime === 'ecs') throw ecsRefusal(handler.job.name, target);
  if (conn.mode === 'local' && !target.invokeAws && !process.env.AWS_ENDPOINT_URL_LAMBDA) {
    throw usage(
      'local',
      '(not given)',
      `the run records are read from DynamoDB Local (${conn.endpoint}, from ${conn.source}) but the runs would be sent to the deployed function in AWS; pass \`local: true\` to run the handler here, \`region\`/\`profile\` to use AWS for both, or \`invokeAws: true\` to mix them on purpose`,
    );
  }
  return lambdaInvoker(conn, target.functionName ?? conn.functionName(handler.job.name));
}
