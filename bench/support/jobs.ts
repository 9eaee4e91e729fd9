/**
 * Jobs and workers for benchmarks: a job on a per-minute rate schedule whose slots are easy to
 * enumerate, and workers (own Document client + request meter, like one Lambda instance).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FaultInjector } from '../../harness/faults/sdk-faults.js';
import { type DeliveryResult, deliver } from '../../harness/local/scheduler-emulator.js';
import type { Clock } from '../../lib/core/ports.js';
import { defineJob, type JobHandler, type JobOptions } from '../../lib/runtime/define-job.js';
import { createDeps, type PausePoint, type RuntimeDeps } from '../../lib/runtime/deps.js';
import type { Observer } from '../../lib/runtime/events.js';
import type { BenchDynamo } from './local.js';
import { RequestMeter } from './meter.js';

/** First slot of every benchmark job (a fixed instant, so runs are reproducible). */
export const BASE_SLOT_MS = Date.parse('2026-03-28T17:00:00Z');

/** The scheduled time of a rate(1 minute) job's `i`-th slot, epoch ms. */
export function slotMs(i: number): number {
  return BASE_SLOT_MS + i * 60_000;
}

/** A job on `rate(1 minute)` with the given body and options. */
export function benchJob(
  name: string,
  run: JobOptions['run'],
  options: Partial<Omit<JobOptions, 'name' | 'run'>> = {},
): JobHandler {
  return defineJob({
    name,
    schedule: 'rate(1 minute)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    ...options,
    run,
  });
}

/** A worker: its own client with a request meter, and deps on it. */
export interface BenchWorker {
  readonly doc: DynamoDBDocumentClient;
  readonly meter: RequestMeter;
  readonly deps: RuntimeDeps;
}

/** Make a worker on the bench endpoint. */
export function benchWorker(
  dyn: BenchDynamo,
  options: { clock?: Clock; observe?: Observer; pausePoint?: PausePoint; faults?: FaultInjector } = {},
): BenchWorker {
  const doc = dyn.client();
  const meter = new RequestMeter().attach(doc);
  options.faults?.attach(doc);
  const deps = createDeps({
    doc,
    tableName: dyn.tableName,
    ...(options.clock && { clock: options.clock }),
    ...(options.observe && { observe: options.observe }),
    ...(options.pausePoint && { pausePoint: options.pausePoint }),
  });
  return { doc, meter, deps };
}

/** Deliver slot `i` of `handler`'s job on `deps`. */
export function deliverSlot(
  handler: JobHandler,
  deps: RuntimeDeps,
  i: number,
  extra: { attemptNumber?: number; awsRequestId?: string; label?: string } = {},
): Promise<DeliveryResult> {
  return deliver(
    handler.withDeps(() => deps),
    {
      job: handler.job.name,
      scheduledTimeMs: slotMs(i),
      label: extra.label ?? 'bench',
      ...(extra.attemptNumber !== undefined && { attemptNumber: extra.attemptNumber }),
      ...(extra.awsRequestId !== undefined && { awsRequestId: extra.awsRequestId }),
    },
  );
}
