import { InvalidScheduleError } from '../input-errors.js';

/**
 * The six fields of an EventBridge Scheduler cron expression, parsed into sets a matcher can
 * test without re-reading the text. Numeric sets are sorted ascending and duplicate-free.
 */
export interface CronFields {
  /** Minutes 0–59. */
  readonly minutes: readonly number[];
  /** Hours 0–23. */
  readonly hours: readonly number[];
  /** Day-of-month rule (`?` → `any`). */
  readonly daysOfMonth: DayOfMonthField;
  /** Months 1–12. */
  readonly months: readonly number[];
  /** Day-of-week rule (`?` → `any`); days numbered as Scheduler does: 1 = SUN … 7 = SAT. */
  readonly daysOfWeek: DayOfWeekField;
  /** Years 1970–2199. */
  readonly years: readonly number[];
}

/** Day-of-month field: `?`, a set of days, `L` (last day), `LW` (last weekday) or `nW` (weekday nearest day n). */
export type DayOfMonthField =
  | { readonly kind: 'any' }
  | { readonly kind: 'days'; readonly days: readonly number[] }
  | { readonly kind: 'last' }
  | { readonly kind: 'last-weekday' }
  | { readonly kind: 'nearest-weekday'; readonly day: number };

/** Day-of-week field (1 = SUN … 7 = SAT): `?`, a set of days, `nL` (last n of the month) or `n#k` (k-th n of the month). */
export type DayOfWeekField =
  | { readonly kind: 'any' }
  | { readonly kind: 'days'; readonly days: readonly number[] }
  | { readonly kind: 'last-of-month'; readonly day: number }
  | { readonly kind: 'nth-of-month'; readonly day: number; readonly nth: number };

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  readonly part: string;
  readonly min: number;
  readonly max: number;
  /** Largest step Scheduler (Quartz) accepts. */
  readonly maxStep: number;
  readonly names?: readonly string[];
  readonly allowStep: boolean;
}

const SPECS = {
  minutes: { part: 'minutes', min: 0, max: 59, maxStep: 59, allowStep: true },
  hours: { part: 'hours', min: 0, max: 23, maxStep: 23, allowStep: true },
  daysOfMonth: { part: 'day-of-month', min: 1, max: 31, maxStep: 31, allowStep: true },
  months: { part: 'month', min: 1, max: 12, maxStep: 12, names: MONTH_NAMES, allowStep: true },
  daysOfWeek: { part: 'day-of-week', min: 1, max: 7, maxStep: 7, names: DAY_NAMES, allowStep: false },
  years: { part: 'year', min: 1970, max: 2199, maxStep: 229, allowStep: true },
} as const satisfies Record<keyof CronFields, FieldSpec>;

type Fail = (part: string, problem: string) => never;

function parseValue(token: string, spec: FieldSpec, fail: Fail): number {
  const upper = token.toUpperCase();
  const named = spec.names?.indexOf(upper) ?? -1;
  if (named >= 0) return spec.min + named;
  if (!/^\d{1,4}$/.test(token)) {
    const names = spec.names ? ` or ${spec.names[0]}-${spec.names[spec.names.length - 1]}` : '';
    fail(spec.part, `"${token}" is not a number ${spec.min}-${spec.max}${names}`);
  }
  const value = Number(token);
  if (value < spec.min || value > spec.max) {
    fail(spec.part, `${value} is outside ${spec.min}-${spec.max}`);
  }
  return value;
}

/** Parse one comma-separated item: `*`, `n`, `a-b`, with an optional `/step`. */
function parseItem(item: string, spec: FieldSpec, fail: Fail, into: Set<number>): void {
  const [range = '', stepText, extra] = item.split('/');
  if (extra !== undefined || range === '') fail(spec.part, `"${item}" is not a value, range or step`);
  let start: number;
  let end: number;
  if (range === '*') {
    start = spec.min;
    end = spec.max;
  } else if (range.includes('-')) {
    const [a = '', b = '', more] = range.split('-');
    if (more !== undefined || a === '' || b === '') fail(spec.part, `"${range}" is not a range a-b`);
    start = parseValue(a, spec, fail);
    end = parseValue(b, spec, fail);
    if (start > end) fail(spec.part, `range "${range}" runs backwards`);
  } else {
    start = parseValue(range, spec, fail);
    // `a/n` means a, a+n, … up to the field's maximum.
    end = stepText === undefined ? start : spec.max;
  }
  let step = 1;
  if (stepText !== undefined) {
    if (!spec.allowStep) fail(spec.part, `"/" is not allowed in ${spec.part}`);
    if (!/^\d{1,3}$/.test(stepText) || Number(stepText) < 1 || Number(stepText) > spec.maxStep) {
      fail(spec.part, `step "${stepText}" must be an integer 1-${spec.maxStep}`);
    }
    step = Number(stepText);
  }
  for (let v = start; v <= end; v += step) into.add(v);
}

function parseSet(text: string, spec: FieldSpec, fail: Fail): number[] {
  if (text === '') fail(spec.part, 'is empty');
  const values = new Set<number>();
  for (const item of text.split(',')) parseItem(item, spec, fail, values);
  return [...values].sort((a, b) => a - b);
}

function parseDayOfMonth(text: string, fail: Fail): DayOfMonthField {
  const spec = SPECS.daysOfMonth;
  const upper = text.toUpperCase();
  if (upper === '?') return { kind: 'any' };
  if (upper === 'L') return { kind: 'last' };
  if (upper === 'LW') return { kind: 'last-weekday' };
  if (upper.endsWith('W')) {
    if (!/^\d{1,2}W$/.test(upper)) fail(spec.part, `"${text}": W takes one day, as in 15W`);
    return { kind: 'nearest-weekday', day: parseValue(upper.slice(0, -1), spec, fail) };
  }
  if (/[LW]/.test(upper)) fail(spec.part, `"${text}": L and W cannot be combined with lists or ranges`);
  return { kind: 'days', days: parseSet(text, spec, fail) };
}

function parseDayOfWeek(text: string, fail: Fail): DayOfWeekField {
  const spec = SPECS.daysOfWeek;
  const upper = text.toUpperCase();
  if (upper === '?') return { kind: 'any' };
  // A lone L is the last day of the week: Saturday.
  if (upper === 'L') return { kind: 'days', days: [7] };
  if (upper.includes('#')) {
    const match = /^([A-Z]{3}|\d)#(\d)$/.exec(upper);
    if (!match)
      fail(spec.part, `"${text}": # takes one day and one week number, as in 3#2 (only one # expression)`);
    const nth = Number(match[2]);
    if (nth < 1 || nth > 5) fail(spec.part, `"${text}": week number must be 1-5`);
    return { kind: 'nth-of-month', day: parseValue(match[1] ?? '', spec, fail), nth };
  }
  if (upper.endsWith('L')) {
    const match = /^([A-Z]{3}|\d)L$/.exec(upper);
    if (!match) fail(spec.part, `"${text}": L takes one day, as in 6L`);
    return { kind: 'last-of-month', day: parseValue(match[1] ?? '', spec, fail) };
  }
  if (upper.includes('L')) fail(spec.part, `"${text}": L cannot be combined with lists or ranges`);
  return { kind: 'days', days: parseSet(text, spec, fail) };
}

/**
 * Parse the six space-separated fields inside `cron(...)`.
 * @param expression the whole expression, quoted in errors.
 * @param body the text between the parentheses.
 * @throws InvalidScheduleError naming the field (`minutes`, `day-of-week`, …) and the problem.
 */
export function parseCronFields(expression: string, body: string): CronFields {
  const fail: Fail = (part, problem) => {
    throw new InvalidScheduleError(expression, part, problem);
  };
  const parts = body.trim().split(/ +/);
  if (parts.length !== 6) {
    fail(
      'fields',
      `expected 6 fields (minutes hours day-of-month month day-of-week year), found ${parts.length}`,
    );
  }
  const [min = '', hour = '', dom = '', month = '', dow = '', year = ''] = parts;
  // Parsed left to right so the error names the first bad field.
  const minutes = parseSet(min, SPECS.minutes, fail);
  const hours = parseSet(hour, SPECS.hours, fail);
  const daysOfMonth = parseDayOfMonth(dom, fail);
  const months = parseSet(month, SPECS.months, fail);
  const daysOfWeek = parseDayOfWeek(dow, fail);
  const years = parseSet(year, SPECS.years, fail);
  if ((daysOfMonth.kind === 'any') === (daysOfWeek.kind === 'any')) {
    fail('day-of-month/day-of-week', 'exactly one of the two day fields must be "?"');
  }
  return { minutes, hours, daysOfMonth, months, daysOfWeek, years };
}
