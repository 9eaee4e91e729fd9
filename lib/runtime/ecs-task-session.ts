/**
 * One ECS task's run (docs/design.md "Runtimes"): read the occurrence from the environment, then claim,
 * run, record and release through the same run session a Lambda invocation uses. What Lambda gives a
 * handler, the task makes itself: a deadline (`timeoutSeconds`, ECS has no platform timeout) enforced by
 * the lease keeper's watchdog, a stop signal (SIGTERM) that aborts the body and shortens the deadline to
 * the container's `stopTimeout`, and an exit status ECS and Scheduler read.
 */
import { type Clock, systemClock } from '../core/ports.js';
import { ConfigurationError, InvalidEventError } from '../errors.js';
import type { JobHandler } from './define-job.js';
import type { RuntimeDeps } from './deps.js';
import { invocationPayload, OCCURRENCE_ENV, parseOccurrence } from './ecs-occurrence.js';
import { findJob, importJobs } from './jobs-module.js';
import { summaryOfError } from './middleware.js';
import { errorSummary, type LambdaLikeContext, type RunSummary } from './run-summary.js';

/** The environment variables of an ECS job's task (set by the CDK construct; the occurrence by Scheduler). */
export const EcsTaskEnv = {
  /** The library table's name. */
  Table: 'CRONFENCE_TABLE',
  /** Path or package specifier of the jobs module (exports `jobs`, `handlers` or a default list). */
  JobsModule: 'CRONFENCE_JOBS_MODULE',
  /** The job's name (or its `id`). */
  Job: 'CRONFENCE_JOB',
  /** The occurrence JSON (lib/runtime/ecs-occurrence.ts). */
  Occurrence: OCCURRENCE_ENV,
  /** The container's `stopTimeout`, in seconds (2-120). @default 30, the ECS default */
  StopTimeoutSeconds: 'CRONFENCE_STOP_TIMEOUT_SECONDS',
} as const;

/** The ECS default `stopTimeout` of a container, in seconds (ECS task definition parameters). */
export const DEFAULT_STOP_TIMEOUT_SECONDS = 30;

/** Exit statuses of the task entry. */
export const EcsExitCode = {
  /** The run succeeded, or recorded a skip (a duplicate task: `skipped / lease-held`). */
  Done: 0,
  /** The run recorded a problem (`failed`, `stale`, ...), or failed before it could record one. */
  Failed: 1,
  /** Bad configuration or occurrence: nothing was written. */
  BadInput: 2,
  /** Still not finished when the stop timeout was nearly over: exited before SIGKILL (128 + SIGTERM). */
  StopTimeout: 143,
} as const;
/** Union of {@link EcsExitCode} values. */
export type EcsExitCode = (typeof EcsExitCode)[keyof typeof EcsExitCode];

/**
 * Time kept after a stop request for the record and the release, ms: the body's in-flight writes are
 * waited for until `stopTimeout` minus this. Half the stop timeout when that is shorter.
 */
export const STOP_RESERVE_MS = 5_000;

/** Options of {@link runEcsTask}. */
export interface EcsTaskOptions {
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The jobs to find `CRONFENCE_JOB` in. @default the handlers of the module `CRONFENCE_JOBS_MODULE` names */
  readonly handlers?: readonly JobHandler[];
  /** @default the handler's own: the table in `CRONFENCE_TABLE`, with structured logs and EMF metrics */
  readonly deps?: RuntimeDeps;
  /** Aborted (reason: a TerminatedError) when the platform asks the task to stop. @default never */
  readonly stop?: AbortSignal;
  /**
   * Recorded as the run's request id. @default the last path segment of the task metadata endpoint ECS
   * sets in every container (`ECS_CONTAINER_METADATA_URI_V4`, unique per task and container), else `ecs-<pid>`
   */
  readonly taskId?: string;
}

/** What a task's run came to. */
export interface EcsTaskResult {
  readonly exitCode: EcsExitCode;
  /** The run's summary, when it recorded one. */
  readonly summary?: RunSummary;
  /** The error that ended it, when one did. */
  readonly error?: { readonly name: string; readonly message: string };
}

/**
 * The container's stop timeout from its variable, ms.
 * @throws ConfigurationError naming `CRONFENCE_STOP_TIMEOUT_SECONDS` when it is not an integer 2-120 (the
 *   ECS range of `stopTimeout`).
 */
export function stopTimeoutMsOf(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[EcsTaskEnv.StopTimeoutSeconds];
  if (raw === undefined || raw === '') return DEFAULT_STOP_TIMEOUT_SECONDS * 1000;
  const s = Number(raw);
  if (!/^\d+$/.test(raw) || s < 2 || s > 120)
    throw new ConfigurationError(
      EcsTaskEnv.StopTimeoutSeconds,
      raw,
      'must be an integer 2-120 (seconds, the ECS stopTimeout range)',
    );
  return s * 1000;
}

/**
 * The task's stand-in for a Lambda context: time left until its own deadline (`timeoutSeconds` after the
 * start), a deadline a stop request moves up to `stopTimeout` minus {@link STOP_RESERVE_MS}, and the stop
 * signal the run session aborts the body on.
 */
export function taskContext(
  clock: Clock,
  timeoutMs: number,
  stopTimeoutMs: number,
  taskId: string,
  stop: AbortSignal | undefined,
): LambdaLikeContext {
  let deadlineMs = clock.now() + timeoutMs;
  const onStop = () => {
    const reserve = Math.min(STOP_RESERVE_MS, stopTimeoutMs / 2);
    deadlineMs = Math.min(deadlineMs, clock.now() + stopTimeoutMs - reserve);
  };
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  return {
    awsRequestId: taskId,
    getRemainingTimeInMillis: () => deadlineMs - clock.now(),
    ...(stop && { stopSignal: stop }),
  };
}

/** The task's id for its run records, from the metadata endpoint's URI ECS sets (no request made). */
function taskIdOf(env: Readonly<Record<string, string | undefined>>): string {
  const uri = env.ECS_CONTAINER_METADATA_URI_V4;
  const last = uri
    ?.split('/')
    .filter((p) => p !== '')
    .pop();
  return last ? `ecs-${last}`.slice(0, 256) : `ecs-${process.pid}`;
}

function exitCodeOf(summary: RunSummary): EcsExitCode {
  return summary.outcome === 'succeeded' || summary.outcome === 'skipped'
    ? EcsExitCode.Done
    : EcsExitCode.Failed;
}

/**
 * Run the occurrence the environment names, once: claim, run the body, record, release.
 * @returns the exit status and the run's summary (0: succeeded or a recorded skip; 1: a problem
 *   recorded, or a failure before any record; 2: bad configuration or occurrence, nothing written).
 * @example const { exitCode } = await runEcsTask(); process.exitCode = exitCode;
 */
export async function runEcsTask(options: EcsTaskOptions = {}): Promise<EcsTaskResult> {
  const env = options.env ?? process.env;
  let handler: JobHandler;
  let context: LambdaLikeContext;
  let event: Record<string, unknown>;
  try {
    const name = required(env, EcsTaskEnv.Job);
    const handlers =
      options.handlers ?? (await importJobs(required(env, EcsTaskEnv.JobsModule), EcsTaskEnv.JobsModule));
    handler = findJob(handlers, name, EcsTaskEnv.Job, env[EcsTaskEnv.JobsModule] ?? 'the given handlers');
    if (handler.job.runtime !== 'ecs')
      throw new ConfigurationError(
        EcsTaskEnv.Job,
        name,
        `is a ${handler.job.runtime} job: only a job defined with runtime: 'ecs' runs as an ECS task (its timeoutSeconds is then the task's own deadline)`,
      );
    const occurrence = parseOccurrence(handler.job.name, env[EcsTaskEnv.Occurrence]);
    if (!options.deps) required(env, EcsTaskEnv.Table);
    const clock = options.deps?.clock ?? systemClock;
    context = taskContext(
      clock,
      handler.job.timeoutSeconds * 1000,
      stopTimeoutMsOf(env),
      options.taskId ?? taskIdOf(env),
      options.stop,
    );
    // The run session parses the payload again, as a Lambda's: the same rules decide its slot.
    event = invocationPayload(occurrence);
  } catch (err) {
    if (err instanceof ConfigurationError || err instanceof InvalidEventError)
      return { exitCode: EcsExitCode.BadInput, error: errorSummary(err) };
    throw err;
  }
  const run = options.deps ? handler.withDeps(() => options.deps as RuntimeDeps) : handler;
  try {
    const summary = await run(event, context as never);
    return { exitCode: exitCodeOf(summary), summary };
  } catch (err) {
    const summary = summaryOfError(err);
    const code = summary ? exitCodeOf(summary) : EcsExitCode.Failed;
    return {
      exitCode: err instanceof InvalidEventError && !summary ? EcsExitCode.BadInput : code,
      ...(summary && { summary }),
      error: errorSummary(err),
    };
  }
}

function required(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new ConfigurationError(name, value, 'is not set (the ECS job construct sets it on the container)');
  return value;
}
