/**
 * The plan of a backfill: which real slots of a job lie in `--from`..`--to` (DST-aware, from the
 * schedule module's enumeration), with every refusal of bad input (non-slot times, future times,
 * inverted ranges, too many slots) raised before anything is invoked.
 */
import { DateTime } from 'luxon';
import type { JobDefinition } from '../lib/core/job-definition.js';
import { compareSlots, iterateSlots, type SlotSource } from '../lib/core/schedule/enumerate.js';
import type { ScheduleExpression } from '../lib/core/schedule/expression.js';
import { type Slot, slotFromScheduledTime } from '../lib/core/schedule/slot.js';
import { EARLIEST_MS, EARLIEST_REASON, iso, usage } from './input.js';

/** More slots than this need `yes`. */
export const MAX_SLOTS_WITHOUT_YES = 1000;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * A local slot time: `yyyy-mm-ddTHH:mm`, or with `:00` seconds (the same minute: Scheduler's slots are
 * on whole minutes). Other seconds name no slot and are refused as malformed, never read as an instant.
 */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:00)?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A parsed range bound: the instant it stands for, and whether it was a whole local date. */
interface Bound {
  readonly ms: number;
  /** For a date: the first instant after that local day (exclusive end). */
  readonly endMs: number;
  readonly kind: 'date' | 'slot';
}

/** What a backfill will run. */
export interface BackfillPlan {
  readonly slots: readonly Slot[];
  /** Slots later today than now (a `to` date of today): not run. 0 when none is left or the range ends before now. */
  readonly laterToday: number;
  /** True when the range reaches past now (a `to` date of today) and was cut at now. */
  readonly endsNow: boolean;
  readonly fromMs: number;
  readonly toMs: number;
}

function source(def: JobDefinition, expr: ScheduleExpression, anchorMs: number): SlotSource {
  // A rate schedule counts on its grid (rateAnchorMs, from which the deployment derives StartDate).
  return { ...def, schedule: expr, startMs: def.rateAnchorMs ?? anchorMs };
}

function near(def: JobDefinition, expr: ScheduleExpression, ms: number): Slot[] {
  return [...iterateSlots(source(def, expr, ms), ms - 2 * DAY_MS, ms + 2 * DAY_MS)];
}

function nearest(slots: readonly Slot[], ms: number): string {
  const sorted = [...slots].sort(
    (a, b) => Math.abs(a.scheduledTimeMs - ms) - Math.abs(b.scheduledTimeMs - ms),
  );
  return (
    sorted
      .slice(0, 2)
      .sort(compareSlots)
      .map((s) => s.id)
      .join(', ') || 'none within 2 days'
  );
}

/**
 * Refuse a bound before 1970 (no slot is earlier: the handler refuses such times), naming it; a local
 * date or time also shows the instant it stands for in `zone`.
 */
function refuseBeforeEarliest(flag: string, value: string, ms: number, zone?: string): void {
  if (ms >= EARLIEST_MS) return;
  const at = `${new Date(ms).toISOString().slice(0, 19)}Z`;
  throw usage(
    flag,
    value,
    zone === undefined ? `is ${EARLIEST_REASON}` : `starts at ${at} in ${zone}, ${EARLIEST_REASON}`,
  );
}

/**
 * Parse `--from`/`--to`/`--slot`.
 * @throws InvalidArgumentError naming the flag and value (malformed, not a slot, before 1970).
 */
export function parseBound(flag: string, value: string, def: JobDefinition, expr: ScheduleExpression): Bound {
  const zone = def.timeZone;
  const where = `job ${def.name} (${def.schedule}, ${zone})`;
  if (DATE.test(value)) {
    const day = DateTime.fromISO(value, { zone });
    if (!day.isValid) throw usage(flag, value, 'is not a real date');
    refuseBeforeEarliest(flag, value, day.startOf('day').toMillis(), zone);
    return {
      ms: day.startOf('day').toMillis(),
      endMs: day.plus({ days: 1 }).startOf('day').toMillis(),
      kind: 'date',
    };
  }
  let candidates: Slot[];
  let match: Slot | undefined;
  if (LOCAL.test(value)) {
    const approx = DateTime.fromISO(value, { zone });
    if (!approx.isValid) throw usage(flag, value, `is not a real local date-time in ${zone}`);
    refuseBeforeEarliest(flag, value, approx.toMillis(), zone);
    candidates = near(def, expr, approx.toMillis());
    const minute = value.slice(0, 16);
    match = candidates.find((s) => s.localTime === minute);
  } else if (INSTANT.test(value) && !Number.isNaN(Date.parse(value))) {
    const ms = Date.parse(value);
    refuseBeforeEarliest(flag, value, ms);
    candidates = near(def, expr, ms);
    const id = slotFromScheduledTime(ms, expr, zone, def.businessDate).id;
    match =
      candidates.find((s) => s.scheduledTimeMs === ms) ??
      (expr.kind === 'cron' ? candidates.find((s) => s.id === id) : undefined);
  } else {
    throw usage(
      flag,
      value,
      `is not a date (yyyy-mm-dd, a whole day in ${zone}), a local slot time (yyyy-mm-ddTHH:mm in ${zone}, seconds only :00) or an ISO-8601 instant with Z or an offset`,
    );
  }
  if (!match) {
    const ms = LOCAL.test(value) ? DateTime.fromISO(value, { zone }).toMillis() : Date.parse(value);
    throw usage(flag, value, `is not a slot of ${where}; nearest slots: ${nearest(candidates, ms)}`);
  }
  return { ms: match.scheduledTimeMs, endMs: match.scheduledTimeMs + 1, kind: 'slot' };
}

/**
 * Plan a backfill of `def` from `from` to `to` (both inclusive).
 * @param nowMs the current time; slots after it are never run.
 * @throws InvalidArgumentError for malformed or non-slot bounds, future bounds, an inverted or
 *   empty range, and more than {@link MAX_SLOTS_WITHOUT_YES} slots without `yes`.
 */
export function planBackfill(
  def: JobDefinition,
  expr: ScheduleExpression,
  range: { from: string; to: string; yes?: boolean },
  nowMs: number,
): BackfillPlan {
  const from = parseBound('from', range.from, def, expr);
  const to = parseBound('to', range.to, def, expr);
  if (from.ms > nowMs)
    throw usage('from', range.from, `is in the future (now is ${iso(nowMs)}); backfill runs past slots`);
  if (to.ms > nowMs)
    throw usage('to', range.to, `is in the future (now is ${iso(nowMs)}); backfill runs past slots`);
  const fromMs = from.ms;
  const rangeEndMs = to.endMs - 1;
  if (rangeEndMs < fromMs) throw usage('to', range.to, `is before \`from\` ${range.from}`);
  const toMs = Math.min(rangeEndMs, nowMs);
  const src = source(def, expr, fromMs);
  const slots: Slot[] = [];
  for (const slot of iterateSlots(src, fromMs - 1, toMs)) {
    slots.push(slot);
    if (slots.length > MAX_SLOTS_WITHOUT_YES && !range.yes) {
      throw usage(
        'from/to',
        `${range.from}..${range.to}`,
        `has more than ${MAX_SLOTS_WITHOUT_YES.toLocaleString('en-US')} slots of job ${def.name}: narrow the range or pass \`yes: true\``,
      );
    }
  }
  if (slots.length === 0) {
    throw usage(
      'from/to',
      `${range.from}..${range.to}`,
      `contains no past slot of job ${def.name} (${def.schedule}, ${def.timeZone})`,
    );
  }
  const endsNow = toMs < rangeEndMs;
  const laterToday = endsNow ? [...iterateSlots(src, toMs, rangeEndMs)].length : 0;
  return { slots, laterToday, endsNow, fromMs, toMs };
}

/**
 * The note a backfill's summary carries when its range was cut at now: how many slots of today are
 * later than now and not included, 0 too (so the reader knows the range reached today). Empty for a
 * range that ends before now.
 */
export function laterTodayNote(plan: Pick<BackfillPlan, 'laterToday' | 'endsNow'>): string {
  return plan.endsNow ? ` (${plan.laterToday} later slot(s) today not included)` : '';
}

/**
 * The manual invocation payload for one slot: `slot` names a shifted DST-gap slot's nominal time;
 * `executionId` carries the backfill's id (stored on the run record, so its summary finds exactly its runs).
 */
export function manualEvent(
  request: { job: string; by: string; reason: string; backfillId: string },
  slot: Slot,
  shard?: number,
): Record<string, unknown> {
  return {
    job: request.job,
    scheduledTime: `${new Date(slot.scheduledTimeMs).toISOString().slice(0, 19)}Z`,
    trigger: 'manual',
    requestedBy: request.by,
    reason: request.reason,
    executionId: request.backfillId,
    ...(slot.shifted && { slot: slot.localTime }),
    ...(shard !== undefined && { shard }),
  };
}
