/**
 * The release path's start of a buffered slot (overlap `buffer-*`, docs/design.md "Overlap policies"):
 * when a run's release finds slots waiting, the same invocation runs the first of them (in slot order)
 * as a `catch-up` occurrence requested by `release`, if it has at least half the job's timeout left;
 * otherwise the sweeper starts it. Either way the claim decides: a slot is claimed once (the claim takes
 * it off the buffered list, and its done set refuses a second run), so "whichever is first" never runs
 * it twice.
 */
import type { JobDefinition } from '../core/job-definition.js';
import { Trigger } from '../core/outcomes.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import { type Slot, slotFromLocalTime, slotFromScheduledTime } from '../core/schedule/slot.js';
import type { RunSummary } from './run-summary.js';

/** `requestedBy` of an occurrence the release path started. */
export const BUFFER_STARTER = 'release';

/**
 * The slot a buffered slot id names (the buffered list stores slot ids): an instant id (`…Z`, rate and
 * at() schedules) is its instant; a local id is resolved in the job's zone (a DST-gap slot `shifted`).
 */
export function bufferedSlot(
  definition: Pick<JobDefinition, 'timeZone' | 'businessDate'>,
  expression: ScheduleExpression,
  slotId: string,
): Slot {
  return slotId.endsWith('Z')
    ? slotFromScheduledTime(Date.parse(slotId), expression, definition.timeZone, definition.businessDate)
    : slotFromLocalTime(slotId, expression, definition.timeZone, definition.businessDate);
}

/** The invocation event that runs buffered slot `slotId` (the catch-up form, naming its local slot). */
export function bufferedEvent(
  definition: Pick<JobDefinition, 'name' | 'timeZone' | 'businessDate'>,
  expression: ScheduleExpression,
  slotId: string,
): Record<string, unknown> {
  const utc = slotId.endsWith('Z');
  const instantMs = bufferedSlot(definition, expression, slotId).scheduledTimeMs;
  return {
    job: definition.name,
    scheduledTime: `${new Date(instantMs).toISOString().slice(0, 19)}Z`,
    trigger: Trigger.CatchUp,
    requestedBy: BUFFER_STARTER,
    reason: 'buffered',
    ...(!utc && expression.kind === 'cron' && { slot: slotId }),
  };
}

/**
 * Run the buffered slots the releases name, one after another, while the invocation has at least half
 * the job's timeout left (a body that needs the whole timeout is left to the sweeper's own invocation).
 * A failure of one of them ends the chain (it recorded itself; the sweeper catches up the rest).
 * @param summary the invocation's own run; @param run runs one event in this invocation.
 * @returns `summary`, unchanged: the invocation reports its own occurrence.
 */
export async function runBufferedAfter(
  summary: RunSummary,
  run: (event: Record<string, unknown>) => Promise<RunSummary>,
  remainingMs: () => number,
  definition: Pick<JobDefinition, 'name' | 'timeZone' | 'businessDate' | 'timeoutSeconds'>,
  expression: ScheduleExpression,
): Promise<RunSummary> {
  let next = summary?.nextBuffered;
  const started = new Set<string>();
  while (
    next !== undefined &&
    !started.has(next) &&
    remainingMs() >= (definition.timeoutSeconds * 1000) / 2
  ) {
    started.add(next);
    try {
      next = (await run(bufferedEvent(definition, expression, next)))?.nextBuffered;
    } catch {
      return summary;
    }
  }
  return summary;
}
