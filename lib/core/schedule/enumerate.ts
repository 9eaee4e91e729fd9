import { InvalidArgumentError } from '../../errors.js';
import { DAY_MS, MINUTE_MS, matchingDates, naiveDate, naiveMs, parseNaive } from './calendar.js';
import type { CronFields } from './cron-fields.js';
import { parseScheduleExpression, type ScheduleExpression } from './expression.js';
import { type BusinessDateRule, makeSlot, type Slot } from './slot.js';
import { dayOffsetsMs, ianaZone, resolveLocalTime, toNaive } from './zone.js';

/** What to do with a cron occurrence whose local time does not exist (DST spring-forward gap). */
export type DstGapPolicy = 'skip' | 'shift';

/** The parts of a job that decide its slots. A `JobDefinition` (plus `startMs` for rate) fits. */
export interface SlotSource {
  /** EventBridge Scheduler expression, as text or parsed. */
  readonly schedule: string | ScheduleExpression;
  /** IANA zone the schedule is evaluated in. */
  readonly timeZone: string;
  /** @default 'slot-date' */
  readonly businessDate?: BusinessDateRule;
  /** @default {@link defaultDstGap} of the schedule */
  readonly dstGap?: DstGapPolicy;
  /**
   * Rate schedules only: the instant the schedule starts counting from, epoch ms. Scheduler runs a
   * rate schedule at `StartDate`, `StartDate + period`, … (immediately at creation if no
   * `StartDate`), so the deployment must pin `StartDate` and pass it here. Required for rate.
   */
  readonly startMs?: number;
}

const HOUR_MS = 60 * MINUTE_MS;
/** Last instant a cron can fire: year field max 2199. */
const END_OF_CRON_MS = Date.UTC(2200, 0, 2);

/** Parse `schedule` if it is still text. @throws InvalidScheduleError */
export function toExpression(schedule: string | ScheduleExpression): ScheduleExpression {
  return typeof schedule === 'string' ? parseScheduleExpression(schedule) : schedule;
}

/** Whether a cron fires at most once per local day (one minute value and one hour value). */
export function isAtMostDaily(fields: CronFields): boolean {
  return fields.minutes.length === 1 && fields.hours.length === 1;
}

/**
 * The default `dstGap` (docs/design.md "Time"): `shift` for crons firing at most once a day (a
 * settlement day must not vanish) and for one-time `at()` schedules; `skip` otherwise, as
 * Scheduler does. Rate schedules never meet a gap (they count instants).
 */
export function defaultDstGap(expr: ScheduleExpression): DstGapPolicy {
  if (expr.kind === 'cron') return isAtMostDaily(expr.fields) ? 'shift' : 'skip';
  return expr.kind === 'at' ? 'shift' : 'skip';
}

function* cronSlots(
  expr: ScheduleExpression & { kind: 'cron' },
  source: SlotSource,
  fromMs: number,
  toMs: number,
): Generator<Slot> {
  const zone = ianaZone(source.timeZone);
  const rule = source.businessDate ?? 'slot-date';
  const gap = source.dstGap ?? defaultDstGap(expr);
  const { hours, minutes } = expr.fields;
  // One local day of margin each side: every wall time that can land in (from, to] is visited.
  const firstDay = naiveDate(toNaive(zone, fromMs) - DAY_MS);
  const lastDay = naiveDate(toNaive(zone, Math.min(toMs, END_OF_CRON_MS)) + DAY_MS);
  for (const date of matchingDates(expr.fields, firstDay, lastDay)) {
    const dayStart = naiveMs(date);
    const { beforeMs, afterMs } = dayOffsetsMs(zone, dayStart);
    const loOffsetMs = Math.min(beforeMs, afterMs);
    const hiOffsetMs = Math.max(beforeMs, afterMs);
    const day: Slot[] = [];
    let reordered = false;
    for (const hour of hours) {
      for (const minute of minutes) {
        const naive = dayStart + hour * HOUR_MS + minute * MINUTE_MS;
        let instantMs: number;
        let shifted = false;
        if (beforeMs === afterMs) {
          instantMs = naive - beforeMs;
        } else {
          // A transition day: resolve only wall times whose instants can reach the range.
          if (naive - hiOffsetMs > toMs) break;
          if (naive - loOffsetMs <= fromMs) continue;
          const r = resolveLocalTime(zone, naive);
          if (r.kind === 'nonexistent') {
            if (gap === 'skip') continue;
            instantMs = r.gapEndMs;
            shifted = reordered = true;
          } else {
            instantMs = r.kind === 'unique' ? r.instantMs : r.firstMs;
          }
        }
        if (instantMs > fromMs && instantMs <= toMs)
          day.push(makeSlot(expr, naive, instantMs, rule, shifted));
      }
    }
    // Shifted slots share the gap-end instant with each other and with the first real time after it.
    if (reordered) day.sort(compareSlots);
    yield* day;
  }
}

function* rateSlots(
  expr: ScheduleExpression & { kind: 'rate' },
  source: SlotSource,
  fromMs: number,
  toMs: number,
): Generator<Slot> {
  const startMs = source.startMs;
  if (startMs === undefined || !Number.isFinite(startMs)) {
    throw new InvalidArgumentError(
      'startMs',
      startMs,
      'a rate schedule needs its start instant (StartDate), epoch ms',
    );
  }
  const zone = ianaZone(source.timeZone);
  const rule = source.businessDate ?? 'slot-date';
  const first = fromMs < startMs ? 0 : Math.floor((fromMs - startMs) / expr.periodMs) + 1;
  for (let k = first; ; k++) {
    const instantMs = startMs + k * expr.periodMs;
    if (instantMs > toMs) return;
    yield makeSlot(expr, toNaive(zone, instantMs), instantMs, rule);
  }
}

function* atSlots(
  expr: ScheduleExpression & { kind: 'at' },
  source: SlotSource,
  fromMs: number,
  toMs: number,
): Generator<Slot> {
  const naive = parseNaive(expr.localDateTime) ?? Number.NaN;
  const r = resolveLocalTime(ianaZone(source.timeZone), naive);
  const rule = source.businessDate ?? 'slot-date';
  let slot: Slot;
  if (r.kind === 'nonexistent') {
    if ((source.dstGap ?? defaultDstGap(expr)) === 'skip') return;
    slot = makeSlot(expr, naive, r.gapEndMs, rule, true);
  } else {
    slot = makeSlot(expr, naive, r.kind === 'unique' ? r.instantMs : r.firstMs, rule);
  }
  if (slot.scheduledTimeMs > fromMs && slot.scheduledTimeMs <= toMs) yield slot;
}

/** Order slots by instant, then by id (shifted slots can share an instant). */
export function compareSlots(a: Slot, b: Slot): number {
  return a.scheduledTimeMs - b.scheduledTimeMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Lazily yield a job's slots whose `scheduledTimeMs` lies in the half-open interval
 * **(fromMs, toMs]** — after `fromMs`, up to and including `toMs` — in ascending order, with
 * Scheduler's DST rules: a nonexistent local time yields nothing (`dstGap: 'skip'`) or one slot
 * flagged `shifted` at the first valid instant after the gap, with its nominal id (`'shift'`);
 * a repeated local time yields one slot at its first instant. Instants are strictly increasing
 * except that shifted slots may share the gap-end instant (ties ordered by id); ids never repeat.
 * Work is bounded by the matching days (years and months the cron excludes are jumped over), not
 * by minutes in the range. `toMs` may be `Infinity` for an open-ended stream (the emulator).
 * @param fromMs exclusive lower bound, epoch ms.
 * @param toMs inclusive upper bound, epoch ms.
 * @throws InvalidScheduleError, InvalidJobDefinitionError (zone), InvalidArgumentError (rate without `startMs`).
 * @example
 * const it = iterateSlots({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' }, nowMs, Infinity);
 */
export function* iterateSlots(source: SlotSource, fromMs: number, toMs: number): Generator<Slot> {
  if (Number.isNaN(fromMs) || Number.isNaN(toMs)) {
    throw new InvalidArgumentError('range', [fromMs, toMs], 'fromMs and toMs must be numbers');
  }
  const expr = toExpression(source.schedule);
  if (toMs <= fromMs) return;
  if (expr.kind === 'cron') yield* cronSlots(expr, source, fromMs, toMs);
  else if (expr.kind === 'rate') yield* rateSlots(expr, source, fromMs, toMs);
  else yield* atSlots(expr, source, fromMs, toMs);
}

/**
 * A job's slots in **(fromMs, toMs]** as an array; see {@link iterateSlots} for the rules.
 * @example
 * enumerateSlots({ schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' },
 *   Date.UTC(2026, 2, 28, 1, 30), Date.UTC(2026, 2, 31, 6)).map((s) => s.businessDate);
 * // ['2026-03-29' (shifted, 01:00Z), '2026-03-30', '2026-03-31']
 */
export function enumerateSlots(source: SlotSource, fromMs: number, toMs: number): Slot[] {
  if (!Number.isFinite(toMs)) {
    throw new InvalidArgumentError(
      'toMs',
      toMs,
      'enumerateSlots needs a finite end; use iterateSlots to stream',
    );
  }
  return [...iterateSlots(source, fromMs, toMs)];
}
