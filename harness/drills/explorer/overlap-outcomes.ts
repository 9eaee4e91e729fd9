/**
 * The overlap invariants O4 and O5 judged from a history's run records (harness/drills/explorer/
 * overlap-invariants.ts names them and runs them with the others).
 */
import { PROBLEM_REASONS } from '../../../lib/core/outcomes.js';
import { type Check, check } from '../checks.js';
import { OVERLAP_INVARIANTS } from './overlap-invariants.js';
import type { HistoryOutcome } from './run-history.js';

/** O4: every occurrence with a `buffered` record ends succeeded or with a counted problem. */
export function bufferedEnd(o: HistoryOutcome): Check {
  const buffered = new Set(
    o.records.filter((r) => r.outcome === 'buffered').map((r) => `${r.job}|${r.scheduledTime}`),
  );
  const bad: string[] = [];
  for (const k of buffered) {
    const [job, at] = k.split('|') as [string, string];
    const mine = o.records.filter((r) => r.job === job && r.scheduledTime === at);
    const ended = mine.some(
      (r) =>
        r.outcome === 'succeeded' ||
        r.outcome === 'failed' ||
        r.outcome === 'stale' ||
        PROBLEM_REASONS.includes(String(r.reason)),
    );
    const lettered = (o.lambda?.deadLetters ?? []).some(
      (x) => x.job === job && new Date(x.scheduledTimeMs).toISOString() === at,
    );
    if (!ended && !lettered)
      bad.push(`${job} ${at}: ${mine.map((r) => `${r.outcome}/${r.reason ?? ''}`).join(', ')}`);
  }
  return check(
    OVERLAP_INVARIANTS[3],
    bad.length === 0,
    bad.length
      ? `never ended: ${bad.slice(0, 3).join('; ')}`
      : `${buffered.size} buffered occurrences, each ended`,
  );
}

/** O5: under `replace` without `replaceAfterSeconds`, no arrival skipped behind a live older holder. */
export function newestWins(o: HistoryOutcome): Check {
  if (o.overlap !== 'replace' || o.overlapReplaceAfter)
    return check(OVERLAP_INVARIANTS[4], true, 'not replace at any age');
  const bad: string[] = [];
  for (const r of o.records) {
    if (r.job !== 'ex-settle' || r.outcome !== 'skipped' || r.reason !== 'overlap') continue;
    if (r.trigger === 'catch-up') continue; // a catch-up re-runs a past slot: it never replaces
    // A copy of a slot that had already succeeded has nothing to run: it replaces no one.
    const done = o.records.some(
      (x) =>
        x.job === r.job &&
        x.slot === r.slot &&
        x.outcome === 'succeeded' &&
        Number(x.finishedAtMs) <= Number(r.startedAtMs),
    );
    if (done) continue;
    const seen = r.holderSeen as { slot?: string; leaseUntilMs?: number; runId?: string } | undefined;
    const atMs = Number(r.startedAtMs);
    if (seen?.slot === undefined || !(seen.slot < String(r.slot))) continue;
    const untilMs = seen.leaseUntilMs ?? 0;
    if (untilMs >= atMs)
      bad.push(
        `${r.slot} (${r.runId}) skipped behind ${seen.runId} of ${seen.slot}, live ${untilMs - atMs} ms more`,
      );
  }
  return check(
    OVERLAP_INVARIANTS[4],
    bad.length === 0,
    bad.length ? bad.slice(0, 3).join('; ') : 'every arrival took the lease from an older live holder',
  );
}
