import { DAY_MS, formatNaiveDate, matchingDates, naiveDate, naiveMs, parseNaive } from './calendar.js';
import type { SlotSource } from './enumerate.js';
import { toExpression } from './enumerate.js';
import { dayOffsetsMs, ianaZone, resolveLocalTime, toNaive } from './zone.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** One local date on which some of a job's local times do not exist or exist twice. */
export interface DstWarning {
  /** Local date `yyyy-MM-dd` in the job's zone. */
  readonly date: string;
  /** `nonexistent`: spring-forward gap (no Scheduler invocation); `repeated`: fall-back overlap (runs once). */
  readonly kind: 'nonexistent' | 'repeated';
  /** The job's affected local times that day, `HH:mm`, ascending. */
  readonly localTimes: readonly string[];
  /** One human-readable line for synth/definition output. */
  readonly message: string;
}

function warning(
  source: Pick<SlotSource, 'timeZone'>,
  date: string,
  kind: DstWarning['kind'],
  times: string[],
): DstWarning {
  const what =
    kind === 'nonexistent'
      ? 'do not exist (DST gap): Scheduler does not invoke them'
      : 'occur twice (DST overlap): Scheduler invokes them once, at the first';
  return {
    date,
    kind,
    localTimes: times,
    message: `${date}: local time${times.length > 1 ? 's' : ''} ${times.join(', ')} in ${source.timeZone} ${what}`,
  };
}

/**
 * The dates in `[fromMs, fromMs + years)` on which the job's local times fall into a DST gap or
 * overlap of its zone — what definition/synth prints so nobody is surprised by a missing or
 * single run. Rate schedules count instants and never warn. Bounded: only days whose offset
 * changes are examined time by time.
 * @param source the job (`schedule`, `timeZone`).
 * @param fromMs start of the look-ahead, epoch ms (the caller's "now").
 * @param years how far to look ahead, in calendar years. @default 3
 * @throws InvalidScheduleError, InvalidJobDefinitionError (zone).
 * @example
 * dstWarnings({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' }, Date.UTC(2026, 0, 1))[0];
 * // { date: '2026-03-29', kind: 'nonexistent', localTimes: ['02:30'], … }
 */
export function dstWarnings(
  source: Pick<SlotSource, 'schedule' | 'timeZone'>,
  fromMs: number,
  years = 3,
): DstWarning[] {
  const expr = toExpression(source.schedule);
  const zone = ianaZone(source.timeZone);
  const fromNaive = toNaive(zone, fromMs);
  const from = naiveDate(fromNaive);
  const endNaive = Date.UTC(from.year + years, from.month - 1, from.day);
  const out: DstWarning[] = [];
  if (expr.kind === 'at') {
    const naive = parseNaive(expr.localDateTime);
    if (naive === undefined || naive < naiveMs(from) || naive >= endNaive) return out;
    const kind = resolveLocalTime(zone, naive).kind;
    if (kind !== 'unique')
      out.push(warning(source, formatNaiveDate(naive), kind, [expr.localDateTime.slice(11, 16)]));
    return out;
  }
  if (expr.kind !== 'cron') return out;
  for (const date of matchingDates(expr.fields, from, naiveDate(endNaive - DAY_MS))) {
    const dayStart = naiveMs(date);
    const { beforeMs, afterMs } = dayOffsetsMs(zone, dayStart);
    if (beforeMs === afterMs) continue;
    const byKind = { nonexistent: [] as string[], repeated: [] as string[] };
    for (const hour of expr.fields.hours) {
      for (const minute of expr.fields.minutes) {
        const kind = resolveLocalTime(zone, dayStart + hour * HOUR_MS + minute * MINUTE_MS).kind;
        if (kind !== 'unique') byKind[kind].push(`${pad(hour)}:${pad(minute)}`);
      }
    }
    const day = formatNaiveDate(dayStart);
    if (byKind.nonexistent.length > 0) out.push(warning(source, day, 'nonexistent', byKind.nonexistent));
    if (byKind.repeated.length > 0) out.push(warning(source, day, 'repeated', byKind.repeated));
  }
  return out;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
