/**
 * The occurrence an ECS task runs, from its `CRONFENCE_OCCURRENCE` environment variable: JSON
 * `{"scheduledTime","attempt","executionId","trigger"}` that EventBridge Scheduler fills from its context
 * attributes (`<aws.scheduler.scheduled-time>`, `<aws.scheduler.attempt-number>`,
 * `<aws.scheduler.execution-id>`) through the ECS target's container overrides, or that the sweeper's
 * RunTask catch-up sets. Validated by the same event schema as a Lambda payload (lib/core/event.ts), so
 * both runtimes take a slot from the same rules; errors name `CRONFENCE_OCCURRENCE.<field>`.
 */
import { type InvocationEvent, parseInvocationEvent } from '../core/event.js';
import { showValue } from '../core/show-value.js';
import { InvalidEventError } from '../errors.js';

/** The environment variable holding the occurrence JSON. */
export const OCCURRENCE_ENV = 'CRONFENCE_OCCURRENCE';

/** Triggers an occurrence may name; `backfill` is an operator's re-run (a manual run of the Lambda path). */
export const OCCURRENCE_TRIGGERS = ['schedule', 'catch-up', 'manual', 'backfill'] as const;

/** Keys of the occurrence JSON, and the invocation-event field each one is. */
const FIELDS: Readonly<Record<string, string>> = {
  scheduledTime: 'scheduledTime',
  attempt: 'attemptNumber',
  executionId: 'executionId',
  trigger: 'trigger',
  slot: 'slot',
  requestedBy: 'requestedBy',
  reason: 'reason',
};

const fieldOf = (eventField: string): string =>
  Object.entries(FIELDS).find(([, e]) => e === eventField)?.[0] ?? eventField;

/**
 * Parse the occurrence of an ECS task into the invocation event the run session takes.
 * Fields: `scheduledTime` (ISO-8601 instant, required), `attempt` (Scheduler's attempt number, 1-186,
 * a number or decimal string; @default 1), `executionId` (Scheduler's execution id), `trigger`
 * (`schedule` | `catch-up` | `manual` | `backfill`; @default `schedule`, `retry` when attempt > 1),
 * `slot` (nominal local minute of a shifted DST-gap slot, catch-up/manual only), `requestedBy` (who;
 * required for `manual` / `backfill`), `reason` (why).
 * @param job - the job's name (`CRONFENCE_JOB`).
 * @param raw - the variable's text.
 * @throws InvalidEventError naming `CRONFENCE_OCCURRENCE` (missing, not JSON, not an object) or
 *   `CRONFENCE_OCCURRENCE.<field>` and its value (an unknown key, a bad or missing field).
 * @example parseOccurrence('nightly', '{"scheduledTime":"2026-03-28T01:30:00Z","attempt":1,"executionId":"e1","trigger":"schedule"}')
 */
export function parseOccurrence(job: string, raw: string | undefined): InvocationEvent {
  if (raw === undefined || raw.trim() === '') {
    throw new InvalidEventError(
      OCCURRENCE_ENV,
      raw,
      'is not set: the task needs the occurrence JSON {"scheduledTime","attempt","executionId","trigger"} (the schedule target or the sweeper sets it)',
    );
  }
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch {
    throw new InvalidEventError(OCCURRENCE_ENV, raw, 'is not JSON');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidEventError(
      OCCURRENCE_ENV,
      input,
      'is not a JSON object {"scheduledTime","attempt","executionId","trigger"}',
    );
  }
  const o = input as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => !(k in FIELDS));
  if (unknown !== undefined) {
    throw new InvalidEventError(
      `${OCCURRENCE_ENV}.${unknown}`,
      o[unknown],
      `is not an occurrence field (known: ${Object.keys(FIELDS).join(', ')})`,
    );
  }
  if (o.trigger !== undefined && !OCCURRENCE_TRIGGERS.includes(o.trigger as never)) {
    throw new InvalidEventError(
      `${OCCURRENCE_ENV}.trigger`,
      o.trigger,
      `must be one of ${OCCURRENCE_TRIGGERS.map((t) => `"${t}"`).join(', ')}`,
    );
  }
  const backfill = o.trigger === 'backfill';
  const event: Record<string, unknown> = { job };
  for (const [key, field] of Object.entries(FIELDS)) if (o[key] !== undefined) event[field] = o[key];
  if (backfill) {
    event.trigger = 'manual';
    event.reason ??= 'backfill';
  }
  try {
    return parseInvocationEvent(event);
  } catch (err) {
    if (!(err instanceof InvalidEventError)) throw err;
    const prefix = `invalid event: field "${err.field}" = ${showValue(err.value)}: `;
    const problem = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
    const value = err.field === '(event)' ? input : o[fieldOf(err.field)];
    const message =
      err.field === 'requestedBy' && backfill ? 'is required for a backfill run (who asked for it)' : problem;
    throw new InvalidEventError(`${OCCURRENCE_ENV}.${fieldOf(err.field)}`, value, message, { cause: err });
  }
}

/**
 * The Lambda-shaped payload of a parsed occurrence (what the run session's middleware parses), so both
 * runtimes take the slot, trigger and attempt from the same rules.
 */
export function invocationPayload(e: InvocationEvent): Record<string, unknown> {
  return {
    job: e.job,
    scheduledTime: new Date(e.scheduledTimeMs).toISOString(),
    // `retry` is derived again from the attempt number.
    ...(e.trigger !== 'retry' && { trigger: e.trigger }),
    ...(e.slotLocalTime !== undefined && { slot: e.slotLocalTime }),
    ...(e.executionId !== undefined && { executionId: e.executionId }),
    ...(e.attemptNumber !== undefined && { attemptNumber: e.attemptNumber }),
    ...(e.requestedBy !== undefined && { requestedBy: e.requestedBy }),
    ...(e.reason !== undefined && { reason: e.reason }),
  };
}
