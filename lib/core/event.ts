/**
 * Parsing of invocation payloads: the Input template EventBridge Scheduler sends (see
 * the CDK's ScheduledJob Input) and the manual / catch-up forms the CLI and the sweeper send.
 * Validated with valibot (small, tree-shakable: keeps the Lambda bundle near the bare baseline).
 */
import * as v from 'valibot';
import { InvalidEventError } from './input-errors.js';
import type { Mutable } from './mutable.js';
import { Trigger } from './outcomes.js';
import { digitsAt, minuteOfText } from './schedule/calendar.js';

/** A parsed invocation: which job, which slot instant, and why it was invoked. */
export interface InvocationEvent {
  /** Job name the event is for. */
  readonly job: string;
  /** The slot's instant from `<aws.scheduler.scheduled-time>` (or the manual request), epoch ms. */
  readonly scheduledTimeMs: number;
  /** Nominal local slot (`yyyy-MM-ddTHH:mm`) for a shifted DST-gap slot; only catch-up/manual events carry it. */
  readonly slotLocalTime?: string;
  readonly trigger: Trigger;
  /** Shard index for fanned-out jobs. @default undefined (unsharded) */
  readonly shard?: number;
  /**
   * The shard count the shard payload was cut for (a shard index only means something under it).
   * @default undefined (payloads cut before counts were carried: taken as the current count)
   */
  readonly shards?: number;
  readonly scheduleArn?: string;
  readonly executionId?: string;
  /** Scheduler's attempt number (1 = first delivery). */
  readonly attemptNumber?: number;
  /** Who asked for a manual run (required for `manual`). */
  readonly requestedBy?: string;
  /** Why a manual / catch-up run was asked for. */
  readonly reason?: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_MINUTE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/**
 * The calendar fields of `yyyy-MM-ddTHH:mm...` exist (no Feb 31, no 24:00): Date.parse alone rolls such
 * values over. Used for the instant `scheduledTime` and the local `slot` alike (same field positions).
 */
function isRealInstant(text: string): boolean {
  return !Number.isNaN(minuteOfText(text)) && !Number.isNaN(Date.parse(text));
}

const Text = (max: number) =>
  v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(max, `must be at most ${max} characters`),
  );

/** Why a required field may not be missing (valibot's own "Invalid key" message names no reason). */
const REQUIRED: Readonly<Record<string, string>> = {
  job: 'is required: the name of the job the event is for (the schedule Input\'s "job")',
  scheduledTime: 'is required: the slot comes from <aws.scheduler.scheduled-time>, never from "now"',
};

const EventSchema = v.object({
  job: Text(64),
  scheduledTime: v.pipe(
    v.string('is required: the slot comes from <aws.scheduler.scheduled-time>, never from "now"'),
    v.regex(ISO_INSTANT, 'must be an ISO-8601 instant with a zone, e.g. 2026-03-28T01:30:00Z'),
    v.check(isRealInstant, 'is not a real date and time'),
  ),
  trigger: v.optional(
    v.picklist(['schedule', 'manual', 'catch-up'], 'must be "schedule", "manual" or "catch-up"'),
  ),
  slot: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.regex(LOCAL_MINUTE, 'must be a local time yyyy-MM-ddTHH:mm'),
      // The calendar fields must exist (no month 13, no 25:00), as for scheduledTime.
      v.check(isRealInstant, 'is not a real local date and time'),
    ),
  ),
  // A job has at most 1000 shards (the job schema's `shards`).
  shard: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(0, 'must be >= 0'),
      v.maxValue(999, 'must be <= 999 (a job has at most 1000 shards)'),
    ),
  ),
  shards: v.optional(
    v.pipe(
      v.number('must be a number'),
      v.integer('must be an integer'),
      v.minValue(1, 'must be >= 1'),
      v.maxValue(1000, 'must be <= 1000 (a job has at most 1000 shards)'),
    ),
  ),
  scheduleArn: v.optional(Text(2048)),
  executionId: v.optional(Text(256)),
  // `<aws.scheduler.attempt-number>` renders as a decimal string ("1"); a number is taken too. Only
  // decimal digits: Number() would also take "0x2", "1e2" and " 2 ", which no Scheduler sends.
  attemptNumber: v.optional(
    v.pipe(
      v.union(
        [
          v.number(),
          v.pipe(v.string(), v.regex(/^[0-9]+$/, 'must be a whole number in decimal digits, e.g. "1"')),
        ],
        'must be a whole number or a string of decimal digits, e.g. "1"',
      ),
      v.transform((x) => Number(x)),
      v.integer('must be a whole number'),
      v.minValue(1, 'must be >= 1'),
      // EventBridge Scheduler retries at most 185 times (RetryPolicy.MaximumRetryAttempts, 0-185).
      v.maxValue(186, 'must be <= 186 (EventBridge Scheduler makes at most 185 retries)'),
    ),
  ),
  requestedBy: v.optional(Text(128)),
  reason: v.optional(Text(1024)),
});

/**
 * Parse and validate an invocation payload.
 * @param raw the Lambda event as received (object, or a JSON string).
 * @throws InvalidEventError naming the first bad field and its value (e.g. a missing `scheduledTime`).
 * @example parseInvocationEvent({ job: 'daily-report', scheduledTime: '2026-03-28T01:30:00Z' })
 */
export function parseInvocationEvent(raw: unknown): InvocationEvent {
  let input = raw;
  if (typeof raw === 'string') {
    try {
      input = JSON.parse(raw);
    } catch {
      throw new InvalidEventError('(event)', raw, 'is a string that is not JSON');
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidEventError(
      '(event)',
      input,
      'is not a JSON object (expected { "job", "scheduledTime", ... })',
    );
  }
  return scheduledEvent(input as Record<string, unknown>) ?? parseBySchema(input as Record<string, unknown>);
}

/** Fields of the payload cronfence's schedules send (the CDK's ScheduledJob Input). */
const SCHEDULED_FIELDS = new Set(['job', 'scheduledTime', 'scheduleArn', 'executionId', 'attemptNumber']);

/** True for one or more ASCII digits and nothing else (`/^[0-9]+$/`). */
function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const isText = (x: unknown, max: number): x is string =>
  typeof x === 'string' && x.length >= 1 && x.length <= max;

/**
 * Epoch ms of an ISO instant `scheduledTime` (the `ISO_INSTANT` form, a real calendar minute), or NaN.
 * Scheduler's own form, `yyyy-MM-ddTHH:mm:ssZ`, is read at fixed positions; any other is matched and parsed.
 */
function instantMs(text: string): number {
  const minute = minuteOfText(text);
  if (Number.isNaN(minute)) return Number.NaN;
  if (text.length === 20 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 90) {
    const seconds = digitsAt(text, 17, 2);
    return seconds <= 59 ? minute * 60_000 + seconds * 1_000 : Number.NaN;
  }
  return ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN;
}

/**
 * The payload every scheduled run gets — `job`, `scheduledTime` and the optional `scheduleArn`,
 * `executionId` and `attemptNumber`, nothing else — checked field by field by the rules of
 * `EventSchema`, which stays their definition; `undefined` for any other payload or any field that
 * breaks a rule, which {@link parseBySchema} then parses (and names the error of). Spares each
 * scheduled run a pass of the whole schema.
 * @internal exported for the test that holds it to the schema
 */
export function scheduledEvent(input: Record<string, unknown>): InvocationEvent | undefined {
  for (const key in input) if (!SCHEDULED_FIELDS.has(key)) return undefined;
  const { job, scheduledTime, scheduleArn, executionId, attemptNumber } = input;
  if (!isText(job, 64) || typeof scheduledTime !== 'string') return undefined;
  const scheduledTimeMs = instantMs(scheduledTime);
  if (Number.isNaN(scheduledTimeMs)) return undefined;
  if (scheduleArn !== undefined && !isText(scheduleArn, 2048)) return undefined;
  if (executionId !== undefined && !isText(executionId, 256)) return undefined;
  let attempt: number | undefined;
  if (attemptNumber !== undefined) {
    if (typeof attemptNumber === 'string' ? !isDigits(attemptNumber) : typeof attemptNumber !== 'number')
      return undefined;
    attempt = Number(attemptNumber);
    if (!Number.isInteger(attempt) || attempt < 1 || attempt > 186) return undefined;
  }
  // Optional fields assigned when present (every scheduled run parses one: no spread temporaries).
  const event: Mutable<InvocationEvent> = {
    job,
    scheduledTimeMs,
    trigger: (attempt ?? 1) > 1 ? Trigger.Retry : Trigger.Schedule,
  };
  if (scheduleArn !== undefined) event.scheduleArn = scheduleArn;
  if (executionId !== undefined) event.executionId = executionId;
  if (attempt !== undefined) event.attemptNumber = attempt;
  return event;
}

/**
 * Parse an event object with `EventSchema` (every payload form).
 * @throws InvalidEventError naming the first bad field and its value.
 * @internal exported for the test that holds {@link scheduledEvent} to it
 */
export function parseBySchema(input: Record<string, unknown>): InvocationEvent {
  const result = v.safeParse(EventSchema, input);
  if (!result.success) {
    const issue = result.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join('.') ?? '(event)';
    const key = issue.path?.[0]?.key as string;
    const value = (input as Record<string, unknown>)[key];
    // A missing key is reported by the object schema: name the field and why it is needed.
    const required = value === undefined && issue.path?.length === 1 ? REQUIRED[key] : undefined;
    throw new InvalidEventError(field, value, required ?? issue.message);
  }
  const e = result.output;
  const trigger: Trigger =
    e.trigger === 'manual'
      ? Trigger.Manual
      : e.trigger === 'catch-up'
        ? Trigger.CatchUp
        : (e.attemptNumber ?? 1) > 1
          ? Trigger.Retry
          : Trigger.Schedule;
  if (trigger === Trigger.Manual && e.requestedBy === undefined) {
    throw new InvalidEventError('requestedBy', undefined, 'is required for a manual run (who asked for it)');
  }
  if (e.slot !== undefined && trigger !== Trigger.Manual && trigger !== Trigger.CatchUp) {
    throw new InvalidEventError('slot', e.slot, 'only manual and catch-up events may name a nominal slot');
  }
  return {
    job: e.job,
    scheduledTimeMs: Date.parse(e.scheduledTime),
    trigger,
    ...(e.slot !== undefined && { slotLocalTime: e.slot }),
    ...(e.shard !== undefined && { shard: e.shard }),
    ...(e.shards !== undefined && { shards: e.shards }),
    ...(e.scheduleArn !== undefined && { scheduleArn: e.scheduleArn }),
    ...(e.executionId !== undefined && { executionId: e.executionId }),
    ...(e.attemptNumber !== undefined && { attemptNumber: e.attemptNumber }),
    ...(e.requestedBy !== undefined && { requestedBy: e.requestedBy }),
    ...(e.reason !== undefined && { reason: e.reason }),
  };
}
