/**
 * The digits the claim path writes in JavaScript are exactly `Number.prototype.toString`'s: for every
 * safe integer (base 10 and base 36), at the edges of V8's small-integer range and of the safe range,
 * and for the numbers they hand to `toString` itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base36, decimal } from '../../lib/core/digits.js';

const EDGES = [
  0,
  -0,
  1,
  -1,
  35,
  36,
  99_999_999,
  100_000_000,
  100_000_001,
  2 ** 30 - 1,
  2 ** 30,
  -(2 ** 30),
  -(2 ** 30) - 1,
  2 ** 31,
  1_764_950_400_000,
  -1_764_950_400_000,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
];

describe('decimal', () => {
  it.each(EDGES)('writes %d as String does', (n) => {
    expect(decimal(n)).toBe(String(n));
  });

  it('writes every safe integer as String does', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => decimal(n) === String(n)),
      { numRuns: 20_000 },
    );
  });

  it.each([0.5, -2.25, 2 ** 53, -(2 ** 53) - 2, 1e21, 1.5e-7, Number.NaN, Number.POSITIVE_INFINITY])(
    'hands %d to String',
    (n) => {
      expect(decimal(n)).toBe(String(n));
    },
  );
});

describe('base36', () => {
  it.each(EDGES.filter((n) => n >= 0))('writes %d as toString(36) does', (n) => {
    expect(base36(n)).toBe(n.toString(36));
  });

  it('writes every non-negative safe integer as toString(36) does', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => base36(n) === n.toString(36)),
      { numRuns: 20_000 },
    );
  });

  it('writes a run id time and a done key minute as before', () => {
    expect(base36(1_764_950_400_000)).toBe('mit1wcg0');
    expect(base36(29_082_480)).toBe('hbc6o');
  });

  it.each([-1, 0.5, 2 ** 53, Number.NaN])('hands %d to toString(36)', (n) => {
    expect(base36(n)).toBe(n.toString(36));
  });
});
