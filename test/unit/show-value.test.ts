/** Values quoted in error messages (unit: pure). */
import { describe, expect, it } from 'vitest';
import { showValue } from '../../lib/core/show-value.js';
import { defineJob } from '../../lib/runtime/define-job.js';

describe('showValue', () => {
  it.each<[string, unknown, string]>([
    ['NaN', Number.NaN, 'NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, '-Infinity'],
    [
      'a non-finite number inside',
      { a: [1, Number.NaN], b: Number.NEGATIVE_INFINITY },
      '{"a":[1,NaN],"b":-Infinity}',
    ],
    ['a real null, kept', { a: null }, '{"a":null}'],
    ['a string that reads null', 'null', '"null"'],
    ['undefined', undefined, 'undefined'],
    ['a function (JSON has no text for it)', () => 1, '() => 1'],
  ])('%s', (_, value, expected) => {
    expect(showValue(value)).toBe(expected);
  });

  it('names the non-finite value a job definition was given, not null', () => {
    const define = (durationSeconds: number) => () =>
      defineJob({ name: 'x', schedule: 'rate(1 minute)', lease: { durationSeconds }, run: async () => {} });
    expect(define(Number.NaN)).toThrow(
      'job "x": invalid job definition: "lease.durationSeconds" = NaN: must be a number > 0',
    );
    expect(define(Number.POSITIVE_INFINITY)).toThrow('"lease.durationSeconds" = Infinity');
  });
});
