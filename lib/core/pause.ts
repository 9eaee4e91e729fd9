/**
 * Pausing a job at its lease (docs/design.md "Pause"), pure: what a pause stored on a lease item
 * means at a given instant, the bounds on what an operator may store, and the failure streak that
 * `pauseOnFailure` counts. The claim's own condition refuses while a pause is in force, so every
 * delivery (schedule, retries, catch-up, shards, manual) is recorded `skipped / paused` at no extra
 * request; the stores turn these decisions into requests.
 */
import { InvalidArgumentError } from './input-errors.js';

/** Longest pause note, characters (the lease item stays under 1 KB: docs/design.md "Lease item size"). */
export const MAX_PAUSE_NOTE_CHARS = 200;

/** Longest `pausedBy`, characters. */
export const MAX_PAUSED_BY_CHARS = 64;

/** `pausedBy` of a pause a job wrote itself after `pauseOnFailure` consecutive failed occurrences. */
export const PAUSED_BY_FAILURES = 'pauseOnFailure';

/** A pause as stored on a lease item (all attributes top-level, `paused*`). */
export interface PauseFields {
  /** When the pause was written, epoch ms (by the writer's clock). */
  readonly pausedAtMs?: number;
  /** Who paused: an operator name, or {@link PAUSED_BY_FAILURES}. */
  readonly pausedBy?: string;
  /** Why, at most {@link MAX_PAUSE_NOTE_CHARS} characters. */
  readonly pauseNote?: string;
  /** The pause ends by itself at this instant, epoch ms; absent = until resumed. */
  readonly pausedUntilMs?: number;
  /** `pauseOnFailure` pauses: the failing runs' ids, oldest first. */
  readonly pausedRuns?: readonly string[];
  /**
   * `pauseOnFailure` jobs only: the latest failed occurrences since the last success (slot and the
   * run id of its last failed attempt), oldest first, at most `pauseOnFailure` entries.
   */
  readonly failedSlots?: readonly FailedOccurrence[];
  /** The latest resume ({@link RESUME_TRACE}): when (epoch ms), by whom, and which pause it ended. */
  readonly resumedAtMs?: number;
  readonly resumedBy?: string;
  readonly resumedPauseAtMs?: number;
}

/**
 * What a resume leaves on the job lease (`resumedAtMs`, epoch ms; `resumedBy`; `resumedPauseAtMs`, the
 * `pausedAtMs` of the pause it ended), for readers; the next pause (an operator's, or the release that
 * completes a `pauseOnFailure` streak) removes them.
 */
export const RESUME_TRACE: readonly string[] = ['resumedAtMs', 'resumedBy', 'resumedPauseAtMs'];

/** One failed occurrence of a `pauseOnFailure` job's streak. */
export interface FailedOccurrence {
  readonly slot: string;
  readonly runId: string;
}

/** A pause in force. */
export interface PauseState {
  readonly by: string;
  readonly atMs: number;
  readonly note: string;
  readonly untilMs?: number;
  readonly runIds?: readonly string[];
}

/**
 * The pause in force on `item` at `nowMs`, or undefined: a pause is in force from its write until
 * `pausedUntilMs` (exclusive of later instants), or forever without one. Matches the claim's
 * condition `attribute_not_exists(pausedAtMs) OR pausedUntilMs < now` (operations.ts `notPaused`).
 */
export function pauseInForce(item: PauseFields | undefined, nowMs: number): PauseState | undefined {
  if (item?.pausedAtMs === undefined) return undefined;
  if (item.pausedUntilMs !== undefined && item.pausedUntilMs < nowMs) return undefined;
  return {
    by: String(item.pausedBy ?? '(unknown)'),
    atMs: Number(item.pausedAtMs),
    note: String(item.pauseNote ?? ''),
    ...(item.pausedUntilMs !== undefined && { untilMs: Number(item.pausedUntilMs) }),
    ...(item.pausedRuns !== undefined && { runIds: [...item.pausedRuns].map(String) }),
  };
}

/**
 * Check what an operator asks to store. Returns the trimmed note and name.
 * @throws InvalidArgumentError naming `note` (empty or longer than {@link MAX_PAUSE_NOTE_CHARS}),
 *   `by` (empty or longer than {@link MAX_PAUSED_BY_CHARS}) or `untilMs` (not after `nowMs`).
 */
export function validatePause(
  input: { note: string; by: string; untilMs?: number },
  nowMs: number,
): { note: string; by: string } {
  const note = input.note.trim();
  if (note.length === 0 || note.length > MAX_PAUSE_NOTE_CHARS)
    throw new InvalidArgumentError(
      'note',
      input.note,
      `must be 1 to ${MAX_PAUSE_NOTE_CHARS} characters (it is stored on the lease item)`,
    );
  const by = input.by.trim();
  if (by.length === 0 || by.length > MAX_PAUSED_BY_CHARS)
    throw new InvalidArgumentError('by', input.by, `must be 1 to ${MAX_PAUSED_BY_CHARS} characters`);
  if (input.untilMs !== undefined && !(input.untilMs > nowMs))
    throw new InvalidArgumentError(
      'untilMs',
      new Date(input.untilMs).toISOString(),
      'must be in the future (a pause that already ended pauses nothing)',
    );
  return { note, by };
}

/**
 * The failure streak after an occurrence failed: its slot replaces an earlier entry of the same slot
 * (a retry of one occurrence is one failed occurrence), and only the newest `max` entries are kept.
 */
export function nextFailedSlots(
  streak: readonly FailedOccurrence[] | undefined,
  failed: FailedOccurrence,
  max: number,
): FailedOccurrence[] {
  const rest = (streak ?? []).filter((f) => f.slot !== failed.slot);
  const all = [...rest, failed];
  return all.slice(Math.max(0, all.length - max));
}

/**
 * The pause a `pauseOnFailure: n` job writes on itself after a failure, or undefined while the
 * streak is shorter than `n`.
 */
export function failurePause(
  streak: readonly FailedOccurrence[],
  n: number | undefined,
  nowMs: number,
): PauseFields | undefined {
  if (n === undefined || streak.length < n) return undefined;
  return {
    pausedAtMs: nowMs,
    pausedBy: PAUSED_BY_FAILURES,
    pauseNote:
      `paused after ${n} consecutive failed occurrences: ${streak.map((f) => f.slot).join(', ')}`.slice(
        0,
        MAX_PAUSE_NOTE_CHARS,
      ),
    pausedRuns: streak.map((f) => f.runId),
  };
}
