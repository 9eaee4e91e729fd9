/**
 * The `ecs-task` shape: the explorer's jobs run as ECS Fargate tasks, as the ECS docs describe them.
 * - no platform timeout: the jobs are `runtime: 'ecs'` with a 6 h deadline the runtime enforces itself
 *   (lib/runtime/ecs-task-session.ts `taskContext`), so a paused or partitioned task keeps running;
 * - duplicate tasks: Scheduler may start two tasks for one occurrence (the history's concurrent copies);
 * - a stop: ECS sends SIGTERM (the run's stop signal aborts with a TerminatedError) and SIGKILL
 *   `stopTimeout` (2-120 s) later, when the task is killed wherever it is (its timers and requests
 *   never go on); a Fargate Spot reclaim is the same SIGTERM with the 2-minute warning, killed at
 *   `min(stopTimeout, 120 s)` at the latest;
 * - tasks that outlive a partition: the history's `partition` faults, with no timeout to end them.
 * Each stopped task runs in its own process (worker), so its kill ends only it.
 */
import fc from 'fast-check';
import { TerminatedError } from '../../../lib/errors.js';
import { taskContext } from '../../../lib/runtime/ecs-task-session.js';
import type { LambdaLikeContext } from '../../../lib/runtime/run-summary.js';
import type { Stage, Worker } from '../stage.js';

/** The job deadline of the `ecs-task` shape's jobs, in seconds (no platform ends them earlier). */
export const ECS_TASK_TIMEOUT_SECONDS = 6 * 3600;

/** Fargate Spot's interruption warning, ms: the task is reclaimed this long after its SIGTERM at the latest. */
export const SPOT_WARNING_MS = 120_000;

/** One stop of a task. */
export interface EcsStop {
  /** The delivery (index mod the count) whose task is stopped. */
  readonly delivery: number;
  /** SIGTERM this long after the task started, ms. */
  readonly afterMs: number;
  /** A Fargate Spot reclaim (killed at min(stopTimeout, 2 min)) rather than a stop by ECS. */
  readonly spot: boolean;
}

/** The `ecs-task` shape of one history. */
export interface EcsTaskShape {
  /** The container's stopTimeout, ms (ECS: 2-120 s). */
  readonly stopTimeoutMs: number;
  readonly stops: readonly EcsStop[];
}

/** The arbitrary of {@link EcsTaskShape} (absent in most histories). */
export const ecsTaskArbitrary: fc.Arbitrary<EcsTaskShape | undefined> = fc.option(
  fc.record({
    stopTimeoutMs: fc.oneof(fc.constant(30_000), fc.integer({ min: 2_000, max: 120_000 })),
    stops: fc.array(
      fc.record({
        delivery: fc.nat({ max: 40 }),
        afterMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 5_000, max: 200_000 })),
        spot: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  }),
  { nil: undefined, freq: 3 },
);

/** The job fields that make an explorer job an ECS job. */
export const ECS_JOB_FIELDS = { runtime: 'ecs', timeoutSeconds: ECS_TASK_TIMEOUT_SECONDS } as const;

/**
 * How delivery `n` of an `ecs-task` history runs: its own task context (the job's deadline, the stop
 * signal) and, when it is stopped, its own worker with SIGTERM and SIGKILL scheduled in true time.
 * @param atMs - when the delivery starts, ms after the stage's start.
 * @returns the worker to run on and the context factory for the delivery.
 */
export function ecsTask(
  shape: EcsTaskShape,
  n: number,
  count: number,
  stage: Stage,
  worker: Worker,
  atMs: number,
  settled: () => boolean,
): { worker: Worker; context: () => LambdaLikeContext } {
  const stops = shape.stops.filter((s) => s.delivery % count === n);
  const stop = new AbortController();
  const first = stops.sort((a, b) => a.afterMs - b.afterMs)[0];
  const own = first ? stage.worker(`task-${n}`, worker.clock.skewMs) : worker;
  if (first) {
    const killAfterMs = first.spot ? Math.min(shape.stopTimeoutMs, SPOT_WARNING_MS) : shape.stopTimeoutMs;
    stage.time.schedule(atMs + first.afterMs, () => {
      if (settled()) return;
      stage.recorder.process(
        own.name,
        'sigterm',
        `${first.spot ? 'Spot reclaim: ' : ''}SIGTERM, SIGKILL in ${killAfterMs / 1000} s`,
      );
      stop.abort(new TerminatedError('SIGTERM', killAfterMs));
    });
    stage.time.schedule(atMs + first.afterMs + killAfterMs, () => {
      if (!settled()) own.kill();
    });
  }
  return {
    worker: own,
    context: () =>
      taskContext(own.clock, ECS_TASK_TIMEOUT_SECONDS * 1000, shape.stopTimeoutMs, `task-${n}`, stop.signal),
  };
}
