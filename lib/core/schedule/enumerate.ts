import { InvalidArgumentError } from '../input-errors.js';
import { DAY_MS, MINUTE_MS, matchingDates, naiveDate, naiveMs, parseNaive } from './calendar.js';
import { type DstGapPolicy, dstGapOf, fireInstant } from './dst-gap.js';
import { parseScheduleExpression, type ScheduleExpression } from './expression.js';
import { type BusinessDateRule, makeSlot, type Slot } from './slot.js';
import { dayOffsetsMs, ianaZone, toNaive } from './zone.js';

/** The parts of a job that decide its slots. A `JobDefinition` (plus `startMs` for rate) fits. */
export interface SlotSource {
  /** EventBridge Scheduler expression, as text or parsed. */
  readonly schedule: string | ScheduleExpression;
  /** IANA zone the schedule is evaluated in. */
  readonly timeZone: string;
  /** @default 'slot-date' */
  readonly businessDate?: BusinessDateRule;
  /** @default `defaultDstGap` of the schedule (dst-gap.ts) */
  readonly dstGap?: DstGapPolicy;
  /**
   * Rate schedules only: an instant of the rate grid, epoch ms (rounded up to a whole minute:
   * Scheduler's precision) — `JobDefinition.rateAnchorMs`. Slots are `startMs + k × period` for
   * EVERY integer k, before the anchor as after it: Scheduler runs a rate schedule at `StartDate`,
   * `StartDate + period`, …, and synth deploys as StartDate the grid's first instant at or after the
   * deploy, counted back from the anchor when the anchor is later (cdk/constructs/schedule-check.ts).
   * Slots before the job's deployed start are bounded by the caller (the catch-up floor,
   * `catchUpFloorMs`), not here. Required for rate.
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

function* cronSlots(
  expr: ScheduleExpression & { kind: 'cron' },
  source: SlotSource,
  fromMs: number,
  toMs: number,
): Generator<Slot> {
  const zone = ianaZone(source.timeZone);
  const rule = source.businessDate ?? 'slot-date';
  const gap = dstGapOf(source, expr);
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
          const fire = fireInstant(zone, naive, gap);
          if (fire === undefined) continue;
          instantMs = fire.instantMs;
          shifted = fire.shifted;
          reordered ||= shifted;
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
  if (source.startMs === undefined || !Number.isFinite(source.startMs)) {
    throw new InvalidArgumentError(
      'startMs',
      source.startMs,
      'a rate schedule needs its start instant (StartDate), epoch ms',
    );
  }
  // Scheduler invokes on a one-minute grid: a start inside a minute begins at the next whole minute.
  const startMs = Math.ceil(source.startMs / MINUTE_MS) * MINUTE_MS;
  const zone = ianaZone(source.timeZone);
  const rule = source.businessDate ?? 'slot-date';
  if (!Number.isFinite(fromMs)) {
    throw new InvalidArgumentError(
      'fromMs',
      fromMs,
      'a rate grid has no first slot: give a finite start, epoch ms',
    );
  }
  // The grid runs both ways from the anchor: the first grid instant after fromMs, k possibly negative.
  const first = Math.floor((fromMs - startMs) / expr.periodMs) + 1;
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
  const fire = fireInstant(ianaZone(source.timeZone), naive, dstGapOf(source, expr));
  if (fire === undefined) return;
  const slot = makeSlot(expr, naive, fire.instantMs, source.businessDate ?? 'slot-date', fire.shifted);
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
 * @throws InvalidScheduleError, InvalidJobDefinitionError (zone), InvalidArgumentError (rate without
 *   `startMs`, or with a `fromMs` that is not finite).
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
