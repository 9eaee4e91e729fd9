/**
 * What `cronfence check` and `cdk synth` say about a job before it deploys: the verdict of the one job
 * schema (errors), the warnings (DST gaps and overlaps, rate drift across DST, a far or missing next
 * occurrence, a lease below the recommendation, catch-up that could reach slots paid elsewhere), the next occurrences and the zone's DST transitions
 * with what each does to the job. Pure: `nowMs` is a parameter.
 */
import type { JobDefinition } from './job-definition.js';
import { parseJobDefinition, RECOMMENDED_MIN_LEASE_SECONDS } from './job-definition-schema.js';
import {
  overlapConsequence,
  overlapFindings,
  overlapLabel,
  overlapOfJob,
  type ProviderTraits,
} from './overlap-check.js';
import { DAY_MS, formatNaiveMinute } from './schedule/calendar.js';
import { type DstGapPolicy, dstGapOf } from './schedule/dst-gap.js';
import { type DstWarning, dstWarnings } from './schedule/dst-warnings.js';
import { iterateSlots, type SlotSource } from './schedule/enumerate.js';
import type { ScheduleExpression } from './schedule/expression.js';
import { equivalentCron, type RateDateWarning, rateDateWarnings } from './schedule/rate-dst.js';
import type { Slot } from './schedule/slot.js';
import { type ZoneTransition, zoneTransitions } from './schedule/transitions.js';
import { schedulePeriodMs, validateSchedule } from './schedule/validate.js';
import { ianaZone, toNaive } from './schedule/zone.js';

/** How many years ahead cron DST gaps and overlaps are warned about (as synth always did). */
export const DST_LOOKAHEAD_YEARS = 3;
/** A next occurrence further away than this, in days, is warned about (the job looks dead until then). */
export const NEXT_OCCURRENCE_HORIZON_DAYS = 366;
/** The window, in days, of the transitions listed and of the rate DST warnings (the next 12 months). */
export const TRANSITION_WINDOW_DAYS = 365;

/**
 * Why an ECS job cannot have `shards`: the refusal `cronfence check` and `cdk synth` (the ECS job
 * construct) both give, word for word.
 * @param shards the job's `shards` (more than 1).
 */
export function ecsShardsProblem(shards: number): string {
  return `shards = ${shards}: an ECS job runs unsharded (fan-out invokes Lambda shards)`;
}

/**
 * One warning or error, with a stable code (`dst`, `rate-dst`, `horizon`, `lease`, `at-past`,
 * `catch-up-start`, `definition`, `runtime`).
 */
export interface Finding {
  readonly code: string;
  readonly message: string;
}

/** One upcoming occurrence. */
export interface Occurrence {
  readonly slot: string;
  /** Local wall time `yyyy-MM-ddTHH:mm` the job runs at (the gap end for a shifted slot). */
  readonly local: string;
  /** UTC instant, ISO-8601. */
  readonly utc: string;
  readonly businessDate: string;
  /** Set when the nominal local time does not exist and the sweeper runs it after the gap. */
  readonly shifted?: true;
}

/** A DST transition of the job's zone and what it does to the job. */
export interface TransitionNote {
  /** UTC instant of the change, ISO-8601. */
  readonly utc: string;
  readonly kind: ZoneTransition['kind'];
  /** e.g. `2026-03-29T02:00 → 2026-03-29T03:00` (local clocks jump forward). */
  readonly local: string;
  /** What happens to the job. */
  readonly effect: string;
}

/** The full report on one job. */
export interface JobCheck {
  readonly job: string;
  readonly schedule: string;
  readonly timeZone: string;
  /** The job's business-date rule (`slot-date` or `previous-day`). */
  readonly businessDate: string;
  /** The overlap policy (`buffer-all(4)`) and what it does to an occurrence meeting a holder; absent when refused. */
  readonly overlap?: { readonly label: string; readonly consequence: string };
  readonly next: readonly Occurrence[];
  readonly transitions: readonly TransitionNote[];
  readonly warnings: readonly Finding[];
  readonly errors: readonly Finding[];
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function source(definition: JobDefinition, expression: ScheduleExpression): SlotSource {
  return {
    ...definition,
    schedule: expression,
    ...(definition.rateAnchorMs !== undefined && { startMs: definition.rateAnchorMs }),
  };
}

function occurrence(slot: Slot, timeZone: string): Occurrence {
  return {
    slot: slot.id,
    local: formatNaiveMinute(toNaive(ianaZone(timeZone), slot.scheduledTimeMs)),
    utc: iso(slot.scheduledTimeMs),
    businessDate: slot.businessDate,
    ...(slot.shifted && { shifted: true as const }),
  };
}

function cronDstFinding(definition: JobDefinition, policy: DstGapPolicy, list: DstWarning[]): Finding {
  const how =
    policy === 'skip' ? 'skipped (dstGap: skip)' : 'run by the sweeper after the gap (dstGap: shift)';
  const dates = list.map(
    (w) =>
      `${w.date} ${w.localTimes.join(', ')} ${w.kind === 'nonexistent' ? 'does not exist (Scheduler skips it)' : 'occurs twice (Scheduler runs it once)'}`,
  );
  return {
    code: 'dst',
    message:
      `${definition.schedule} in ${definition.timeZone} meets DST transitions; ` +
      `occurrences in a gap are ${how}: ${dates.join('; ')}`,
  };
}

function rateDstFinding(
  definition: JobDefinition,
  expression: ScheduleExpression & { kind: 'rate' },
  list: RateDateWarning[],
  nextLocal: string,
): Finding {
  const cron = equivalentCron(expression, nextLocal);
  return {
    code: 'rate-dst',
    message:
      `${definition.schedule} counts ${expression.periodMs / 3_600_000}-hour periods, not local days: in ` +
      `${definition.timeZone} ${list.map((w) => w.message).join('; ')}. To run at ${nextLocal.slice(11)} local ` +
      `time on every date use schedule '${cron}'`,
  };
}

/** What a transition does to the job: from the cron's affected times, or the rate's drift. */
function effectOf(
  t: ZoneTransition,
  expression: ScheduleExpression,
  policy: DstGapPolicy,
  cronDst: readonly DstWarning[],
  rateDates: readonly RateDateWarning[],
): string {
  const day = t.localBefore.slice(0, 10);
  if (expression.kind === 'rate') {
    const hours = (t.offsetAfterMs - t.offsetBeforeMs) / 3_600_000;
    const dates = rateDates.filter((w) => Math.abs(Date.parse(w.date) - Date.parse(day)) <= 2 * DAY_MS);
    return (
      `rate drift: occurrences move ${hours > 0 ? 'later' : 'earlier'} by ${Math.abs(hours)} h in local time` +
      (dates.length > 0 ? `; ${dates.map((w) => w.message).join('; ')}` : '')
    );
  }
  const hits = cronDst.filter((w) => w.date === day);
  if (hits.length === 0) return 'no effect: no occurrence falls in the changed hour';
  return hits
    .map((w) =>
      w.kind === 'nonexistent'
        ? `${w.localTimes.join(', ')} skipped by Scheduler → ${policy === 'shift' ? `caught up by the sweeper at ${t.localAfter.slice(11)} local (${iso(t.atMs)}) under its own slot id` : 'not run (dstGap: skip)'}`
        : `${w.localTimes.join(', ')} repeated → runs once, at the first: ${w.localTimes.map((hm) => iso(Date.parse(`${day}T${hm}:00Z`) - t.offsetBeforeMs)).join(', ')}`,
    )
    .join('; ');
}

/**
 * The warning for a job whose catch-up could reach slots paid elsewhere: catch-up on (`latest` or
 * `all`) and no `catchUp.since`. At the job's first deploy (beside or after another scheduler), or
 * at a rename without `id` (a new identity with an empty done set, no run records and no effects),
 * the first sweep catches up every missing slot of its window — slots someone else may have paid.
 */
function catchUpStartFinding(definition: JobDefinition, nowMs: number): Finding | undefined {
  const c = definition.catchUp;
  if (c === undefined || c.mode === 'none' || c.sinceMs !== undefined) return undefined;
  const deployMinute = iso(Math.ceil(nowMs / 60_000) * 60_000);
  return {
    code: 'catch-up-start',
    message:
      `catchUp.mode = ${c.mode} with no catchUp.since: at its first deploy, or when it takes over from a ` +
      `renamed job without id, the first sweep catches up missing slots up to ${c.windowHours} h back ` +
      `(catchUp.windowHours), slots another scheduler or the old name may already have paid. If this job ` +
      `replaces another scheduler, set catchUp.since to its deploy instant (e.g. '${deployMinute}'); if it ` +
      `renames a job, set id to the old name (its done set, run records and effects carry over)`,
  };
}

/**
 * Check one job definition (or `defineJob` options) as of `nowMs`.
 * @param input the definition (`handler.job`) or options.
 * @param nowMs the instant to check from, epoch ms (injectable: tests and synth pass a fixed one).
 * @param count how many next occurrences to list. @default 5
 * @param context the effect providers the job's module exports (for the overlap warnings). @default none
 * @returns a report; a refused definition has `errors` and nothing else.
 * @example checkJob(handler.job, Date.now()).warnings.map((w) => w.message);
 */
export function checkJob(
  input: unknown,
  nowMs: number,
  count = 5,
  context: { readonly providers?: readonly ProviderTraits[] } = {},
): JobCheck {
  const raw = (input ?? {}) as Partial<JobDefinition>;
  const head = {
    job: String(raw.name),
    schedule: String(raw.schedule),
    timeZone: String(raw.timeZone ?? 'UTC'),
    businessDate: String(raw.businessDate ?? 'slot-date'),
  };
  let parsed: ReturnType<typeof parseJobDefinition>;
  try {
    parsed = parseJobDefinition(input, nowMs);
  } catch (error) {
    const finding = { code: 'definition', message: (error as Error).message };
    return { ...head, next: [], transitions: [], warnings: [], errors: [finding] };
  }
  const { definition, expression } = parsed;
  if (definition.runtime === 'ecs' && definition.shards > 1) {
    const finding = { code: 'runtime', message: ecsShardsProblem(definition.shards) };
    return { ...head, next: [], transitions: [], warnings: [], errors: [finding] };
  }
  const src = source(definition, expression);
  const policy = dstGapOf(definition, expression);
  const warnings: Finding[] = [];
  const next = iterateSlots(src, nowMs, Number.POSITIVE_INFINITY);
  const upcoming: Slot[] = [];
  for (let r = next.next(); !r.done && upcoming.length < count; r = next.next()) upcoming.push(r.value);

  const first = upcoming[0];
  const horizonMs = NEXT_OCCURRENCE_HORIZON_DAYS * DAY_MS;
  try {
    validateSchedule(definition, nowMs);
  } catch (error) {
    warnings.push({
      code: 'at-past',
      message: `${(error as Error).message}: the schedule will never fire again`,
    });
  }
  if (first === undefined && expression.kind === 'cron') {
    warnings.push({
      code: 'horizon',
      message: `${definition.schedule} has no occurrence after ${iso(nowMs)}: it will never fire again`,
    });
  } else if (first !== undefined && first.scheduledTimeMs - nowMs > horizonMs) {
    warnings.push({
      code: 'horizon',
      message:
        `${definition.schedule} next fires at ${iso(first.scheduledTimeMs)}, more than ${NEXT_OCCURRENCE_HORIZON_DAYS} days ` +
        `after ${iso(nowMs)}: until then the job and its "no successful run" alarm stay silent`,
    });
  }
  const cronDst = dstWarnings(src, nowMs, DST_LOOKAHEAD_YEARS);
  if (cronDst.length > 0) warnings.push(cronDstFinding(definition, policy, cronDst));
  const windowEndMs = nowMs + TRANSITION_WINDOW_DAYS * DAY_MS;
  const rateDates =
    expression.kind === 'rate' ? rateDateWarnings({ ...src, schedule: expression }, nowMs, windowEndMs) : [];
  if (expression.kind === 'rate' && rateDates.length > 0 && first) {
    warnings.push(
      rateDstFinding(definition, expression, rateDates, occurrence(first, definition.timeZone).local),
    );
  }
  if (definition.lease.durationSeconds < RECOMMENDED_MIN_LEASE_SECONDS) {
    warnings.push({
      code: 'lease',
      message:
        `lease.durationSeconds = ${definition.lease.durationSeconds} is below the recommended ${RECOMMENDED_MIN_LEASE_SECONDS} s ` +
        '(docs/clock-skew.md): one slow renewal can lose the lease and stop the run',
    });
  }
  const start = catchUpStartFinding(definition, nowMs);
  if (start) warnings.push(start);
  const periodMs = schedulePeriodMs(expression, nowMs);
  const overlap = overlapOfJob(definition, expression, nowMs);
  warnings.push(
    ...overlapFindings(overlap, definition, {
      ...(periodMs !== undefined && { periodMs }),
      ...(context.providers && { providers: context.providers }),
    }),
  );
  const transitions = zoneTransitions(ianaZone(definition.timeZone), nowMs, windowEndMs).map((t) => ({
    utc: iso(t.atMs),
    kind: t.kind,
    local: `${t.localBefore} → ${t.localAfter}`,
    effect: effectOf(t, expression, policy, cronDst, rateDates),
  }));
  return {
    ...head,
    timeZone: definition.timeZone,
    businessDate: definition.businessDate,
    overlap: { label: overlapLabel(overlap), consequence: overlapConsequence(overlap, definition) },
    next: upcoming.map((s) => occurrence(s, definition.timeZone)),
    transitions,
    warnings,
    errors: [],
  };
}
