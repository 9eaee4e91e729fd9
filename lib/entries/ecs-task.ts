/**
 * `cronfence/ecs-task`: the container entry point of an ECS job (`node dist/lib/entries/ecs-task.js`).
 * It runs the occurrence its environment names once (lib/runtime/ecs-task-session.ts: `CRONFENCE_TABLE`,
 * `CRONFENCE_JOBS_MODULE`, `CRONFENCE_JOB`, `CRONFENCE_OCCURRENCE`, `CRONFENCE_STOP_TIMEOUT_SECONDS`),
 * prints one JSON line with its summary, and exits: 0 succeeded or a recorded skip, 1 a recorded problem,
 * 2 bad input (nothing written), 143 still busy when the stop timeout was nearly over.
 *
 * Signals (ECS stops a task with SIGTERM, then SIGKILL after the container's `stopTimeout`; a Fargate
 * Spot reclaim sends the same SIGTERM two minutes ahead): SIGTERM (and SIGINT, Ctrl-C locally) aborts
 * the body through `ctx.signal`; the run records `failed / terminated` and releases its lease. A hard
 * timer exits the process before the SIGKILL would come, whatever the body or DynamoDB are doing.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Clock, systemClock } from '../core/ports.js';
import { TerminatedError } from '../errors.js';
import {
  EcsExitCode,
  type EcsTaskOptions,
  type EcsTaskResult,
  runEcsTask,
  stopTimeoutMsOf,
} from '../runtime/ecs-task-session.js';

export {
  DEFAULT_STOP_TIMEOUT_SECONDS,
  EcsExitCode,
  EcsTaskEnv,
  type EcsTaskOptions,
  type EcsTaskResult,
  runEcsTask,
} from '../runtime/ecs-task-session.js';

/** Marker of the entry's result line on stdout (`{"cronfence":"ecs-task",...}`). */
export const RESULT_LINE_MARKER = 'ecs-task';

/** Time kept between the hard exit and the platform's SIGKILL, ms (a quarter of a short stop timeout). */
const EXIT_BEFORE_KILL_MS = 1_000;

/**
 * Run `fn` after `delayMs` of `clock`'s time (its own timers when it has them, as the lease keeper's
 * watchdog does), else on an unref'd process timer: the stop path counts the same time as the run.
 */
function afterMs(clock: Clock, fn: () => void, delayMs: number): void {
  if (clock.setTimer) {
    clock.setTimer(fn, delayMs);
    return;
  }
  setTimeout(fn, delayMs).unref();
}

function print(result: EcsTaskResult): void {
  process.stdout.write(`${JSON.stringify({ cronfence: RESULT_LINE_MARKER, ...result })}\n`);
}

/**
 * Run the task as the container's main process: install the signal handlers, run, print, exit.
 * @param options passed to {@link runEcsTask} (the stop signal is this function's).
 */
export async function main(options: Omit<EcsTaskOptions, 'stop'> = {}): Promise<never> {
  const env = options.env ?? process.env;
  let stopTimeoutMs: number;
  try {
    stopTimeoutMs = stopTimeoutMsOf(env);
  } catch (err) {
    print({
      exitCode: EcsExitCode.BadInput,
      error: { name: (err as Error).name, message: (err as Error).message },
    });
    process.exit(EcsExitCode.BadInput);
  }
  const clock = options.deps?.clock ?? systemClock;
  const controller = new AbortController();
  const onSignal = (signalName: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    controller.abort(new TerminatedError(signalName, stopTimeoutMs));
    afterMs(
      clock,
      () => {
        print({
          exitCode: EcsExitCode.StopTimeout,
          error: {
            name: 'TerminatedError',
            message: `still running ${stopTimeoutMs} ms after ${signalName}: exited before SIGKILL`,
          },
        });
        process.exit(EcsExitCode.StopTimeout);
      },
      Math.max(0, stopTimeoutMs - Math.min(EXIT_BEFORE_KILL_MS, stopTimeoutMs / 4)),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  let result: EcsTaskResult;
  try {
    result = await runEcsTask({ ...options, stop: controller.signal });
  } catch (err) {
    result = {
      exitCode: EcsExitCode.Failed,
      error: { name: (err as Error).name, message: (err as Error).message },
    };
  }
  print(result);
  // Exit now: a body that ignored its abort signal, a timer or a socket must not keep the task alive.
  process.exit(result.exitCode);
}

const invokedDirectly = (() => {
  try {
    return (
      process.argv[1] !== undefined &&
      realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
    );
  } catch {
    return false;
  }
})();
if (invokedDirectly) void main();
