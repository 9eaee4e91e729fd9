/**
 * The stage drills and histories run on: virtual time, workers (each a Lambda execution environment
 * with its own clock, fault injector, pause plan and kill switch), deliveries of real handlers with a
 * Lambda-like context whose deadline is in virtual time, and a recorder for the timeline.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import type { PausePoint, RuntimeDeps } from '../../lib/runtime/deps.js';
import type { Observer } from '../../lib/runtime/events.js';
import { summaryOfError } from '../../lib/runtime/middleware.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import type { LambdaLikeContext } from '../../lib/runtime/run-summary.js';
import { killSwitch, PausePlan } from '../faults/pause-points.js';
import { FaultInjector } from '../faults/sdk-faults.js';
import { VirtualClock, VirtualTime } from '../faults/virtual-time.js';
import type { Delivery, DeliveryResult } from '../local/scheduler-emulator.js';
import { lambdaContext, schedulerPayload } from '../local/scheduler-emulator.js';
import { Recorder } from '../report/recording.js';

/** What a deps factory gets to build one worker's RuntimeDeps. */
export interface WorkerParts {
  readonly name: string;
  readonly clock: VirtualClock;
  readonly faults: FaultInjector;
  readonly pausePoint: PausePoint;
  readonly observe: Observer;
}

/** One Lambda execution environment. */
export interface Worker {
  readonly name: string;
  readonly clock: VirtualClock;
  readonly faults: FaultInjector;
  readonly pauses: PausePlan;
  readonly deps: RuntimeDeps;
  /** Kill the environment: no request, pause point or timer of it ever goes on. */
  kill(): void;
  /**
   * Freeze the environment for `ms` of true time (GC pause, VM freeze): none of its timers fire
   * meanwhile. With `clockFrozen` its clock also loses that time (it reads as if no time passed).
   */
  suspend(ms: number, options?: { clockFrozen?: boolean }): Promise<void>;
}

/** A delivery on the stage: which handler, on which worker. */
export interface StagedDelivery extends Delivery {
  readonly worker: Worker;
  readonly handler: JobHandler;
  /** The context the handler gets (an ECS task's). @default a Lambda context with the job's timeout in virtual time */
  readonly context?: () => LambdaLikeContext;
}

/** What a stage changes in what it runs (tests: every handler and worker traced). */
export interface StageOptions {
  /** Applied to the handler of every delivery. @default none */
  readonly handler?: (h: JobHandler) => JobHandler;
  /** Applied to every worker's deps (the sweeper's too). @default none */
  readonly deps?: (d: RuntimeDeps) => RuntimeDeps;
}

/** Virtual time, workers, deliveries and a recorder. */
export class Stage {
  readonly time: VirtualTime;
  readonly recorder: Recorder;
  readonly workers: Worker[] = [];
  readonly results: (DeliveryResult & { worker: string })[] = [];
  private outstanding = 0;

  /** @param startMs true time the stage starts at, epoch ms */
  constructor(
    startMs: number,
    private readonly depsFor: (parts: WorkerParts) => RuntimeDeps,
    private readonly options: StageOptions = {},
  ) {
    this.time = new VirtualTime(startMs);
    this.recorder = new Recorder(() => this.time.nowMs);
  }

  /** Add a worker whose clock is `skewMs` off true time (+ = fast). */
  worker(name: string, skewMs = 0): Worker {
    const clock = new VirtualClock(this.time, name, skewMs);
    const faults = new FaultInjector({
      sleep: (ms) => clock.sleep(ms),
      onRequest: this.recorder.onRequest(name),
      onResult: this.recorder.onResult(name),
    });
    const pauses = new PausePlan();
    const built = this.depsFor({
      name,
      clock,
      faults,
      pausePoint: pauses.pausePoint,
      observe: this.recorder.observer(name),
    });
    const deps = this.options.deps ? this.options.deps(built) : built;
    const stop = killSwitch({ faults, pauses, stopTimers: () => this.time.kill(name) });
    const w: Worker = {
      name,
      clock,
      faults,
      pauses,
      deps,
      kill: () => {
        this.recorder.process(name, 'kill', 'killed: no request, pause point or timer goes on');
        stop();
      },
      suspend: async (ms, options = {}) => {
        this.recorder.process(
          name,
          'suspend',
          `frozen ${ms / 1000} s${options.clockFrozen ? ' (clock frozen too)' : ''}`,
        );
        this.time.suspend(name, this.time.nowMs + ms);
        if (options.clockFrozen) clock.skewMs -= ms;
        await clock.sleep(ms);
      },
    };
    if (skewMs !== 0) this.recorder.process(name, 'skew', `clock ${skewMs > 0 ? '+' : ''}${skewMs / 1000} s`);
    this.workers.push(w);
    return w;
  }

  /**
   * Deliver `d` after `delayMs` of true time; resolves with the result when the handler settles.
   * @param pick choose the worker at delivery time (a killed environment is replaced). @default d.worker
   */
  deliver(
    d: StagedDelivery,
    delayMs = 0,
    onSummary?: (s: RunSummary) => void,
    pick?: () => Worker,
  ): Promise<DeliveryResult> {
    this.outstanding++;
    return new Promise((resolve) => {
      this.time.schedule(delayMs, () => {
        if (pick) d = { ...d, worker: pick() };
        if (this.options.handler) d = { ...d, handler: this.options.handler(d.handler) };
        this.recorder.process(
          d.worker.name,
          'deliver',
          `${d.label} ${d.job} ${new Date(d.scheduledTimeMs).toISOString()}`,
        );
        void invoke(this.time, d, onSummary).then((r) => {
          this.outstanding--;
          this.results.push({ ...r, worker: d.worker.name });
          resolve(r);
        });
      });
    });
  }

  /**
   * Run virtual time until no timer is left: every delivery settled (killed runs never do) and every
   * paused body woke up, so what a late body does after its run finished is observed too.
   */
  async run(maxSteps = 200_000): Promise<void> {
    await this.time.run({
      busy: () => this.workers.some((w) => w.faults.busy) || this.alsoBusy.some((b) => b()),
      maxSteps,
    });
  }

  /** Other I/O virtual time must wait for (e.g. HTTP calls to a provider). */
  readonly alsoBusy: (() => boolean)[] = [];

  /** Deliveries still running (killed or stuck). */
  get unsettled(): number {
    return this.outstanding;
  }
}

/** A Lambda context whose deadline is `timeoutSeconds` of virtual time from now. */
export function virtualLambdaContext(
  time: VirtualTime,
  functionName: string,
  timeoutSeconds: number,
  awsRequestId: string,
): Context {
  return lambdaContext(functionName, timeoutSeconds, awsRequestId, () => time.nowMs, 'drill');
}

/** Invoke one delivery on its worker; never throws (a thrown error is part of the result). */
export async function invoke(
  time: VirtualTime,
  d: StagedDelivery,
  onSummary?: (s: RunSummary) => void,
): Promise<DeliveryResult> {
  const event = { ...schedulerPayload(d.job, d.scheduledTimeMs, d.attemptNumber ?? 1), ...d.extra };
  const handler = d.handler.withDeps(() => d.worker.deps, onSummary);
  const context =
    (d.context?.() as Context | undefined) ??
    virtualLambdaContext(time, d.job, d.handler.job.timeoutSeconds, d.awsRequestId ?? randomUUID());
  try {
    return { delivery: d, summary: await handler(event, context) };
  } catch (err) {
    const summary = summaryOfError(err);
    return { delivery: d, error: err as Error, ...(summary && { summary }) };
  }
}
