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

/** A stop as drawn: `nearEndMs` (when set) places the SIGTERM that far from the end of the body. */
interface DrawnStop extends EcsStop {
  readonly nearEndMs: number | null;
}

/** The `ecs-task` shape as drawn, before {@link resolveEcsTask} places its stops and clocks. */
export interface DrawnEcsTask {
  readonly stopTimeoutMs: number;
  readonly stops: readonly DrawnStop[];
  /** Skew the history's clocks to the edges of the budget (half of it fast, half slow). */
  readonly edgeClocks: boolean;
}

/**
 * The arbitrary of the `ecs-task` shape (absent in about a third of the listed histories). Weighted
 * towards the stop path's hardest case: the shortest stop timeout ECS allows (2 s), a SIGTERM within
 * a few hundred ms of the body's last write, and clocks at the edges of the skew budget.
 */
export const ecsTaskArbitrary: fc.Arbitrary<DrawnEcsTask | undefined> = fc.option(
  fc.record({
    stopTimeoutMs: fc.oneof(
      fc.constant(30_000),
      fc.constant(2_000),
      fc.integer({ min: 2_000, max: 5_000 }),
      fc.integer({ min: 2_000, max: 120_000 }),
    ),
    stops: fc.array(
      fc.record({
        delivery: fc.nat({ max: 40 }),
        afterMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 5_000, max: 200_000 })),
        nearEndMs: fc.option(fc.integer({ min: -400, max: 400 }), { freq: 2 }),
        spot: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
    edgeClocks: fc.boolean(),
  }),
  { nil: undefined, freq: 3 },
);

/**
 * The shape a drawn `ecs-task` becomes in a history: each stop near the body's end moved to
 * `workMs + nearEndMs` after its task's start, and the clocks (when `edgeClocks`) at plus and minus
 * `halfBudgetMs` alternately, so two workers disagree by the whole budget.
 */
export function resolveEcsTask(
  drawn: DrawnEcsTask,
  workMs: number,
  skewsMs: readonly number[],
  halfBudgetMs: number,
): { ecsTask: EcsTaskShape; skewsMs: number[] } {
  return {
    ecsTask: {
      stopTimeoutMs: drawn.stopTimeoutMs,
      stops: drawn.stops.map(({ nearEndMs, ...s }) => ({
        ...s,
        afterMs: nearEndMs === null ? s.afterMs : Math.max(0, workMs + nearEndMs),
      })),
    },
    skewsMs: drawn.edgeClocks
      ? skewsMs.map((_, i) => (i % 2 === 0 ? -halfBudgetMs : halfBudgetMs))
      : [...skewsMs],
  };
}

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

/**
 * The hard cases of the stop path an `ecs-task` history covers, for the explorer's report: the
 * shortest stop timeout (2 s), a SIGTERM within 400 ms of the body's end, clocks at the budget's edges.
 */
export function ecsTaskCases(spec: {
  readonly workMs: number;
  readonly skewsMs: readonly number[];
  readonly shapes?: { readonly ecsTask?: EcsTaskShape };
}): string[] {
  const shape = spec.shapes?.ecsTask;
  if (!shape) return [];
  const edge = spec.skewsMs.length > 1 && spec.skewsMs.every((s, i) => s === spec.skewsMs[i % 2] && s !== 0);
  const cases: [string, boolean][] = [
    ['ecs-task: 2 s stop timeout', shape.stopTimeoutMs === 2_000],
    ['ecs-task: SIGTERM at the body end', shape.stops.some((s) => Math.abs(s.afterMs - spec.workMs) <= 400)],
    ['ecs-task: clocks at the budget edges', edge],
  ];
  return cases.filter(([, on]) => on).map(([name]) => name);
}
