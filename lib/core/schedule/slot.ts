/**
 * Slot identity (DESIGN.md "Time"): the occurrence Scheduler meant, from
 * `<aws.scheduler.scheduled-time>`, never the invocation time. For cron schedules the identity is
 * the local wall-clock minute in the job's zone (Scheduler counts occurrences that way, so both
 * instants of a repeated local time are one slot); for rate/at schedules it is the UTC instant.
 * Pure: uses the runtime's ICU zone data through Intl, independent of the process TZ.
 */

/** One scheduled occurrence of a job. */
export interface Slot {
  /** Identity: `yyyy-MM-ddTHH:mm` (cron, local) or `yyyy-MM-ddTHH:mm:ssZ` (rate/at, UTC). */
  readonly id: string;
  /** The instant the slot runs at (Scheduler's scheduled time, or the first valid instant after a DST gap), epoch ms. */
  readonly scheduledTimeMs: number;
  /** Local wall time in the job's zone, `yyyy-MM-ddTHH:mm` (nominal, for a shifted slot). */
  readonly localTime: string;
  /** The business date the job works on, `yyyy-MM-dd`. */
  readonly businessDate: string;
  /** True when the local time does not exist (DST gap) and the slot was shifted to the first valid instant after it. */
  readonly shifted?: boolean;
}

/** Which local date a slot's business date is. */
export type BusinessDateRule = 'slot-date' | 'previous-day';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The local wall-clock minute of an instant in a zone, `yyyy-MM-ddTHH:mm`. */
export function localMinute(instantMs: number, timeZone: string): string {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(instantMs)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** The calendar date before `date` (`yyyy-MM-dd`), proleptic Gregorian. */
export function previousDate(date: string): string {
  const ms = Date.parse(`${date}T00:00:00Z`) - 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

function businessDateOf(localTime: string, rule: BusinessDateRule): string {
  const date = localTime.slice(0, 10);
  return rule === 'previous-day' ? previousDate(date) : date;
}

/**
 * The slot a Scheduler delivery (or a manual request) names.
 * @param scheduledTimeMs `<aws.scheduler.scheduled-time>` as epoch ms.
 * @param expr the parsed schedule (only its kind matters here).
 * @param timeZone the job's IANA zone.
 * @param rule business-date rule. @default 'slot-date'
 */
export function slotFromScheduledTime(
  scheduledTimeMs: number,
  expr: { readonly kind: 'cron' | 'rate' | 'at' },
  timeZone: string,
  rule: BusinessDateRule = 'slot-date',
): Slot {
  const localTime = localMinute(scheduledTimeMs, timeZone);
  const id = expr.kind === 'cron' ? localTime : `${new Date(scheduledTimeMs).toISOString().slice(0, 19)}Z`;
  return { id, scheduledTimeMs, localTime, businessDate: businessDateOf(localTime, rule) };
}

/**
 * A cron slot named by its nominal local time — used for a shifted DST-gap slot, whose local time
 * does not exist, run at `runAtMs` (the first valid instant after the gap).
 */
export function slotFromLocalTime(
  localTime: string,
  runAtMs: number,
  timeZone: string,
  rule: BusinessDateRule = 'slot-date',
): Slot {
  const shifted = localMinute(runAtMs, timeZone) !== localTime;
  return {
    id: localTime,
    scheduledTimeMs: runAtMs,
    localTime,
    businessDate: businessDateOf(localTime, rule),
    ...(shifted && { shifted }),
  };
}
