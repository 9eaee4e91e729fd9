/**
 * An emulator of EventBridge Scheduler's delivery to Lambda, for `npm start`, tests and drills: it
 * invokes the real job handlers in-process with the exact payload a cronfence schedule's Input
 * template produces and a Lambda-like context, including the duplicates the real stack produces
 * (Lambda's at-least-once async delivery: concurrent copies with the same request id; Scheduler
 * retries: later copies with attempt number + 1).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { summaryOfError } from '../../lib/runtime/middleware.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';

/** One delivery of one slot to one job's function. */
export interface Delivery {
  readonly job: string;
  /** Scheduler's `<aws.scheduler.scheduled-time>`, epoch ms. */
  readonly scheduledTimeMs: number;
  /** `<aws.scheduler.attempt-number>`. @default 1 */
  readonly attemptNumber?: number;
  /** Lambda request id; copies of one async event share it. @default a new UUID */
  readonly awsRequestId?: string;
  /** Extra payload fields (manual/catch-up triggers, shard, nominal slot). */
  readonly extra?: Record<string, unknown>;
  /** What the emulator meant by this copy, for the printout. */
  readonly label: string;
}

/** What happened to one delivery. */
export interface DeliveryResult {
  readonly delivery: Delivery;
  readonly summary?: RunSummary;
  /** The error the handler threw (failed runs rethrow so Lambda would retry). */
  readonly error?: Error;
}

/** The payload EventBridge Scheduler sends through a cronfence schedule's Input template. */
export function schedulerPayload(
  job: string,
  scheduledTimeMs: number,
  attemptNumber = 1,
  region = 'us-east-1',
): Record<string, unknown> {
  return {
    job,
    scheduledTime: `${new Date(scheduledTimeMs).toISOString().slice(0, 19)}Z`,
    scheduleArn: `arn:aws:scheduler:${region}:000000000000:schedule/cronfence/${job}`,
    executionId: randomUUID(),
    attemptNumber: String(attemptNumber),
  };
}

/**
 * A Lambda-like context whose deadline is `timeoutSeconds` from now.
 * @param nowMs the clock the deadline runs on. @default the system clock
 */
export function lambdaContext(
  functionName: string,
  timeoutSeconds: number,
  awsRequestId: string = randomUUID(),
  nowMs: () => number = Date.now,
  logStreamName = 'local',
): Context {
  const deadlineMs = nowMs() + timeoutSeconds * 1000;
  return {
    awsRequestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadlineMs - nowMs()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Invoke one delivery on its handler; never throws (a thrown error is part of the result). */
export async function deliver(handler: JobHandler, d: Delivery): Promise<DeliveryResult> {
  const event = { ...schedulerPayload(d.job, d.scheduledTimeMs, d.attemptNumber ?? 1), ...d.extra };
  const context = lambdaContext(d.job, handler.job.timeoutSeconds, d.awsRequestId);
  try {
    return { delivery: d, summary: await handler(event, context) };
  } catch (err) {
    const summary = summaryOfError(err);
    return { delivery: d, error: err as Error, ...(summary && { summary }) };
  }
}

/**
 * The deliveries of one occurrence as the real stack may produce them: the on-time delivery,
 * `concurrentCopies` copies at the same moment (same request id: Lambda's duplicate async delivery),
 * then `lateCopies` Scheduler retries (attempt 2, 3, ...) after the first round.
 */
export function deliveriesFor(
  job: string,
  scheduledTimeMs: number,
  concurrentCopies: number,
  lateCopies: number,
): { concurrent: Delivery[]; late: Delivery[] } {
  const requestId = randomUUID();
  const concurrent: Delivery[] = [{ job, scheduledTimeMs, awsRequestId: requestId, label: 'on-time' }];
  for (let i = 0; i < concurrentCopies; i++)
    concurrent.push({ job, scheduledTimeMs, awsRequestId: requestId, label: 'duplicate' });
  const late: Delivery[] = [];
  for (let i = 0; i < lateCopies; i++)
    late.push({ job, scheduledTimeMs, attemptNumber: i + 2, label: 'late' });
  return { concurrent, late };
}
