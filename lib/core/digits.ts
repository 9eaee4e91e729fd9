/**
 * Integers written as digits in JavaScript, for the few the claim path writes on every run (a run id's
 * time, a done key's minute, a request's numbers). `Number.prototype.toString` of a number outside V8's
 * small-integer range (±2^30), or with a radix, is a call into V8's C++ runtime: 1–6 µs each on a cold
 * path against under 1 µs for these (measured on the claim path, BENCHMARKS.md section 9, "Digits
 * written in JavaScript"). Both give exactly what `toString` gives for the integers they take.
 */

/** The base-36 digits, as `Number.prototype.toString(36)` writes them (lower case). */
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** 2^30: integers below it in magnitude are V8 small integers, which `String(n)` writes without C++. */
const SMALL_INTEGER = 1_073_741_824;

/**
 * `n.toString(36)` for a non-negative safe integer (`0 <= n <= Number.MAX_SAFE_INTEGER`); any other
 * number is passed to `toString(36)` itself.
 */
export function base36(n: number): string {
  if (!(Number.isSafeInteger(n) && n >= 0)) return n.toString(36);
  let rest = n;
  let out = '';
  do {
    const digit = rest % 36;
    out = BASE36[digit] + out;
    // Exact: `rest - digit` is a multiple of 36.
    rest = (rest - digit) / 36;
  } while (rest > 0);
  return out;
}

/**
 * `String(n)` for a safe integer (`|n| <= Number.MAX_SAFE_INTEGER`; `-0` is `"0"` as there), written
 * as two small integers (the digits above and the eight below 10^8); any other number is `String(n)`.
 */
export function decimal(n: number): string {
  if (n < SMALL_INTEGER && n > -SMALL_INTEGER) return String(n);
  if (!Number.isSafeInteger(n)) return String(n);
  const magnitude = n < 0 ? -n : n;
  const low = magnitude % 100_000_000;
  const high = (magnitude - low) / 100_000_000;
  const lowDigits = String(low);
  return `${n < 0 ? '-' : ''}${String(high)}${'00000000'.slice(lowDigits.length)}${lowDigits}`;
}
