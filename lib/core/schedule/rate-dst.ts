/**
 * DST and `rate()`: Scheduler counts a rate in fixed periods (`rate(1 day)` = every 24 h), not in local
 * days, so in a zone with DST a whole-day rate's local time moves by the offset change — and when that
 * crosses midnight, a business date never occurs or occurs twice. This finds those dates and the cron
 * that would run at one local time instead.
 */
import { DAY_MS, formatNaiveDate } from './calendar.js';
import { iterateSlots, type SlotSource } from './enumerate.js';
import type { ScheduleExpression } from './expression.js';
import type { Slot } from './slot.js';

/** One business date a whole-day rate misses, repeats or moves in a zone with DST. */
export interface RateDateWarning {
  /** The business date `yyyy-MM-dd`. */
  readonly date: string;
  /** `missed`: no run has it; `repeated`: two runs have it (1-day rates); `moved`: an N-day rate's step changed. */
  readonly kind: 'missed' | 'repeated' | 'moved';
  /** The two consecutive runs around it, local `yyyy-MM-ddTHH:mm`. */
  readonly between: readonly [string, string];
  /** One human-readable line. */
  readonly message: string;
}

const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

function describe(prev: Slot, cur: Slot, days: number): RateDateWarning[] {
  const step = dayNumber(cur.businessDate) - dayNumber(prev.businessDate);
  if (step === days) return [];
  const between = [prev.localTime, cur.localTime] as const;
  const runs = `runs at ${prev.localTime} and ${cur.localTime} local`;
  if (days === 1 && step === 0) {
    const date = cur.businessDate;
    return [{ date, kind: 'repeated', between, message: `business date ${date} occurs twice (${runs})` }];
  }
  if (days === 1) {
    return Array.from({ length: step - 1 }, (_, i) => {
      const date = formatNaiveDate((dayNumber(prev.businessDate) + i + 1) * DAY_MS);
      return {
        date,
        kind: 'missed' as const,
        between,
        message: `business date ${date} never occurs (${runs})`,
      };
    });
  }
  const expected = formatNaiveDate((dayNumber(prev.businessDate) + days) * DAY_MS);
  return [
    {
      date: expected,
      kind: 'moved',
      between,
      message: `business date ${expected} never occurs: the run after ${prev.businessDate} has ${cur.businessDate} (${runs})`,
    },
  ];
}

/**
 * The business dates a whole-day `rate()` (`rate(1 day)`, `rate(7 days)`, `rate(24 hours)`) misses or
 * repeats in `(fromMs, toMs]` because its zone changes offset. Other rates and other kinds: `[]`.
 * @param source the job, with its rate grid anchor `startMs` (epoch ms).
 * @example
 * rateDateWarnings({ schedule: 'rate(1 day)', timeZone: 'Europe/Berlin', startMs: Date.UTC(2026, 0, 1, 22, 30) },
 *   Date.UTC(2026, 0, 15), Date.UTC(2027, 0, 15)).map((w) => `${w.date} ${w.kind}`);
 * // ['2026-03-29 missed', '2026-10-25 repeated']
 */
export function rateDateWarnings(
  source: SlotSource & { schedule: ScheduleExpression },
  fromMs: number,
  toMs: number,
): RateDateWarning[] {
  const expr = source.schedule;
  if (expr.kind !== 'rate' || expr.periodMs % DAY_MS !== 0) return [];
  const days = expr.periodMs / DAY_MS;
  const out: RateDateWarning[] = [];
  let prev: Slot | undefined;
  for (const slot of iterateSlots(source, fromMs, toMs)) {
    if (prev) out.push(...describe(prev, slot, days));
    prev = slot;
  }
  return out;
}

/**
 * The cron that runs at `localTime`'s wall time in the zone, as a whole-day rate intends: daily for
 * 1 day, every N days from the 1st of each month for N days (restarts each month).
 * @param localTime `yyyy-MM-ddTHH:mm`.
 * @example equivalentCron(parseScheduleExpression('rate(1 day)'), '2026-03-28T23:30'); // 'cron(30 23 * * ? *)'
 */
export function equivalentCron(expr: ScheduleExpression & { kind: 'rate' }, localTime: string): string {
  const hour = Number(localTime.slice(11, 13));
  const minute = Number(localTime.slice(14, 16));
  const days = expr.periodMs / DAY_MS;
  return days === 1 ? `cron(${minute} ${hour} * * ? *)` : `cron(${minute} ${hour} 1/${days} * ? *)`;
}
