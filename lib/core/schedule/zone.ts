/**
 * Local wall time ↔ instant in an IANA zone.
 *
 * Why Luxon: it is maintained, small, has no bundled tz data of its own (its `IANAZone` reads
 * offsets from the runtime's ICU through `Intl`, the same data Lambda's Node uses), and it
 * works on instants plus explicit zones, never on the process time zone. We deliberately do
 * not let it (or anyone) silently pick an instant for a wall time: Luxon, like `Date`, moves a
 * nonexistent local time forward and picks one offset for an ambiguous one. Scheduler's rules
 * (gap → no occurrence, overlap → once, at the first instant) need both facts explicit, so
 * {@link resolveLocalTime} computes every instant a wall time has — zero, one or two — from
 * Luxon's offsets.
 */
import { IANAZone } from 'luxon';
import { InvalidJobDefinitionError } from '../../errors.js';
import { DAY_MS, MINUTE_MS } from './calendar.js';

const zones = new Map<string, IANAZone>();

/**
 * The Luxon zone for an IANA name (cached).
 * @throws InvalidJobDefinitionError (`timeZone`) if the runtime does not know the zone.
 */
export function ianaZone(timeZone: string): IANAZone {
  let zone = zones.get(timeZone);
  if (!zone) {
    zone = IANAZone.create(timeZone);
    if (!zone.isValid) {
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
export function offsetMs(zone: IANAZone, instantMs: number): number {
  return zone.offset(instantMs) * MINUTE_MS;
}

/** The naive local time (wall time encoded as UTC, see `calendar.ts`) of an instant. */
export function toNaive(zone: IANAZone, instantMs: number): number {
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
export function resolveLocalTime(zone: IANAZone, naive: number): LocalTimeResolution {
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
function transitionAfter(zone: IANAZone, loMs: number, hiMs: number, target: number): number {
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
export function dayOffsetsMs(zone: IANAZone, dayStartMs: number): { beforeMs: number; afterMs: number } {
  return {
    beforeMs: offsetMs(zone, dayStartMs - MAX_OFFSET_MS - MINUTE_MS),
    afterMs: offsetMs(zone, dayStartMs + DAY_MS - MIN_OFFSET_MS + MINUTE_MS),
  };
}
