/**
 * Unit: idempotency key validation and request hashing.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  digestOf,
  MAX_EFFECT_KEY_BYTES,
  validateEffectKey,
} from '../../../lib/effects/keys.js';
import { InvalidArgumentError } from '../../../lib/errors.js';

describe('validateEffectKey', () => {
  it('allows 1976 bytes: the 2048-byte partition key limit minus "EFFECT#<64-char job>#"', () => {
    expect(MAX_EFFECT_KEY_BYTES).toBe(1976);
    expect(validateEffectKey('k'.repeat(1976))).toHaveLength(1976);
  });

  it.each([
    ['an empty key', '', 'invalid effect key "": must not be empty'],
    ['a number', 42, 'invalid effect key 42: must be a string'],
  ])('rejects %s', (_name, key, message) => {
    expect(() => validateEffectKey(key)).toThrow(InvalidArgumentError);
    expect(() => validateEffectKey(key)).toThrow(message);
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => validateEffectKey('€'.repeat(659))).toThrow(/is 1977 bytes \(UTF-8\); at most 1976 fit/);
    expect(validateEffectKey('€'.repeat(658))).toHaveLength(658);
  });
});

describe('request hashing', () => {
  it('hashes the same request built in a different property order the same', () => {
    expect(digestOf({ a: 1, b: { c: 2, d: [3, { e: 4, f: 5 }] } })).toBe(
      digestOf({ b: { d: [3, { f: 5, e: 4 }], c: 2 }, a: 1 }),
    );
  });

  it('hashes a different amount differently', () => {
    expect(digestOf({ amountCents: 100 })).not.toBe(digestOf({ amountCents: 101 }));
  });

  it('drops undefined members and serialises dates as JSON does', () => {
    expect(canonicalJson({ b: undefined, a: new Date(0) })).toBe('{"a":"1970-01-01T00:00:00.000Z"}');
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => digestOf({ n: 10n })).toThrow('invalid effect request "10": a bigint is not JSON');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => digestOf(cyclic)).toThrow(/contains a cycle/);
  });
});
