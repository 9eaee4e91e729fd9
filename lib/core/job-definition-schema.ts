/**
 * The ONE job-definition schema (valibot): `defineJob`, the CDK validator and `cronfence check` run
 * it, so a definition gets the same verdict and the same message wherever it is checked. Cross-field
 * rules (lease vs timeout, the lease minimum of docs/clock-skew.md, catch-up vs retention and period)
 * live here too. valibot: small and tree-shakable (the Lambda bundle stays near the bare baseline).
 */
import * as v from 'valibot';
import { CheckInSchema } from './check-in.js';
import { InvalidJobDefinitionError } from './input-errors.js';
import {
  JOB_RUNTIMES,
  type JobDefinition,
  JobNameSchema,
  type JobRuntime,
  MAX_LAMBDA_TIMEOUT_SECONDS,
  TimeZoneSchema,
} from './job-definition.js';
import { CLOCK_SKEW_BUDGET_MS } from './lease.js';
import { overlapOf, storedOverlap } from './overlap.js';
import { MINUTE_MS } from './schedule/calendar.js';
import { DST_GAP_POLICIES } from './schedule/dst-gap.js';
import { parseScheduleExpression, type ScheduleExpression } from './schedule/expression.js';
import { schedulePeriodMs, validateCatchUp } from './schedule/validate.js';
import { findUnknownOption, unknownOptionMessage } from './unknown-options.js';

/**
 * Time a renewal may take, SDK retries included, in ms (docs/clock-skew.md "The lease-margin rule" 2:
 * 4 attempts, about 1 s of backoff).
 */
export const RENEWAL_LATENCY_BUDGET_MS = 1_000;

/** Leases shorter than this, in seconds, are accepted with a warning (docs/clock-skew.md). */
export const RECOMMENDED_MIN_LEASE_SECONDS = 10;

const DEFAULT_RENEW_FRACTION = 1 / 3;

/**
 * Largest `timeoutSeconds` of an ECS job, in seconds (7 days). ECS sets no limit on a task's run time; the
 * bound catches a deadline given in ms instead of s, and a week is longer than any job the lease is for.
 */
export const MAX_ECS_TIMEOUT_SECONDS = 7 * 24 * 3600;

const TIMEOUT_MESSAGE = `an integer 1-${MAX_LAMBDA_TIMEOUT_SECONDS} (the Lambda maximum), or up to ${MAX_ECS_TIMEOUT_SECONDS} with runtime: 'ecs'`;

/**
 * Largest `pauseOnFailure`: its streak is kept on the lease item, and with the longest job name, a
 * full done set and 5 failed occurrences every lease write still costs 1 WCU.
 */
export const MAX_PAUSE_ON_FAILURE = 5;

/**
 * The shortest lease, in seconds, whose renewal still lands in time (docs/clock-skew.md rule 2):
 * the renewal sent at `renewFraction × L` must land before `L − skew budget`, allowing
 * {@link RENEWAL_LATENCY_BUDGET_MS}: `L > (S + latency) / (1 − renewFraction)`. Rounded to ms.
 * @example minLeaseSeconds(1 / 3); // 1.8
 */
export function minLeaseSeconds(renewFraction: number): number {
  const ms = (CLOCK_SKEW_BUDGET_MS + RENEWAL_LATENCY_BUDGET_MS) / (1 - renewFraction);
  return Math.round(ms) / 1000;
}

const seconds = (ms: number) => `${ms / 1000} s`;

const num = (what: string) => v.number(`must be ${what}`);
const positive = (max?: number) =>
  v.pipe(
    num(`a number > 0${max === undefined ? '' : ` and <= ${max}`}`),
    v.finite(`must be a number > 0${max === undefined ? '' : ` and <= ${max}`}`),
    v.gtValue(0, `must be a number > 0${max === undefined ? '' : ` and <= ${max}`}`),
    v.maxValue(max ?? Number.MAX_VALUE, `must be a number > 0 and <= ${max}`),
  );
const integer = (min: number, max: number) =>
  v.pipe(
    num(`an integer from ${min} to ${max}`),
    v.integer(`must be an integer from ${min} to ${max}`),
    v.minValue(min, `must be an integer from ${min} to ${max}`),
    v.maxValue(max, `must be an integer from ${min} to ${max}`),
  );

/** An instant on Scheduler's one-minute grid: a `Date` or ISO-8601 string with a zone, → epoch ms. */
const WholeMinuteSchema = v.pipe(
  v.union(
    [v.date(), v.pipe(v.string(), v.isoTimestamp())],
    'must be a Date or an ISO-8601 instant such as "2026-01-01T00:00:00Z"',
  ),
  v.transform((d) => (d instanceof Date ? d.getTime() : Date.parse(d))),
  v.check<number, string>(Number.isFinite, 'is not a real instant'),
  v.check<number, string>(
    (ms) => ms % MINUTE_MS === 0,
    'must be a whole minute (Scheduler invokes on a one-minute grid), e.g. 2026-01-01T00:00:00Z',
  ),
);

const INSTANT_MESSAGE = 'must be a Date or an ISO-8601 instant such as "2026-11-03T14:00:00Z"';

/** Any instant: a `Date` or ISO-8601 string with a zone, → epoch ms. */
const InstantSchema = v.pipe(
  v.union([v.date(), v.pipe(v.string(), v.isoTimestamp(INSTANT_MESSAGE))], INSTANT_MESSAGE),
  v.transform((d) => (d instanceof Date ? d.getTime() : Date.parse(d))),
  v.check<number, string>(Number.isFinite, 'is not a real instant'),
);

const CatchUpSchema = v.object({
  mode: v.picklist(['none', 'latest', 'all'], 'must be one of none, latest, all'),
  windowHours: v.pipe(
    num('a positive number of hours'),
    v.finite('must be a positive number of hours'),
    v.gtValue(0, 'must be a positive number of hours'),
  ),
  maxSlotsPerSweep: v.pipe(
    num('an integer ≥ 1'),
    v.integer('must be an integer ≥ 1'),
    v.minValue(1, 'must be an integer ≥ 1'),
  ),
  since: v.optional(InstantSchema),
  sinceMs: v.optional(
    v.pipe(
      num('epoch ms'),
      v.integer('must be epoch ms (an integer)'),
      v.minValue(0, 'must be epoch ms ≥ 0'),
    ),
  ),
});

/**
 * What a job author writes (`defineJob` options without `run`/`dispatch`), or an already validated
 * {@link JobDefinition} (its defaults are filled in, so parsing it again is the identity). Fields,
 * units and defaults: {@link JobDefinition}.
 */
export const JobOptionsSchema = v.pipe(
  v.object({
    name: JobNameSchema,
    id: v.optional(JobNameSchema),
    schedule: v.string('must be a schedule expression string'),
    timeZone: v.optional(TimeZoneSchema, 'UTC'),
    lease: v.object(
      {
        durationSeconds: positive(),
        renewFraction: v.optional(positive(0.9), DEFAULT_RENEW_FRACTION),
      },
      'must be an object { durationSeconds, renewFraction? }',
    ),
    timeoutSeconds: v.optional(
      v.pipe(
        num(TIMEOUT_MESSAGE),
        v.integer(`must be ${TIMEOUT_MESSAGE}`),
        v.minValue(1, `must be ${TIMEOUT_MESSAGE}`),
        v.maxValue(MAX_ECS_TIMEOUT_SECONDS, `must be ${TIMEOUT_MESSAGE}`),
      ),
      60,
    ),
    // The runtime the job runs on (docs/design.md "Runtimes"): a Lambda function, or an ECS Fargate task
    // started by Scheduler's ECS target, whose deadline the runtime enforces itself.
    runtime: v.optional(v.picklist(JOB_RUNTIMES, 'must be "lambda" or "ecs"'), 'lambda'),
    businessDate: v.optional(
      v.picklist(['slot-date', 'previous-day'], 'must be "slot-date" or "previous-day"'),
      'slot-date',
    ),
    dstGap: v.optional(v.picklist(DST_GAP_POLICIES, 'must be "skip" or "shift"')),
    catchUp: v.optional(CatchUpSchema),
    shards: v.optional(integer(1, 1000), 1),
    runRetentionDays: v.optional(positive(3650), 30),
    rememberSlots: v.optional(integer(1, 1000), 32),
    // At most 5: the streak (slot and run id of each failed occurrence) lives on the lease item, which
    // stays under 1 KB so that every claim and release costs 1 WCU (test/integ/lease-size.test.ts).
    pauseOnFailure: v.optional(integer(1, MAX_PAUSE_ON_FAILURE)),
    rateAnchor: v.optional(WholeMinuteSchema),
    rateAnchorMs: v.optional(
      v.pipe(
        num('epoch ms on a whole minute'),
        v.integer('must be epoch ms on a whole minute'),
        v.multipleOf(MINUTE_MS, 'must be a whole minute (Scheduler invokes on a one-minute grid)'),
      ),
    ),
    // --- check-ins to an external cron monitor (lib/core/check-in.ts) ---
    checkIn: v.optional(CheckInSchema),
    // --- end check-ins ---
    // A policy name or { policy, ... }: validated by overlapOf (lib/core/overlap.ts).
    overlap: v.optional(v.unknown()),
  }),
  v.forward(
    v.partialCheck(
      [['runtime'], ['timeoutSeconds']],
      (o) => o.runtime !== 'lambda' || o.timeoutSeconds <= MAX_LAMBDA_TIMEOUT_SECONDS,
      () =>
        `must be an integer 1-${MAX_LAMBDA_TIMEOUT_SECONDS} (the Lambda maximum) for a Lambda job; a job that runs longer runs as an ECS Fargate task: set runtime: 'ecs' (its timeoutSeconds, up to ${MAX_ECS_TIMEOUT_SECONDS}, is enforced by the runtime)`,
    ),
    ['timeoutSeconds'],
  ),
  v.forward(
    v.partialCheck(
      [['lease', 'durationSeconds'], ['timeoutSeconds'], ['runtime']],
      (o) => o.lease.durationSeconds <= o.timeoutSeconds,
      (issue) => {
        const input = issue.input as { timeoutSeconds: number; runtime: JobRuntime };
        return input.runtime === 'ecs'
          ? `must be <= the job's deadline (timeoutSeconds = ${input.timeoutSeconds}): a lease must not outlive the task's deadline`
          : `must be <= the function timeout (timeoutSeconds = ${input.timeoutSeconds}): a lease must not outlive the Lambda that holds it`;
      },
    ),
    ['lease', 'durationSeconds'],
  ),
  v.forward(
    v.partialCheck(
      [
        ['lease', 'durationSeconds'],
        ['lease', 'renewFraction'],
      ],
      (o) => o.lease.durationSeconds > minLeaseSeconds(o.lease.renewFraction),
      (issue) => {
        const f = (issue.input as { lease: { renewFraction: number } }).lease.renewFraction;
        const fText = Number(f.toFixed(3));
        return (
          `must be > ${minLeaseSeconds(f)} s: the renewal sent at renewFraction × lease (${fText}) must land ` +
          `before the lease ends minus the clock-skew budget (${seconds(CLOCK_SKEW_BUDGET_MS)}), allowing ` +
          `${seconds(RENEWAL_LATENCY_BUDGET_MS)} for the renewal and its retries: lease > ` +
          `(${seconds(CLOCK_SKEW_BUDGET_MS)} + ${seconds(RENEWAL_LATENCY_BUDGET_MS)}) / (1 − ${fText}) ` +
          `(docs/clock-skew.md); use at least ${RECOMMENDED_MIN_LEASE_SECONDS} s`
        );
      },
    ),
    ['lease', 'durationSeconds'],
  ),
);

/** The validated catch-up: `since` (a Date or ISO text) becomes `sinceMs`; both at once are refused. */
function catchUpOf(
  c: v.InferOutput<typeof CatchUpSchema>,
  input: unknown,
): NonNullable<JobDefinition['catchUp']> {
  if (c.since !== undefined && c.sinceMs !== undefined && c.since !== c.sinceMs) {
    throw new InvalidJobDefinitionError(
      'catchUp.since',
      valueAt(input, ['catchUp', 'since']),
      `and catchUp.sinceMs (${c.sinceMs}) name two instants; give one`,
    );
  }
  const sinceMs = c.sinceMs ?? c.since;
  return {
    mode: c.mode,
    windowHours: c.windowHours,
    maxSlotsPerSweep: c.maxSlotsPerSweep,
    ...(sinceMs !== undefined && { sinceMs }),
  };
}

/**
 * `defineJob` options that are not part of the definition's data: accepted beside the schema's fields
 * (the body, the shard dispatcher, and `uses`, which lib/store/job-access.ts validates).
 */
const BODY_OPTIONS = ['run', 'dispatch', 'uses'];

/** Input accepted by {@link parseJobDefinition}. */
export type JobDefinitionInput = v.InferInput<typeof JobOptionsSchema>;

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let at: unknown = input;
  for (const key of path) at = (at as Record<string | number, unknown> | undefined)?.[key];
  return at;
}

/**
 * Validate a job's options (or a {@link JobDefinition}) into a definition and its parsed expression:
 * the schema, then the expression (a cron that never fires is refused), then catch-up against the
 * schedule's period and run-record retention.
 * @param nowMs definition-time clock, epoch ms (where a cron's period is measured from).
 * @throws InvalidJobDefinitionError naming the first bad field (dotted path) and its value (an unknown
 *   option, top-level or nested, with the known name nearest to it); InvalidScheduleError naming the
 *   expression and its bad part.
 * @example
 * parseJobDefinition({ name: 'nightly', schedule: 'cron(30 2 * * ? *)', lease: { durationSeconds: 30 } }, Date.now())
 *   .definition.timeoutSeconds; // 60
 */
export function parseJobDefinition(
  input: unknown,
  nowMs: number,
): { definition: JobDefinition; expression: ScheduleExpression } {
  // v.object drops unknown keys: refuse them first, or a misspelt option would be silently ignored.
  const unknown = findUnknownOption(JobOptionsSchema, input, BODY_OPTIONS);
  if (unknown !== undefined)
    throw new InvalidJobDefinitionError(
      unknown.path.join('.'),
      valueAt(input, unknown.path),
      unknownOptionMessage(unknown),
    );
  const result = v.safeParse(JobOptionsSchema, input, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue.path ?? []).map((p) => p.key as string | number);
    const field = path.length > 0 ? path.join('.') : 'definition';
    throw new InvalidJobDefinitionError(field, valueAt(input, path), issue.message);
  }
  const o = result.output;
  const expression = parseScheduleExpression(o.schedule);
  if (o.catchUp !== undefined) {
    validateCatchUp(o.catchUp, { schedule: expression, runRetentionDays: o.runRetentionDays }, nowMs);
  }
  if (o.pauseOnFailure !== undefined && o.shards > 1) {
    throw new InvalidJobDefinitionError(
      'pauseOnFailure',
      o.pauseOnFailure,
      `counts the failed occurrences of one lease; job has ${o.shards} shards (each its own lease): pause it with \`cronfence pause\` instead`,
    );
  }
  const anchorMs = o.rateAnchorMs ?? o.rateAnchor;
  if (anchorMs !== undefined && expression.kind !== 'rate') {
    throw new InvalidJobDefinitionError(
      'rateAnchor',
      valueAt(input, [o.rateAnchorMs === undefined ? 'rateAnchor' : 'rateAnchorMs']),
      `only a rate() schedule has a rate grid; ${o.schedule} fires at its own times`,
    );
  }
  const catchUp = o.catchUp && catchUpOf(o.catchUp, input);
  const overlap = storedOverlap(
    overlapOf(o, { timeoutSeconds: o.timeoutSeconds, periodMs: schedulePeriodMs(expression, nowMs) }),
  );
  const definition: JobDefinition = {
    name: o.name,
    ...(o.id !== undefined && o.id !== o.name && { id: o.id }),
    schedule: o.schedule,
    timeZone: o.timeZone,
    lease: { durationSeconds: o.lease.durationSeconds, renewFraction: o.lease.renewFraction },
    timeoutSeconds: o.timeoutSeconds,
    runtime: o.runtime,
    businessDate: o.businessDate,
    ...(o.dstGap !== undefined && { dstGap: o.dstGap }),
    ...(catchUp !== undefined && { catchUp }),
    shards: o.shards,
    runRetentionDays: o.runRetentionDays,
    rememberSlots: o.rememberSlots,
    ...(o.pauseOnFailure !== undefined && { pauseOnFailure: o.pauseOnFailure }),
    ...(expression.kind === 'rate' && { rateAnchorMs: anchorMs ?? 0 }),
    ...(o.checkIn !== undefined && { checkIn: o.checkIn }), // check-ins (lib/core/check-in.ts)
    ...(overlap !== undefined && { overlap }),
  };
  return { definition, expression };
}
