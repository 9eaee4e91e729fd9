/**
 * Interim DST check for synth-time warnings (replaced by lib/core/schedule's `dstWarnings` when
 * issue 3 lands): find the zone's offset transitions and report the dates on which one of the
 * cron's local times does not exist (spring forward: Scheduler skips it) or repeats (fall back:
 * Scheduler runs it once).
 */
import { type CronSets, dayMatches } from './cron-sets.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

function offsetMinutes(format: Intl.DateTimeFormat, instantMs: number): number {
  const name = format.formatToParts(instantMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!match) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** A wall-clock interval that is skipped (`gap`) or repeated (`overlap`) on one local date. */
interface Transition {
  readonly kind: 'gap' | 'overlap';
  /** Local date of the transition (UTC fields hold the wall-clock date). */
  readonly localDay: Date;
  /** Affected local minutes of that day: [fromMinute, toMinute). */
  readonly fromMinute: number;
  readonly toMinute: number;
}

function transitions(timeZone: string, fromMs: number, toMs: number): Transition[] {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  const out: Transition[] = [];
  let before = offsetMinutes(format, fromMs);
  // Offsets change at most a few times a year: step a day, then bisect to the minute.
  for (let t = fromMs + DAY_MS; t <= toMs; t += DAY_MS) {
    const after = offsetMinutes(format, t);
    if (after === before) continue;
    let lo = t - DAY_MS;
    let hi = t;
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
      if (offsetMinutes(format, mid) === before) lo = mid;
      else hi = mid;
    }
    const wallBefore = hi + before * MINUTE_MS; // the wall clock reading the transition jumps from
    const localDay = new Date(Math.floor(wallBefore / 86_400_000) * 86_400_000);
    const minuteOfDay = Math.round((wallBefore - localDay.getTime()) / MINUTE_MS);
    const shift = after - before;
    out.push(
      shift > 0
        ? { kind: 'gap', localDay, fromMinute: minuteOfDay, toMinute: minuteOfDay + shift }
        : { kind: 'overlap', localDay, fromMinute: minuteOfDay + shift, toMinute: minuteOfDay },
    );
    before = after;
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Warnings for the cron's local times that fall in a DST gap or overlap of `timeZone` within
 * `years` years after `fromMs`, each naming the date and local time.
 */
export function cronDstWarnings(fields: CronSets, timeZone: string, fromMs: number, years: number): string[] {
  const times = fields.hours.flatMap((h) => fields.minutes.map((m) => h * 60 + m));
  const warnings: string[] = [];
  for (const tr of transitions(timeZone, fromMs, fromMs + years * 366 * 86_400_000)) {
    if (!dayMatches(fields, tr.localDay)) continue;
    const hit = times.filter((m) => m >= tr.fromMinute && m < tr.toMinute);
    if (hit.length === 0) continue;
    const date = tr.localDay.toISOString().slice(0, 10);
    const first = hit[0] ?? 0;
    const at = `${pad(Math.floor(first / 60))}:${pad(first % 60)}${hit.length > 1 ? ` (+${hit.length - 1} more)` : ''}`;
    warnings.push(
      tr.kind === 'gap'
        ? `${date} ${at} does not exist (DST gap: Scheduler skips it)`
        : `${date} ${at} occurs twice (DST overlap: Scheduler fires it once)`,
    );
  }
  return warnings;
}
