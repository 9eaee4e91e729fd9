/**
 * Idempotency keys and request hashing for effect records: a key is validated before any write, and a
 * request is identified by the sha256 of its canonical JSON (object keys sorted), so the same request
 * built in a different property order hashes the same.
 */
import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../core/input-errors.js';
import { Keys } from '../store/schema.js';

/** DynamoDB's limit on a partition key value, bytes (UTF-8). */
export const MAX_PARTITION_KEY_BYTES = 2048;

/**
 * Longest idempotency key, bytes (UTF-8): the partition key limit minus the `EFFECT#<job>#` prefix
 * for the longest job name (64).
 */
export const MAX_EFFECT_KEY_BYTES = MAX_PARTITION_KEY_BYTES - Keys.effect('j'.repeat(64), '').pk.length;

/**
 * Check an idempotency key before anything is written or sent.
 * @returns the key.
 * @throws InvalidArgumentError for a non-string, empty, or over-long key (naming its byte length).
 */
export function validateEffectKey(key: unknown): string {
  if (typeof key !== 'string') throw new InvalidArgumentError('effect key', key, 'must be a string');
  if (key.length === 0) throw new InvalidArgumentError('effect key', key, 'must not be empty');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_EFFECT_KEY_BYTES) {
    throw new InvalidArgumentError(
      'effect key',
      key,
      `is ${bytes} bytes (UTF-8); at most ${MAX_EFFECT_KEY_BYTES} fit in a DynamoDB partition key after "EFFECT#<job>#"`,
    );
  }
  return key;
}

/**
 * Canonical JSON: object keys sorted at every level, `undefined` members dropped (as JSON does).
 * @throws InvalidArgumentError for values JSON cannot represent (functions, bigint, cycles).
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<unknown>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
      throw new InvalidArgumentError('effect request', String(v), `a ${typeof v} is not JSON`);
    }
    if (v === null || typeof v !== 'object') return v;
    const toJson = (v as { toJSON?: () => unknown }).toJSON;
    if (typeof toJson === 'function') return walk(toJson.call(v));
    if (seen.has(v)) throw new InvalidArgumentError('effect request', '[cycle]', 'contains a cycle');
    seen.add(v);
    const out = Array.isArray(v)
      ? v.map(walk)
      : Object.fromEntries(
          Object.keys(v)
            .sort()
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .map((k) => [k, walk((v as Record<string, unknown>)[k])]),
        );
    seen.delete(v);
    return out;
  };
  return JSON.stringify(walk(value)) ?? 'null';
}

/** sha256 (hex) of a value's canonical JSON: the stored `requestHash` and `responseDigest`. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
