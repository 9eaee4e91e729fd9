/**
 * A zone's UTC-offset changes (DST starts and ends) in a range — what `cronfence check` lists so an
 * operator sees each transition next to what it does to the job.
 */
import { DAY_MS, formatNaiveMinute, MINUTE_MS } from './calendar.js';
import { offsetMs, type TimeZone } from './zone.js';

/** One change of a zone's UTC offset. */
export interface ZoneTransition {
  /** The first instant with the new offset, epoch ms (a whole minute). */
  readonly atMs: number;
  /** Offsets before and after, ms (local = instant + offset). */
  readonly offsetBeforeMs: number;
  readonly offsetAfterMs: number;
  /** `gap`: clocks jump forward (local times in between do not exist); `overlap`: they fall back (repeat). */
  readonly kind: 'gap' | 'overlap';
  /** Local wall time `yyyy-MM-ddTHH:mm` just before the change, by the old offset (e.g. `…T02:00` in Berlin in March). */
  readonly localBefore: string;
  /** Local wall time `yyyy-MM-ddTHH:mm` at the change, by the new offset (e.g. `…T03:00`). */
  readonly localAfter: string;
}

/**
 * The transitions of `zone` in `[fromMs, toMs)`, ascending. Probes once a day and binary-searches
 * the minute of each change (assumes at most one change a day, true of the IANA data in use).
 * @example zoneTransitions(ianaZone('Europe/Berlin'), Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1))[0].localBefore;
 * // '2026-03-29T02:00'
 */
export function zoneTransitions(zone: TimeZone, fromMs: number, toMs: number): ZoneTransition[] {
  const out: ZoneTransition[] = [];
  for (let lo = fromMs; lo < toMs; lo += DAY_MS) {
    const hi = Math.min(lo + DAY_MS, toMs);
    const before = offsetMs(zone, lo);
    const after = offsetMs(zone, hi);
    if (before === after) continue;
    let a = Math.floor(lo / MINUTE_MS);
    let b = Math.ceil(hi / MINUTE_MS);
    while (a < b) {
      const mid = Math.floor((a + b) / 2);
      if (offsetMs(zone, mid * MINUTE_MS) === before) a = mid + 1;
      else b = mid;
    }
    const atMs = b * MINUTE_MS;
    out.push({
      atMs,
      offsetBeforeMs: before,
      offsetAfterMs: after,
      kind: after > before ? 'gap' : 'overlap',
      localBefore: formatNaiveMinute(atMs + before),
      localAfter: formatNaiveMinute(atMs + after),
    });
  }
  return out;
}
