/**
 * The DynamoDB backend's low-level input (unit): the values a declared write carries are marshalled
 * exactly as `@aws-sdk/util-dynamodb`'s `marshall` with the library's options would marshal them
 * (what the Document client sent before), including the lists and maps written directly.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { lowLevelInput, writeInput } from '../../../lib/store/protocol/dynamo-backend.js';
import { eq } from '../../../lib/store/protocol/expression.js';
import { claim } from '../../../lib/store/protocol/operations.js';
import type { Write } from '../../../lib/store/protocol/request.js';

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/** A put whose item holds `value` under `v` (and a key), conditioned on `c = value`. */
const putOf = (value: unknown): Write => ({
  kind: 'put',
  table: 't',
  key: { pk: 'k' },
  item: { pk: 'k', v: value, gone: undefined },
  condition: eq('c', value),
});

describe('lowLevelInput', () => {
  it.each([
    ['a string', 'abc'],
    ['an empty string', ''],
    ['a boolean', false],
    ['a safe integer', 42],
    ['a negative fraction', -0.5],
    ['null', null],
    ['a string set', new Set(['a', 'b'])],
    ['an empty list', []],
    ['a list of scalars and undefined', ['a', undefined, 3, true]],
    ['a list with a hole', Object.assign(new Array(3), { 0: 'a', 2: 'c' })],
    ['a list of maps', [{ runId: 'r1', slot: 's', leaseUntilMs: 61_000, gone: undefined }]],
    ['nested lists and maps', { a: [{ b: [1, { c: null }] }], d: { e: new Set(['x']) } }],
    ['a map without a prototype', Object.assign(Object.create(null), { a: 1 })],
  ])('marshals %s as util-dynamodb does', (_name, value) => {
    const w = putOf(value);
    const input = lowLevelInput(w) as Record<string, unknown>;
    const doc = writeInput(w) as {
      Item: Record<string, unknown>;
      ExpressionAttributeValues: Record<string, unknown>;
    };
    expect(input.Item).toEqual(marshall(doc.Item, MARSHALL));
    expect(input.ExpressionAttributeValues).toEqual(marshall(doc.ExpressionAttributeValues, MARSHALL));
  });

  it('marshals an unsafe integer as util-dynamodb does: refused with its error', () => {
    const w = putOf(2 ** 60);
    expect(() => marshall({ v: 2 ** 60 }, MARSHALL)).toThrow();
    expect(() => lowLevelInput(w)).toThrow();
  });

  it("marshals the claim's request as util-dynamodb does (open list, empty list, strings, numbers)", () => {
    const [w] = claim.request({
      table: 'lib',
      job: 'daily-report',
      runId: 'r1',
      slotId: '2026-03-01T02:00',
      nowMs: 1_000,
      leaseUntilMs: 61_000,
      trigger: 'scheduled',
      def: 'd1',
      shards: 4,
    }).writes;
    const input = lowLevelInput(w) as { ExpressionAttributeValues: Record<string, unknown> };
    const doc = writeInput(w) as { ExpressionAttributeValues: Record<string, unknown> };
    expect(input.ExpressionAttributeValues).toEqual(marshall(doc.ExpressionAttributeValues, MARSHALL));
    expect(Object.values(input.ExpressionAttributeValues)).toContainEqual({
      L: [{ M: { runId: { S: 'r1' }, slot: { S: '2026-03-01T02:00' }, leaseUntilMs: { N: '61000' } } }],
    });
  });
});
