/**
 * The DST gap policy — the one place that decides when a nominal local wall time fires (docs/design.md
 * "Time"): a time that exists once fires then; a repeated time (fall-back overlap) fires once, at its
 * first instant, as Scheduler does; a nonexistent time (spring-forward gap) is skipped (`skip`, as
 * Scheduler does) or runs at the first valid instant after the gap (`shift`, caught up by the sweeper).
 */
import type { CronFields } from './cron-fields.js';
import type { ScheduleExpression } from './expression.js';
import { resolveLocalTime, type TimeZone } from './zone.js';

/** The DST gap policies, for validation and messages. */
export const DST_GAP_POLICIES = ['skip', 'shift'] as const;

/** What to do with an occurrence whose local time does not exist (DST spring-forward gap). */
export type DstGapPolicy = (typeof DST_GAP_POLICIES)[number];

/** Whether a cron fires at most once per local day (one minute value and one hour value). */
export function isAtMostDaily(fields: CronFields): boolean {
  return fields.minutes.length === 1 && fields.hours.length === 1;
}

/**
 * The default policy: `shift` for crons firing at most once a day (a settlement day must not
 * vanish) and for one-time `at()` schedules; `skip` otherwise, as Scheduler does. Rate schedules
 * never meet a gap (they count instants).
 */
export function defaultDstGap(expr: ScheduleExpression): DstGapPolicy {
  if (expr.kind === 'cron') return isAtMostDaily(expr.fields) ? 'shift' : 'skip';
  return expr.kind === 'at' ? 'shift' : 'skip';
}

/** A job's policy: its own `dstGap`, else {@link defaultDstGap} of its schedule. */
export function dstGapOf(
  job: { readonly dstGap?: DstGapPolicy | undefined },
  expr: ScheduleExpression,
): DstGapPolicy {
  return job.dstGap ?? defaultDstGap(expr);
}

/** When a nominal local time fires: its instant, epoch ms, and whether it was moved past a gap. */
export interface FireInstant {
  readonly instantMs: number;
  /** Set when the local time does not exist and `shift` moved it to the gap's end. */
  readonly shifted: boolean;
}

/**
 * When the nominal local wall time `naive` (naive ms, see calendar.ts) fires in `zone` under `policy`.
 * @returns the unique or first instant; the gap end (`shifted`) for a nonexistent time under `shift`;
 *   `undefined` for a nonexistent time under `skip` (no occurrence).
 * @example
 * fireInstant(ianaZone('Europe/Berlin'), Date.UTC(2026, 2, 29, 2, 30), 'shift');
 * // { instantMs: Date.UTC(2026, 2, 29, 1, 0), shifted: true }
 */
export function fireInstant(zone: TimeZone, naive: number, policy: DstGapPolicy): FireInstant | undefined {
  const r = resolveLocalTime(zone, naive);
  if (r.kind === 'unique') return { instantMs: r.instantMs, shifted: false };
  if (r.kind === 'repeated') return { instantMs: r.firstMs, shifted: false };
  return policy === 'skip' ? undefined : { instantMs: r.gapEndMs, shifted: true };
}
