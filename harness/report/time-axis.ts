/**
 * Wall-clock time for the timeline report: axis ticks on round UTC instants at any range (seconds to
 * weeks), each labelled in UTC and in the job's IANA zone, and instants and spans as a person reads
 * them (`2026-03-10 09:00:05Z`, `1 d 2 h 5 min`). Pure.
 */

const S = 1_000;
const MIN = 60 * S;
const H = 60 * MIN;
const D = 24 * H;

/** Tick steps, smallest first: the axis uses the smallest that gives at most {@link MAX_TICKS} intervals. */
const STEPS = [
  1 * S,
  2 * S,
  5 * S,
  10 * S,
  15 * S,
  30 * S,
  MIN,
  2 * MIN,
  5 * MIN,
  10 * MIN,
  15 * MIN,
  30 * MIN,
  H,
  2 * H,
  3 * H,
  6 * H,
  12 * H,
  D,
  2 * D,
  7 * D,
  14 * D,
  28 * D,
];
const MAX_TICKS = 8;

/** One axis tick: its instant and labels in UTC and (when a zone is given) the job's zone. */
export interface AxisTick {
  readonly atMs: number;
  readonly utc: string;
  readonly local?: string;
}

interface Parts {
  readonly date: string;
  readonly time: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Date (`2026-03-10`) and time (`09:00:05`) of an instant in a zone (UTC by default). */
function partsIn(ms: number, zone = 'UTC'): Parts {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}:${p.second}` };
}

/**
 * Ticks on round UTC instants between `startMs` and `endMs` (epoch ms): the first label, and every
 * label whose date differs from the tick before it, carries the date (`03-10 09:00`); ticks a day or
 * more apart show the date alone.
 * @param zone the job's IANA zone for the second label. @default none (UTC only)
 */
export function axisTicks(startMs: number, endMs: number, zone?: string): AxisTick[] {
  const span = Math.max(endMs - startMs, 1);
  const step = STEPS.find((s) => span / s <= MAX_TICKS) ?? (STEPS[STEPS.length - 1] as number);
  const out: AxisTick[] = [];
  let prevUtc: string | undefined;
  let prevLocal: string | undefined;
  for (let t = Math.ceil(startMs / step) * step; t <= endMs; t += step) {
    const u = partsIn(t);
    const l = zone ? partsIn(t, zone) : undefined;
    out.push({
      atMs: t,
      utc: label(u, step, prevUtc),
      ...(l && { local: label(l, step, prevLocal) }),
    });
    prevUtc = u.date;
    prevLocal = l?.date;
  }
  return out;
}

function label(p: Parts, step: number, prevDate: string | undefined): string {
  if (step >= D) return p.date;
  const time = step < MIN ? p.time : p.time.slice(0, 5);
  return p.date === prevDate ? time : `${p.date.slice(5)} ${time}`;
}

/**
 * An instant as a person reads it: `2026-03-10 09:00:05Z`, with milliseconds only when it has them,
 * and with the job's zone after it: `2026-03-10 09:00:05Z (10:00:05 Europe/Berlin)`.
 */
export function formatInstant(ms: number, zone?: string): string {
  const u = partsIn(ms);
  const frac = ms % S === 0 ? '' : `.${String(((ms % S) + S) % S).padStart(3, '0')}`;
  const utc = `${u.date} ${u.time}${frac}Z`;
  if (!zone || zone === 'UTC') return utc;
  const l = partsIn(ms, zone);
  return `${utc} (${l.date === u.date ? '' : `${l.date} `}${l.time} ${zone})`;
}

/** The local date and time of an instant in `zone`: `2026-03-10 10:00:05`. */
export function localInstant(ms: number, zone: string): string {
  const l = partsIn(ms, zone);
  return `${l.date} ${l.time}`;
}

/** A duration as a person reads it: `850 ms`, `12.5 s`, `5 min 3 s`, `2 h 1 min`, `1 d 22 h`. */
export function formatSpan(ms: number): string {
  if (ms < S) return `${Math.round(ms)} ms`;
  if (ms < MIN) return `${(ms / S).toFixed(1).replace(/\.0$/, '')} s`;
  const units: [number, string][] = [
    [D, 'd'],
    [H, 'h'],
    [MIN, 'min'],
    [S, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.round(ms / S) * S;
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${name}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
