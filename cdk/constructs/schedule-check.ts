/**
 * Synth-time checks of a job's schedule: the ONE place the CDK app validates an expression and
 * zone, measures the schedule's period (for the "no successful run" alarm) and collects DST
 * warnings — all delegated to lib/core/schedule, so synth agrees with the runtime and the emulator.
 */
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { type DstGapPolicy, dstGapOf } from '../../lib/core/schedule/dst-gap.js';
import { type DstWarning, dstWarnings } from '../../lib/core/schedule/dst-warnings.js';
import type { ScheduleExpression } from '../../lib/core/schedule/expression.js';
import { schedulePeriodMs, validateCatchUp, validateSchedule } from '../../lib/core/schedule/validate.js';
import { InvalidJobDefinitionError } from '../../lib/errors.js';

/** How many years ahead synth looks for DST gaps and overlaps. */
export const DST_LOOKAHEAD_YEARS = 3;

/** Result of {@link checkSchedule}. */
export interface ScheduleCheck {
  /** The parsed expression. */
  readonly expression: ScheduleExpression;
  /** Longest gap between two occurrences, in seconds; `undefined` for a one-time `at()`. */
  readonly periodSeconds: number | undefined;
  /** The job's DST gap policy (its own or the schedule's default). */
  readonly dstGap: DstGapPolicy;
  /** Dates in the next three years on which the job's local times do not exist or repeat. */
  readonly dstWarnings: readonly DstWarning[];
  /** Other warnings (a one-time `at()` already in the past). */
  readonly warnings: readonly string[];
}

/**
 * Validate a job's expression, zone and catch-up options; measure its period; list DST warnings
 * for the next three years from `nowMs`.
 * @throws InvalidScheduleError (expression part) or InvalidJobDefinitionError (`timeZone`, `catchUp.*`).
 */
export function checkSchedule(
  definition: Pick<JobDefinition, 'schedule' | 'timeZone' | 'dstGap' | 'catchUp' | 'runRetentionDays'>,
  nowMs: number,
): ScheduleCheck {
  const expression = validateSchedule(definition);
  const warnings: string[] = [];
  try {
    validateSchedule(definition, nowMs);
  } catch (error) {
    // A one-time at() in the past: fine for a schedule deployed earlier, useless for a new one.
    if (!(error instanceof InvalidJobDefinitionError)) throw error;
    warnings.push(`${error.message}: the schedule will never fire again`);
  }
  if (definition.catchUp) {
    validateCatchUp(
      definition.catchUp,
      { schedule: expression, runRetentionDays: definition.runRetentionDays },
      nowMs,
    );
  }
  const periodMs = schedulePeriodMs(expression, nowMs);
  return {
    expression,
    periodSeconds: periodMs === undefined ? undefined : Math.round(periodMs / 1000),
    dstGap: dstGapOf(definition, expression),
    dstWarnings: dstWarnings(
      { schedule: expression, timeZone: definition.timeZone },
      nowMs,
      DST_LOOKAHEAD_YEARS,
    ),
    warnings,
  };
}
