/**
 * Synth-time facts about a job's schedule: its parsed expression and period (for the "no successful
 * run" alarm), and the StartDate to deploy. Validation and warnings come from lib/core (the job schema
 * and `checkJob`), so synth agrees with `defineJob`, `cronfence check`, the runtime and the emulator.
 */
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { parseJobDefinition } from '../../lib/core/job-definition-schema.js';
import type { ScheduleExpression } from '../../lib/core/schedule/expression.js';
import { schedulePeriodMs } from '../../lib/core/schedule/validate.js';
import { CronfenceValidationError } from './errors.js';

/** Result of {@link checkSchedule}. */
export interface ScheduleCheck {
  /** The parsed expression. */
  readonly expression: ScheduleExpression;
  /** Longest gap between two occurrences, in seconds; `undefined` for a one-time `at()`. */
  readonly periodSeconds: number | undefined;
}

/**
 * Validate a job definition with the one job schema and measure its schedule's period from `nowMs`.
 * @throws InvalidJobDefinitionError / InvalidScheduleError as `defineJob` would.
 */
export function checkSchedule(definition: JobDefinition, nowMs: number): ScheduleCheck {
  const { expression } = parseJobDefinition(definition, nowMs);
  const periodMs = schedulePeriodMs(expression, nowMs);
  return { expression, periodSeconds: periodMs === undefined ? undefined : Math.round(periodMs / 1000) };
}

/**
 * How far in the past Scheduler accepts a StartDate, ms: CreateSchedule refuses one "earlier than
 * 5 minutes ago"; UpdateSchedule replaces every field of the schedule (CloudFormation sends the same
 * StartDate again on any change), and its reference documents no exception for the past.
 */
export const START_DATE_MAX_PAST_MS = 5 * 60_000;

const isoMinute = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * The StartDate to deploy: `start` when given (checked as Scheduler would check it), else for a rate
 * job the first instant of its grid (`rateAnchorMs + k × period`) at or after `now` — a future instant
 * Scheduler accepts, on the grid the slot ids and the sweeper count from, whatever the deploy date.
 * @throws CronfenceValidationError (naming the job, `start` and what to do) for a `start` that is not a whole minute, more
 *   than 5 minutes before `now`, or off the rate grid.
 */
export function schedulerStartDate(
  definition: Pick<JobDefinition, 'name' | 'rateAnchorMs'>,
  expression: ScheduleExpression,
  start: Date | undefined,
  now: Date,
): Date | undefined {
  const anchorMs = definition.rateAnchorMs ?? 0;
  const periodMs = expression.kind === 'rate' ? expression.periodMs : undefined;
  const nextGrid = (ms: number) =>
    periodMs === undefined ? ms : anchorMs + Math.ceil((ms - anchorMs) / periodMs) * periodMs;
  if (start === undefined) return periodMs === undefined ? undefined : new Date(nextGrid(now.getTime()));
  const fail = (problem: string): never => {
    throw new CronfenceValidationError(
      `job "${definition.name}": start = ${isoMinute(start.getTime())}: ${problem}`,
    );
  };
  const ms = start.getTime();
  if (!Number.isFinite(ms) || ms % 60_000 !== 0) {
    fail('must be a whole minute (Scheduler invokes on a one-minute grid), e.g. 2026-01-01T00:00:00Z');
  }
  if (ms < now.getTime() - START_DATE_MAX_PAST_MS) {
    fail(
      `is more than 5 minutes before now (${isoMinute(now.getTime())}): EventBridge Scheduler refuses such a ` +
        'StartDate when it creates or updates the schedule. Remove `start`' +
        (periodMs === undefined
          ? ''
          : `; to keep the rate grid, set \`rateAnchor: '${isoMinute(ms)}'\` in defineJob: each synth then ` +
            `deploys the grid's next instant (${isoMinute(nextGrid(now.getTime()))}) as StartDate and slot ids stay the same`),
    );
  }
  if (periodMs !== undefined && nextGrid(ms) !== ms) {
    fail(
      `is not on the job's rate grid (rateAnchor ${isoMinute(anchorMs)} + k × ${periodMs / 60_000} min): ` +
        `slot ids would not match Scheduler's invocations; use ${isoMinute(nextGrid(ms))} or remove \`start\``,
    );
  }
  return start;
}
