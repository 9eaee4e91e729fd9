/**
 * Values quoted in error messages.
 */

/** A non-finite number inside a value, as {@link showValue} marks it for JSON (and unmarks it after). */
const nonFiniteMarked = (_key: string, v: unknown): unknown =>
  typeof v === 'number' && !Number.isFinite(v) ? `\u0000${String(v)}\u0000` : v;
const NON_FINITE_MARK = /"\\u0000(NaN|-?Infinity)\\u0000"/g;

/**
 * Quote a value for an error message, bounded so a huge payload cannot flood a log line. Numbers JSON
 * cannot hold (`NaN`, `Infinity`, `-Infinity`, at the top level or inside) print as themselves, not
 * as JSON's `null`, so the message shows the value that was given.
 */
export function showValue(value: unknown): string {
  let text: string;
  try {
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
    text = value === undefined ? 'undefined' : JSON.stringify(value);
    // Only a text with `null` can hide one (the common case pays one `includes`).
    if (text.includes('null')) text = JSON.stringify(value, nonFiniteMarked).replace(NON_FINITE_MARK, '$1');
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
