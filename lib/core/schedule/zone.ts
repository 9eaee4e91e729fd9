/**
 * Local wall time ↔ instant in an IANA zone.
 *
 * Offsets come from the runtime's ICU through `Intl.DateTimeFormat` (the same data Lambda's Node
 * uses; no bundled tz data), always for an explicit zone, never the process time zone. (This used
 * Luxon's `IANAZone`, which does the same; reading `Intl` directly keeps ~70 KB of Luxon out of every
 * Lambda bundle — bench/cold-start.ts.) We deliberately do not let anything silently pick an instant
 * for a wall time: like `Date`, a naive conversion moves a nonexistent local time forward and picks
 * one offset for an ambiguous one. Scheduler's rules (gap → no occurrence, overlap → once, at the
 * first instant) need both facts explicit, so {@link resolveLocalTime} computes every instant a wall
 * time has — zero, one or two — from the zone's offsets.
 */
import { InvalidJobDefinitionError } from '../input-errors.js';
import { DAY_MS, MINUTE_MS } from './calendar.js';

/** An IANA time zone: its name and its UTC offset at any instant. */
export interface TimeZone {
  readonly name: string;
  /** UTC offset at `instantMs`, in minutes (local = instant + offset). */
  offset(instantMs: number): number;
}

const FIELDS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

/** A zone whose offsets are read from `Intl.DateTimeFormat` (ICU). */
class IntlZone implements TimeZone {
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    // Throws RangeError for a zone the runtime does not know.
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  offset(instantMs: number): number {
    const f: Record<string, number> = {};
    let bc = false;
    for (const part of this.format.formatToParts(instantMs)) {
      if (part.type === 'era') bc = part.value === 'BC' || part.value === 'B';
      else if ((FIELDS as readonly string[]).includes(part.type)) f[part.type] = Number(part.value);
    }
    const year = bc ? 1 - (f.year ?? 0) : (f.year ?? 0);
    const wall = new Date(0);
    wall.setUTCFullYear(year, (f.month ?? 1) - 1, f.day ?? 1);
    wall.setUTCHours((f.hour ?? 0) % 24, f.minute ?? 0, f.second ?? 0, 0);
    const wholeSecond = instantMs - (((instantMs % 1000) + 1000) % 1000);
    return (wall.getTime() - wholeSecond) / MINUTE_MS;
  }
}

const utc: TimeZone = { name: 'UTC', offset: () => 0 };
const zones = new Map<string, TimeZone>([['UTC', utc]]);

/**
 * The zone for an IANA name (cached).
 * @throws InvalidJobDefinitionError (`timeZone`) if the runtime does not know the zone.
 */
export function ianaZone(timeZone: string): TimeZone {
  let zone = zones.get(timeZone);
  if (!zone) {
    try {
      zone = new IntlZone(timeZone);
      if (Number.isNaN(zone.offset(0))) throw new RangeError(timeZone);
    } catch {
      throw new InvalidJobDefinitionError(
        'timeZone',
        timeZone,
        'is not an IANA time zone known to this runtime',
      );
    }
    zones.set(timeZone, zone);
  }
  return zone;
}

/** The zone's UTC offset at an instant, in milliseconds (local = instant + offset). */
export function offsetMs(zone: TimeZone, instantMs: number): number {
  return zone.offset(instantMs) * MINUTE_MS;
}

/** The naive local time (wall time encoded as UTC, see `calendar.ts`) of an instant. */
export function toNaive(zone: TimeZone, instantMs: number): number {
  return instantMs + offsetMs(zone, instantMs);
}

/** How a local wall time maps to instants in a zone. */
export type LocalTimeResolution =
  /** The wall time exists once. */
  | { readonly kind: 'unique'; readonly instantMs: number }
  /** Fall back: the wall time exists twice; `firstMs < secondMs`. */
  | { readonly kind: 'repeated'; readonly firstMs: number; readonly secondMs: number }
  /** Spring forward: the wall time does not exist; `gapEndMs` is the first valid instant after the gap. */
  | { readonly kind: 'nonexistent'; readonly gapEndMs: number };

/**
 * Every instant a naive local time has in a zone. Candidate offsets are the zone's offsets one
 * day before and one day after; an instant is real only if the zone's offset at it is the one
 * used to compute it. Assumes at most one transition within ±1 day (true of the IANA data in use).
 */
export function resolveLocalTime(zone: TimeZone, naive: number): LocalTimeResolution {
  const before = offsetMs(zone, naive - DAY_MS);
  const after = offsetMs(zone, naive + DAY_MS);
  const candidates = [...new Set([naive - before, naive - after])]
    .filter((instant) => offsetMs(zone, instant) === naive - instant)
    .sort((a, b) => a - b);
  const [first, second] = candidates;
  if (first !== undefined && second !== undefined)
    return { kind: 'repeated', firstMs: first, secondMs: second };
  if (first !== undefined) return { kind: 'unique', instantMs: first };
  return { kind: 'nonexistent', gapEndMs: transitionAfter(zone, naive - after, naive - before, after) };
}

/**
 * The first whole minute in `[loMs, hiMs]` at which the zone has offset `target` (binary search).
 * In a gap, `naive - after` is before the transition and `naive - before` after it.
 */
function transitionAfter(zone: TimeZone, loMs: number, hiMs: number, target: number): number {
  let lo = Math.floor(loMs / MINUTE_MS);
  let hi = Math.ceil(hiMs / MINUTE_MS);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMs(zone, mid * MINUTE_MS) === target) hi = mid;
    else lo = mid + 1;
  }
  return hi * MINUTE_MS;
}

/** Offsets lie in [-12 h, +14 h]; these bound the instants whose wall time falls on one local day. */
const MAX_OFFSET_MS = 14 * 3_600_000;
const MIN_OFFSET_MS = -12 * 3_600_000;

/**
 * The zone's offsets just before the earliest and just after the latest instant whose wall time
 * falls on the local day starting at naive `dayStartMs`. Equal offsets mean the day has no
 * transition and every wall time `t` of it is the instant `t - beforeMs`; otherwise resolve each
 * time with {@link resolveLocalTime} — all its instants lie in `[t - max, t - min]` of the two.
 */
export function dayOffsetsMs(zone: TimeZone, dayStartMs: number): { beforeMs: number; afterMs: number } {
  return {
    beforeMs: offsetMs(zone, dayStartMs - MAX_OFFSET_MS - MINUTE_MS),
    afterMs: offsetMs(zone, dayStartMs + DAY_MS - MIN_OFFSET_MS + MINUTE_MS),
  };
}
