/**
 * Synth-time checks of a job's schedule: the ONE place the CDK app validates an expression and
 * zone, measures the schedule's period (for the "no successful run" alarm) and collects DST
 * warnings. Interim implementation until lib/core/schedule (issue 3) lands in main; then
 * `parseExpression` becomes `parseScheduleExpression` and `dstWarnings` the library's.
 */
import { validateTimeZone } from '../../lib/core/job-definition.js';
import { InvalidScheduleError } from '../../lib/errors.js';
import { type CronSets, dayMatches } from './cron-sets.js';
import { cronDstWarnings } from './dst-check.js';

export type { CronSets } from './cron-sets.js';

/** A parsed schedule expression, reduced to what the CDK app needs. */
export type ParsedSchedule =
  | { readonly kind: 'cron'; readonly fields: CronSets }
  | { readonly kind: 'rate'; readonly periodSeconds: number }
  | { readonly kind: 'at' };

/** Result of {@link checkSchedule}. */
export interface ScheduleCheck {
  /** The canonical zone name. */
  readonly timeZone: string;
  /** Longest gap between two occurrences, in seconds; `undefined` for a one-time `at()`. */
  readonly periodSeconds: number | undefined;
  /** DST gap/overlap warnings naming the dates (empty for rate/at). */
  readonly warnings: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const RATE = /^(\d+) (minute|minutes|hour|hours|day|days)$/;
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const UNIT_SECONDS: Record<string, number> = { minute: 60, hour: 3600, day: 86400 };

function expand(expr: string, part: string, text: string, min: number, max: number, names: string[] = []) {
  const num = (s: string) => {
    const i = names.indexOf(s.toUpperCase());
    const n = i >= 0 ? i + min : /^\d+$/.test(s) ? Number(s) : Number.NaN;
    if (!(n >= min && n <= max)) throw new InvalidScheduleError(expr, part, `"${s}" is not in ${min}-${max}`);
    return n;
  };
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!(step >= 1))
      throw new InvalidScheduleError(expr, part, `step "${stepText}" must be a positive integer`);
    const [lo, hi] =
      range === '*' ? [min, max] : range.includes('-') ? range.split('-').map(num) : [num(range), undefined];
    const end = hi ?? (stepText === undefined ? lo : max);
    if (lo === undefined || end === undefined || end < lo)
      throw new InvalidScheduleError(expr, part, `"${item}" is not a valid range`);
    for (let v = lo; v <= end; v += step) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

function dayRule(expr: string, part: string, text: string, max: number, names?: string[]) {
  if (text === '?') return 'any' as const;
  if (/[LW#]/.test(text)) return 'special' as const;
  return text === '*' ? ('any' as const) : expand(expr, part, text, 1, max, names);
}

/**
 * Parse an EventBridge Scheduler expression (interim subset of issue 3's parser).
 * @throws InvalidScheduleError naming the part.
 */
export function parseExpression(expression: string): ParsedSchedule {
  const match = /^(cron|rate|at)\((.*)\)$/.exec(expression);
  if (!match)
    throw new InvalidScheduleError(expression, 'expression', 'expected cron(...), rate(...) or at(...)');
  const [, kind, body = ''] = match;
  if (kind === 'rate') {
    const rate = RATE.exec(body);
    const value = Number(rate?.[1]);
    const unit = rate?.[2] ?? '';
    if (!rate || value < 1 || unit.endsWith('s') !== value > 1) {
      throw new InvalidScheduleError(
        expression,
        'rate',
        'expected rate(1 minute|hour|day) or rate(n minutes|hours|days)',
      );
    }
    return { kind: 'rate', periodSeconds: value * (UNIT_SECONDS[unit.replace(/s$/, '')] ?? 0) };
  }
  if (kind === 'at') {
    if (!AT.test(body)) throw new InvalidScheduleError(expression, 'at', 'expected at(yyyy-mm-ddThh:mm:ss)');
    return { kind: 'at' };
  }
  const parts = body.trim().split(/\s+/);
  if (parts.length !== 6)
    throw new InvalidScheduleError(expression, 'fields', `expected 6 fields, got ${parts.length}`);
  const [min = '', hour = '', dom = '', month = '', dow = '', year = ''] = parts;
  if ((dom === '?') === (dow === '?')) {
    throw new InvalidScheduleError(expression, 'day-of-month/day-of-week', 'exactly one of them must be "?"');
  }
  if (year !== '*') expand(expression, 'year', year, 1970, 2199);
  return {
    kind: 'cron',
    fields: {
      minutes: expand(expression, 'minutes', min, 0, 59),
      hours: expand(expression, 'hours', hour, 0, 23),
      daysOfMonth: dayRule(expression, 'day-of-month', dom, 31),
      months: expand(expression, 'month', month, 1, 12, MONTHS),
      daysOfWeek: dayRule(expression, 'day-of-week', dow, 7, DAYS),
    },
  };
}

/** Longest gap between two consecutive occurrences of a cron, in seconds (calendar of 2027–2028). */
function cronPeriodSeconds(fields: CronSets): number {
  const times = fields.hours.flatMap((h) => fields.minutes.map((m) => h * 60 + m)).sort((a, b) => a - b);
  const first = times[0] ?? 0;
  const last = times[times.length - 1] ?? 0;
  let maxGap = 0;
  for (let i = 1; i < times.length; i++) maxGap = Math.max(maxGap, (times[i] ?? 0) - (times[i - 1] ?? 0));
  let previousDay: number | undefined;
  for (let d = 0; d < 731; d++) {
    const day = new Date(Date.UTC(2027, 0, 1 + d));
    if (!dayMatches(fields, day)) continue;
    if (previousDay !== undefined) maxGap = Math.max(maxGap, (d - previousDay) * 1440 - last + first);
    previousDay = d;
  }
  return maxGap * 60;
}

/** Longest gap between two occurrences, in seconds; `undefined` for `at()`. */
export function periodSeconds(parsed: ParsedSchedule): number | undefined {
  if (parsed.kind === 'rate') return parsed.periodSeconds;
  if (parsed.kind === 'at') return undefined;
  return cronPeriodSeconds(parsed.fields);
}

/**
 * Validate a job's expression and zone, measure its period and list DST warnings for the next
 * three years from `nowMs`.
 * @throws InvalidScheduleError (expression) or InvalidJobDefinitionError (`timeZone`).
 */
export function checkSchedule(expression: string, timeZone: string, nowMs: number): ScheduleCheck {
  const zone = validateTimeZone(timeZone);
  const parsed = parseExpression(expression);
  const warnings = parsed.kind === 'cron' ? cronDstWarnings(parsed.fields, zone, nowMs, 3) : [];
  return { timeZone: zone, periodSeconds: periodSeconds(parsed), warnings };
}
