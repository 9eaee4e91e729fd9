/**
 * Helpers of the overlap scenario tests (test/integ/overlap-*.test.ts): a job on a 3-minute rate whose
 * body can be held at a gate (a holder stuck past several periods), deliveries on one test clock, and
 * the run records as sortable rows.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ControlledClock } from '../../harness/faults/clock.js';
import { lambdaContext, schedulerPayload } from '../../harness/local/scheduler-emulator.js';
import type { OverlapOption } from '../../lib/core/overlap.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { JobContext } from '../../lib/runtime/job-context.js';
import type { RunSummary } from '../../lib/runtime/run-summary.js';
import { Keys } from '../../lib/store/schema.js';
import type { LocalStack } from './local-stack.js';

/** 2026-05-01 at `hh:mm` UTC, epoch ms. */
export const T = (hhmm: string) => Date.parse(`2026-05-01T${hhmm}:00Z`);
/** The slot id of a rate slot at `hh:mm` UTC. */
export const ID = (hhmm: string) => `2026-05-01T${hhmm}:00Z`;

/** A promise a test opens. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

/** A closed gate. */
export function gate(): Gate {
  let open: () => void = () => {};
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/**
 * A job on `rate(3 minutes)` (lease 900 s, timeout 900 s) whose body notes its slot and waits at its gate.
 * Its run records are kept 10 years: the tests' clock (2026-05-01) lies months before the host's, and
 * DynamoDB Local's TTL on `expiresAt` may otherwise reap a record while a test reads it.
 */
export function overlapJob(
  name: string,
  overlap: OverlapOption | undefined,
  calls: string[],
  gates: Map<string, Gate>,
  body: (ctx: JobContext) => Promise<void> = async () => undefined,
  extra: Partial<Parameters<typeof defineJob>[0]> = {},
): JobHandler {
  return defineJob({
    name,
    schedule: 'rate(3 minutes)',
    lease: { durationSeconds: 900 },
    timeoutSeconds: 900,
    runRetentionDays: 3650,
    ...extra,
    ...(overlap !== undefined && { overlap }),
    run: async (ctx) => {
      calls.push(ctx.slot.id);
      await gates.get(ctx.slot.id)?.promise;
      await body(ctx);
    },
  });
}

/** One Lambda invocation of `handler` for the slot at `hhmm`, with the clock set to `clockAt` first. */
export function invoke(
  handler: JobHandler,
  clock: ControlledClock,
  hhmm: string,
  options: {
    clockAt?: number;
    attempt?: number;
    remainingMs?: () => number;
    extra?: Record<string, unknown>;
  } = {},
): Promise<RunSummary> {
  clock.setTo(options.clockAt ?? T(hhmm));
  const event = { ...schedulerPayload(handler.job.name, T(hhmm), options.attempt ?? 1), ...options.extra };
  const context = lambdaContext(handler.job.name, 900);
  if (options.remainingMs) context.getRemainingTimeInMillis = options.remainingMs;
  return handler(event, context);
}

/** A test clock, frozen (time moves only when a test sets it). */
export function frozenClock(): ControlledClock {
  const clock = new ControlledClock();
  clock.freeze();
  return clock;
}

/** The lease item of `job`, consistent read. */
export async function leaseOf(stack: LocalStack, job: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await stack.doc.send(
    new GetCommand({ TableName: stack.tableName, Key: Keys.lease(job), ConsistentRead: true }),
  );
  return Item;
}

/** Wait until the lease of `job` is held for slot `slotId` (a gated body is running). */
export async function heldFor(stack: LocalStack, job: string, slotId: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const item = await leaseOf(stack, job);
    if (item?.slot === slotId && item.holderState === 'running') return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`lease of ${job} never held for ${slotId}`);
}

/** Run records as `slot trigger outcome/reason fence`, in slot then start order. */
export async function rows(stack: LocalStack, job: string): Promise<string[]> {
  const records = await stack.runRecords(job);
  return records
    .sort(
      (a, b) => String(a.slot).localeCompare(String(b.slot)) || Number(a.startedAtMs) - Number(b.startedAtMs),
    )
    .map((r) => `${r.slot} ${r.trigger} ${r.outcome}/${r.reason ?? '-'} ${r.fence ?? '-'}`);
}

/**
 * A sweep target that runs `job` in this process (a 900 s Lambda context) for every payload the
 * sweeper sends, noting each payload's `scheduledTime` in `invoked` (as `label` shapes it).
 */
export function sweepTargetOf(
  job: JobHandler,
  invoked: string[],
  label: (scheduledTime: string) => string = (t) => t,
) {
  return {
    definition: job.job,
    expression: job.expression,
    startMs: 0,
    invoke: async (p: Record<string, unknown>) => {
      invoked.push(label(String(p.scheduledTime)));
      await job(p, lambdaContext(job.job.name, 900));
    },
  };
}
