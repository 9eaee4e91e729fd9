/**
 * The explorer's model of how AWS delivers a scheduled occurrence (AWS docs: "Asynchronous
 * invocation" for Lambda, "Configuring a retry policy" for EventBridge Scheduler), never kinder:
 * - Scheduler hands the occurrence to Lambda's queue; a throttled event waits there (the copy's delay).
 * - Lambda retries an event ONLY after a function error or a timeout (a dead environment is a
 *   timeout), at most twice (about 1 and 2 minutes later), and never past the event's maximum age;
 *   an event that still fails goes to the on-failure destination (the dead-letter queue, alarmed).
 * - An invocation is ENDED at its timeout: the environment is killed there (none of its promises or
 *   timers ever resume) and Lambda retries the event on a new environment.
 * - A returned environment is frozen until the next invocation of THAT environment, or forever: a
 *   branch that outlived the handler resumes only then (shape `freeze-until-next`).
 * - Late copies: Scheduler retries a failed hand-off for up to 24 h (its maximum event age), then the
 *   event waits in Lambda's queue for up to 6 h (Lambda's), counted from the hand-off (shape `late-6h`).
 * - Duplicates of an event may arrive at any time (same request id).
 * - The sweeper runs on its own schedule (every 15 minutes) and its catch-up invocations are async
 *   events too.
 * Nothing ends a history with a free claim: what the model and the sweeper do is all there is.
 */

import type { JobHandler } from '../../../lib/runtime/define-job.js';
import type { DeliveryResult } from '../../local/scheduler-emulator.js';
import type { Stage, Worker } from '../stage.js';

/** Lambda's retries of a failed async event (the function's MaximumRetryAttempts, default and max 2). */
export const LAMBDA_RETRIES = 2;
/** Delay before Lambda's retry `n` (1-based), ms: about one minute, then two. */
export const LAMBDA_RETRY_DELAYS_MS = [60_000, 120_000] as const;
/** The event's maximum age, ms (MaximumEventAgeInSeconds; the CDK default of the job function). */
export const LAMBDA_MAX_EVENT_AGE_MS = 6 * 3_600_000;
/** The sweeper's period, ms (`rate(15 minutes)` in the CDK stack). */
export const SWEEP_PERIOD_MS = 15 * 60_000;

/** Scheduler's maximum event age, ms (a hand-off retried longer goes to the schedule's DLQ). */
export const SCHEDULER_MAX_EVENT_AGE_MS = 24 * 3_600_000;

/** An event that exhausted its retries (or aged out): in the dead-letter queue, counted by its alarm. */
export interface DeadLetter {
  readonly job: string;
  readonly scheduledTimeMs: number;
  readonly payload: Record<string, unknown>;
  readonly why: string;
  /** True time it was dead-lettered, epoch ms. */
  readonly atMs: number;
}

/** Options of the {@link LambdaModel}. */
export interface LambdaModelOptions {
  /** Freeze an environment when its last invocation returns, until its next one (or forever). @default false */
  readonly freezeAfterReturn?: boolean;
}

/** One async event as Lambda sees it. */
export interface LambdaEvent {
  /** The function's code at invocation time (a redeploy between attempts changes it). */
  readonly handler: () => JobHandler;
  readonly scheduledTimeMs: number;
  readonly requestId: string;
  readonly label: string;
  readonly extra?: Record<string, unknown>;
  /** The environment that runs it (a killed one is replaced). */
  readonly worker: () => Worker;
}

/** Lambda's async delivery of events onto a stage: retries on error or timeout only. */
export class LambdaModel {
  readonly deadLetters: DeadLetter[] = [];
  readonly retries: { label: string; attempt: number; why: string }[] = [];
  /** Invocations ended at their timeout (their environment killed). */
  readonly timeouts: { label: string; worker: string }[] = [];
  /** Environments frozen after a return and thawed by their next invocation. */
  thawed = 0;
  /** True time the last invocation started or ended, epoch ms. */
  lastActivityMs = Number.NEGATIVE_INFINITY;
  private pending = 0;
  private readonly replaced = new Map<string, Worker>();
  private readonly active = new Map<string, number>();
  private readonly arrivals = new Set<number>();

  constructor(
    private readonly stage: Stage,
    private readonly options: LambdaModelOptions = {},
  ) {}

  /** The environment that now stands for `w` (a killed one is replaced by a fresh one). */
  live(w: Worker): Worker {
    let cur = w;
    for (let next = this.replaced.get(cur.name); next; next = this.replaced.get(cur.name)) cur = next;
    return cur;
  }

  /** The earliest true time an event still waiting (in Scheduler or Lambda's queue) arrives, if any. */
  nextArrivalMs(): number | undefined {
    return this.arrivals.size ? Math.min(...this.arrivals) : undefined;
  }

  /** True when every event still in Lambda's hands is waiting to arrive (none is running). */
  get onlyWaiting(): boolean {
    return this.arrivals.size === this.pending;
  }

  /** Events still in Lambda's hands (not yet succeeded, failed for good or dead-lettered). */
  get inFlight(): number {
    return this.pending;
  }

  /**
   * Queue `e`, first delivered after `delayMs` in Lambda's queue (counted against its maximum age), after
   * `handOffDelayMs` of Scheduler retrying the hand-off (not counted; at most Scheduler's 24 h).
   * Resolves when Lambda is done with it.
   */
  async send(e: LambdaEvent, delayMs: number, handOffDelayMs = 0): Promise<void> {
    this.pending++;
    try {
      if (handOffDelayMs > 0) {
        if (handOffDelayMs > SCHEDULER_MAX_EVENT_AGE_MS) {
          this.deadLetters.push(this.letter(e, 'Scheduler maximum event age reached'));
          return;
        }
        await this.wait(handOffDelayMs);
      }
      await this.deliverQueued(e, delayMs);
    } finally {
      this.pending--;
    }
  }

  private async wait(ms: number): Promise<void> {
    const at = this.stage.time.nowMs + ms;
    this.arrivals.add(at);
    try {
      await this.stage.time.sleep(ms);
    } finally {
      this.arrivals.delete(at);
    }
  }

  private async deliverQueued(e: LambdaEvent, delayMs: number): Promise<void> {
    const queuedAtMs = this.stage.time.nowMs;
    let wait = delayMs;
    for (let attempt = 0; attempt <= LAMBDA_RETRIES; attempt++) {
      if (this.stage.time.nowMs + wait - queuedAtMs > LAMBDA_MAX_EVENT_AGE_MS) {
        this.deadLetters.push(this.letter(e, 'maximum event age reached'));
        return;
      }
      const why = await this.attempt(e, wait, attempt);
      if (why === undefined) return;
      if (attempt === LAMBDA_RETRIES) {
        this.deadLetters.push(this.letter(e, why));
        return;
      }
      this.retries.push({ label: e.label, attempt: attempt + 1, why });
      wait = LAMBDA_RETRY_DELAYS_MS[attempt] ?? 120_000;
    }
  }

  /** One invocation: undefined when it returned, else why Lambda will retry (error or timeout). */
  private async attempt(e: LambdaEvent, delayMs: number, attempt: number): Promise<string | undefined> {
    await this.wait(delayMs);
    const handler = e.handler();
    const timeoutMs = handler.job.timeoutSeconds * 1000;
    const worker = this.live(e.worker());
    const time = this.stage.time;
    if (time.isFrozen(worker.name)) {
      time.thaw(worker.name);
      this.thawed++;
    }
    this.active.set(worker.name, (this.active.get(worker.name) ?? 0) + 1);
    this.lastActivityMs = time.nowMs;
    let settled = false;
    const delivered = this.stage.deliver(
      {
        worker,
        handler,
        job: handler.job.name,
        scheduledTimeMs: e.scheduledTimeMs,
        awsRequestId: e.requestId,
        label: attempt === 0 ? e.label : `${e.label} (Lambda retry ${attempt})`,
        ...(e.extra && { extra: e.extra }),
      },
      0,
      undefined,
      () => worker,
    );
    void delivered.then(() => {
      settled = true;
    });
    const timedOut = time.sleep(timeoutMs).then(() => 'timeout' as const);
    const r = await Promise.race([delivered, timedOut]);
    this.lastActivityMs = time.nowMs;
    this.active.set(worker.name, (this.active.get(worker.name) ?? 1) - 1);
    if (r === 'timeout') {
      if (!settled) this.endAtTimeout(worker, e.label);
      return 'timeout (environment died or hung)';
    }
    // Returned: Lambda freezes the environment until its next invocation (or forever).
    if (this.options.freezeAfterReturn && (this.active.get(worker.name) ?? 0) === 0) time.freeze(worker.name);
    return (r as DeliveryResult).error ? `function error ${(r as DeliveryResult).error?.name}` : undefined;
  }

  /** The invocation reached its timeout: Lambda ends it (kills the environment) and replaces the environment. */
  private endAtTimeout(worker: Worker, label: string): void {
    if (this.replaced.has(worker.name)) return;
    this.timeouts.push({ label, worker: worker.name });
    worker.kill();
    this.replaced.set(worker.name, this.stage.worker(`${worker.name}+`, worker.clock.skewMs));
  }

  private letter(e: LambdaEvent, why: string): DeadLetter {
    return {
      job: e.handler().job.name,
      scheduledTimeMs: e.scheduledTimeMs,
      payload: { ...e.extra },
      why,
      atMs: this.stage.time.nowMs,
    };
  }
}
