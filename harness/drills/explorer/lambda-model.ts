/**
 * The explorer's model of how AWS delivers a scheduled occurrence (AWS docs: "Asynchronous
 * invocation" for Lambda, "Configuring a retry policy" for EventBridge Scheduler), never kinder:
 * - Scheduler hands the occurrence to Lambda's queue; a throttled event waits there (the copy's delay).
 * - Lambda retries an event ONLY after a function error or a timeout (a dead environment is a
 *   timeout), at most twice (about 1 and 2 minutes later), and never past the event's maximum age;
 *   an event that still fails goes to the on-failure destination (the dead-letter queue, alarmed).
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

/** An event that exhausted its retries (or aged out): in the dead-letter queue, counted by its alarm. */
export interface DeadLetter {
  readonly job: string;
  readonly scheduledTimeMs: number;
  readonly payload: Record<string, unknown>;
  readonly why: string;
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
  private pending = 0;

  constructor(private readonly stage: Stage) {}

  /** Events still in Lambda's hands (not yet succeeded, failed for good or dead-lettered). */
  get inFlight(): number {
    return this.pending;
  }

  /** Queue `e`, first delivered after `delayMs`. Resolves when Lambda is done with it. */
  async send(e: LambdaEvent, delayMs: number): Promise<void> {
    this.pending++;
    const queuedAtMs = this.stage.time.nowMs;
    try {
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
    } finally {
      this.pending--;
    }
  }

  /** One invocation: undefined when it returned, else why Lambda will retry (error or timeout). */
  private async attempt(e: LambdaEvent, delayMs: number, attempt: number): Promise<string | undefined> {
    await this.stage.time.sleep(delayMs);
    const handler = e.handler();
    const timeoutMs = handler.job.timeoutSeconds * 1000;
    const delivered = this.stage.deliver(
      {
        worker: e.worker(),
        handler,
        job: handler.job.name,
        scheduledTimeMs: e.scheduledTimeMs,
        awsRequestId: e.requestId,
        label: attempt === 0 ? e.label : `${e.label} (Lambda retry ${attempt})`,
        ...(e.extra && { extra: e.extra }),
      },
      0,
      undefined,
      e.worker,
    );
    const timedOut = this.stage.time.sleep(timeoutMs + 1_000).then(() => 'timeout' as const);
    const r = await Promise.race([delivered, timedOut]);
    if (r === 'timeout') return 'timeout (environment died or hung)';
    return (r as DeliveryResult).error ? `function error ${(r as DeliveryResult).error?.name}` : undefined;
  }

  private letter(e: LambdaEvent, why: string): DeadLetter {
    return {
      job: e.handler().job.name,
      scheduledTimeMs: e.scheduledTimeMs,
      payload: { ...e.extra },
      why,
    };
  }
}
