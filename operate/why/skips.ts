/**
 * A skip record in words (pure): why the run did not run the body, who or what was in the way, and what
 * happens to the occurrence next (docs/design.md "When is a slot done").
 */
import { Outcome, Reason } from '../../lib/core/outcomes.js';
import type { WhyRecord } from './model.js';

const isoOf = (ms: unknown) =>
  typeof ms === 'number' && Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(0, 19)}Z` : '?';

/** The verdict of an occurrence whose latest record is a skip. */
export function describeSkip(r: WhyRecord): string {
  const holder = r.holderSeen
    ? ` behind run ${r.holderSeen.runId ?? '?'} (slot ${r.holderSeen.slot ?? '?'})`
    : '';
  const waitingFor = typeof r.details?.waitingFor === 'string' ? r.details.waitingFor : undefined;
  const buffered = Array.isArray(r.details?.buffered) ? (r.details.buffered as unknown[]).map(String) : [];
  if (r.outcome === Outcome.Buffered)
    return `delivered, buffered${holder} (overlap buffer-one / buffer-all${buffered.length > 0 ? `; waiting: ${buffered.join(', ')}` : ''}): it runs once that run releases the lease, started by the release or the sweeper, whichever is first`;
  switch (r.reason) {
    case Reason.BufferFull:
      return `skipped buffer-full${holder}: the buffer already held ${buffered.length > 0 ? buffered.join(', ') : 'maxBuffered occurrences'}, so it was not buffered (a problem: SlotNotRun); the catch-up rule decides whether it runs, as for a missed slot`;
    case Reason.WaitingForPrevious:
      return `delivered, not run yet: skipped waiting-for-previous (overlap after-previous): ${waitingFor !== undefined ? `slot ${waitingFor}` : 'the previous slot'} has not succeeded${holder}; the sweeper starts this one once it has, in slot order`;
    case Reason.WaitingTooLong:
      return `waiting-too-long (a problem: SlotNotRun): ${waitingFor !== undefined ? `slot ${waitingFor}` : 'the previous slot'} has not succeeded within overlap.waitingProblemAfterSeconds; this one still runs once it has (see cronfence why on that slot)`;
    case Reason.Paused: {
      const p = (r.details?.pause ?? {}) as { by?: string; atMs?: number; note?: string; untilMs?: number };
      return `skipped: paused by ${p.by ?? '(unknown)'} at ${isoOf(p.atMs)}${p.untilMs !== undefined ? ` until ${isoOf(p.untilMs)}` : ''} ("${p.note ?? ''}"); after resume the catch-up rule decides`;
    }
    case Reason.LeaseHeld:
      return `delivered, not run yet: skipped lease-held${holder} (another attempt of the same occurrence); the sweeper catches it up if that attempt does not finish`;
    case Reason.Overlap:
      return `delivered, not run yet: skipped overlap${holder}; the sweeper catches it up`;
    case Reason.Deadline:
      return `delivered, not run yet: skipped deadline (too little Lambda time left to claim); the sweeper catches it up`;
    case Reason.NonexistentLocalTime:
      return 'skipped: DST gap — its local time does not exist in the job zone (dstGap: skip)';
    case Reason.CatchUpLimit:
      return 'missed, and left behind by the catch-up cap (maxSlotsPerSweep): it will not run';
    case Reason.AlreadySucceeded:
      return `skipped already-succeeded (run ${r.runId}): the lease says it succeeded, its run record is gone`;
    case Reason.Resharded:
      return 'skipped resharded: re-fanned out for the current shard count';
    default:
      return `skipped (${r.reason ?? '-'}), run ${r.runId}`;
  }
}
