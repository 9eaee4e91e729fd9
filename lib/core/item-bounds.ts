/**
 * Bounds on what cronfence stores, so every item it writes stays under DynamoDB's 400 KB item limit
 * (AWS docs: "Service, account, and table quotas in Amazon DynamoDB": item size, names and values
 * included). A run record's free-form parts — the job's details, error messages — are the only parts
 * a job controls; they are cut to a fixed budget and the cut is marked, never dropped silently.
 */

/** DynamoDB's item size limit, bytes. */
export const DYNAMODB_ITEM_LIMIT_BYTES = 400 * 1024;

/**
 * Budget for a run record's `details`, bytes of JSON (UTF-8). Leaves room for the record's own
 * attributes (keys, ids, times, error summary, holder seen: under 4 KB) well inside the item limit.
 */
export const MAX_DETAILS_BYTES = 32 * 1024;

/** Budget for one error message (run records, effect records), characters. */
export const MAX_ERROR_MESSAGE_CHARS = 1_000;

/** A `details` map that did not fit its budget: what is kept of it. */
export interface TruncatedDetails {
  /** Always true: the details were cut to fit the item limit. */
  readonly truncated: true;
  /** Size of the details as the job set them, bytes of JSON. */
  readonly originalBytes: number;
  /** The first part of their JSON, at most `MAX_DETAILS_BYTES / 2` characters. */
  readonly preview: string;
  /** The detail names the job set. */
  readonly keys: readonly string[];
}

function jsonBytes(value: unknown): { text: string; bytes: number } {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } catch (err) {
    text = JSON.stringify({ unserializable: String((err as Error)?.message ?? err) });
  }
  return { text, bytes: Buffer.byteLength(text, 'utf8') };
}

/**
 * The details to store: unchanged when their JSON fits `maxBytes`, else a {@link TruncatedDetails}
 * (marked `truncated: true`, with the original size, the key names and a preview).
 * @param maxBytes budget, bytes of UTF-8 JSON. @default MAX_DETAILS_BYTES
 */
export function boundDetails(
  details: Record<string, unknown>,
  maxBytes = MAX_DETAILS_BYTES,
): Record<string, unknown> {
  const { text, bytes } = jsonBytes(details);
  if (bytes <= maxBytes) return details;
  const keys = Object.keys(details)
    .slice(0, 50)
    .map((k) => k.slice(0, 100));
  const result: TruncatedDetails = {
    truncated: true,
    originalBytes: bytes,
    preview: text.slice(0, Math.floor(maxBytes / 4)),
    keys,
  };
  return { ...result };
}

/** `text` cut to `maxChars`, the cut marked with `… (truncated, N chars)`. @default MAX_ERROR_MESSAGE_CHARS */
export function boundText(text: string, maxChars = MAX_ERROR_MESSAGE_CHARS): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (truncated, ${text.length} chars)`;
}

/**
 * An item's size as DynamoDB bills it, bytes (AWS docs "Item sizes and formats"): each attribute's
 * name (UTF-8) plus its value — strings by UTF-8 length, numbers ~1 byte per two significant digits
 * plus 1, booleans and null 1, sets the sum of their elements, lists and maps 3 bytes plus 1 per
 * element plus the elements (map keys counted like names). Write capacity is 1 WCU per started KB of
 * the larger of the item before and after a write.
 */
export function dynamoItemBytes(item: Record<string, unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    total += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return total;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let n = 0;
    for (const v of value) n += valueBytes(v);
    return n;
  }
  if (Array.isArray(value)) return 3 + value.reduce<number>((n, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object')
    return 3 + Object.keys(value).length + dynamoItemBytes(value as Record<string, unknown>);
  return 0;
}
