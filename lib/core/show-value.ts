/**
 * Values quoted in error messages.
 */

/** Quote a value for an error message, bounded so a huge payload cannot flood a log line. */
export function showValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
