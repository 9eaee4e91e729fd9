/**
 * The DynamoDB backend's low-level input (unit): the values a declared write carries are marshalled
 * exactly as `@aws-sdk/util-dynamodb`'s `marshall` with the library's options would marshal them
 * (what the Document client sent before), including the lists, maps and string sets written
 * directly; and a claim, a release and a run record sent from their shape's compiled text are the
 * input their declaration compiles to; and an item read back is unmarshalled as `unmarshall` would.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Outcome, Reason } from '../../../lib/core/outcomes.js';
import type { RunRecord } from '../../../lib/core/ports.js';
import {
  lowLevelInput,
  nativeItem,
  singleInput,
  writeInput,
} from '../../../lib/store/protocol/dynamo-backend.js';
import { eq } from '../../../lib/store/protocol/expression.js';
import { claim, putRunRecord, release } from '../../../lib/store/protocol/operations.js';
import type { ProtocolRequest, Write } from '../../../lib/store/protocol/request.js';

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
    ['a set of a string and a number', new Set(['a', 1])],
    ['a set of a number and a string', new Set([1, 'a'])],
    ['a set with undefined', new Set(['a', undefined])],
    ['a number set', new Set([1, 2])],
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

  it('marshals an empty set as util-dynamodb does: refused with its error', () => {
    expect(() => marshall({ v: new Set() }, MARSHALL)).toThrow();
    expect(() => lowLevelInput(putOf(new Set()))).toThrow();
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

describe('singleInput (a request sent from its shape)', () => {
  /** Claim requests of every shape: slot id forms, optional fields, overlap guards. */
  const claims = fc.record(
    {
      table: fc.constantFrom('lib', 'other-lib'),
      job: fc.constantFrom('daily-report', 'settle'),
      shard: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      runId: fc.string({ minLength: 1, maxLength: 12 }),
      slotId: fc.constantFrom('2026-03-01T02:00', '2026-03-01T02:00:00Z', '2026-03-01', 'odd id'),
      nowMs: fc.integer({ min: 0, max: 2 ** 45 }),
      leaseUntilMs: fc.integer({ min: 0, max: 2 ** 45 }),
      lambdaRequestId: fc.option(fc.uuid(), { nil: undefined }),
      trigger: fc.option(fc.constantFrom('scheduled', 'manual', 'catch-up'), { nil: undefined }),
      requestedBy: fc.option(
        fc.oneof(fc.string({ maxLength: 8 }), fc.string({ minLength: 60, maxLength: 300, size: 'max' })),
        {
          nil: undefined,
        },
      ),
      force: fc.option(fc.boolean(), { nil: undefined }),
      def: fc.option(fc.constantFrom('d1', 'd2'), { nil: undefined }),
      shards: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      overlap: fc.option(
        fc.record(
          {
            buffer: fc.constantFrom('none-waiting' as const, 'own-turn' as const),
            previousSlotId: fc.constantFrom('2026-02-28T02:00', '2026-02-28T02:00:00Z'),
            fromFirstSlot: fc.boolean(),
            firstSlot: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        { nil: undefined },
      ),
    },
    { requiredKeys: ['table', 'job', 'runId', 'slotId', 'nowMs', 'leaseUntilMs'] },
  );

  it("gives every claim the input its declaration compiles to, the shape's first request and every later one", () => {
    fc.assert(
      fc.property(claims, (req) => {
        const request = claim.request(req);
        // Twice: the first request of a shape is compiled from its declaration, the second is not.
        expect(singleInput(request)).toEqual(lowLevelInput(request.writes[0]));
        const again = claim.request({ ...req, runId: `${req.runId}-2`, nowMs: req.nowMs + 1 });
        expect(singleInput(again)).toEqual(lowLevelInput(again.writes[0]));
      }),
      { numRuns: 2_000 },
    );
  });

  /** Slot ids of every form: local minute, UTC instant, a date, an id no done key encodes. */
  const slotIds = fc.constantFrom('2026-03-01T02:00', '2026-03-01T02:00:00Z', '2026-03-01', 'odd id');

  /** Releases of every shape: recorded or not, done set, its slot and definition, streak, pause. */
  const releases = fc.record(
    {
      table: fc.constantFrom('lib', 'other-lib'),
      job: fc.constantFrom('daily-report', 'settle'),
      shard: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      runId: fc.string({ minLength: 1, maxLength: 12 }),
      fence: fc.integer({ min: 1, max: 2 ** 40 }),
      nowMs: fc.integer({ min: 0, max: 2 ** 45 }),
      doneSlots: fc.option(
        fc.uniqueArray(slotIds, { maxLength: 4 }).map((ids) => new Set(ids)),
        { nil: undefined },
      ),
      succeededSlot: fc.option(slotIds, { nil: undefined }),
      def: fc.option(fc.constantFrom('d1', 'd2'), { nil: undefined }),
      clearOpen: fc.option(fc.boolean(), { nil: undefined }),
      recorded: fc.option(fc.boolean(), { nil: undefined }),
      failedSlots: fc.option(
        fc.oneof(
          fc.constant(null),
          fc.array(fc.record({ slot: slotIds, runId: fc.string({ maxLength: 8 }) }), { maxLength: 3 }),
        ),
        { nil: undefined },
      ),
      pause: fc.option(
        fc.record(
          {
            pausedAtMs: fc.integer({ min: 0, max: 2 ** 45 }),
            pausedBy: fc.constantFrom('failures', 'ops'),
            pauseNote: fc.string({ maxLength: 12 }),
            pausedRuns: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
          },
          { requiredKeys: ['pausedAtMs'] },
        ),
        { nil: undefined },
      ),
    },
    { requiredKeys: ['table', 'job', 'runId', 'fence', 'nowMs'] },
  );

  /** Run records of every outcome, with and without the optional fields. */
  const records = fc.record(
    {
      job: fc.constantFrom('daily-report', 'settle'),
      shard: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      slot: slotIds,
      scheduledTime: fc.constant('2026-03-01T02:00:00.000Z'),
      businessDate: fc.constant('2026-03-01'),
      runId: fc.string({ minLength: 1, maxLength: 12 }),
      trigger: fc.constantFrom('schedule' as const, 'manual' as const),
      requestedBy: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      lambdaRequestId: fc.option(fc.uuid(), { nil: undefined }),
      fence: fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined }),
      outcome: fc.constantFrom(...Object.values(Outcome)),
      reason: fc.option(fc.constantFrom(...Object.values(Reason)), { nil: undefined }),
      startedAtMs: fc.integer({ min: 0, max: 2 ** 45 }),
      finishedAtMs: fc.option(fc.integer({ min: 0, max: 2 ** 45 }), { nil: undefined }),
      durationMs: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
      error: fc.option(fc.record({ name: fc.string(), message: fc.string() }), { nil: undefined }),
      details: fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.integer())), {
        nil: undefined,
      }),
      def: fc.option(fc.constantFrom('d1', 'd2'), { nil: undefined }),
      shards: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    },
    {
      requiredKeys: [
        'job',
        'slot',
        'scheduledTime',
        'businessDate',
        'runId',
        'trigger',
        'outcome',
        'startedAtMs',
      ],
    },
  ) as fc.Arbitrary<RunRecord>;

  /** The input sent for `request` equals its declaration's compiled input, key for key. */
  const sentAsDeclared = (request: ProtocolRequest) =>
    expect(singleInput(request)).toStrictEqual(lowLevelInput(request.writes[0]));

  it("gives every release the input its declaration compiles to, the shape's first request and every later one", () => {
    fc.assert(
      fc.property(releases, (ref) => {
        const request = release.request(ref);
        // The release that pauses the job goes out from its declaration; every other has parameters.
        expect(request.parameters === undefined).toBe(Boolean(ref.failedSlots && ref.pause));
        sentAsDeclared(request);
        sentAsDeclared(release.request({ ...ref, runId: `${ref.runId}-2`, fence: ref.fence + 1 }));
      }),
      { numRuns: 2_000 },
    );
  });

  it("gives every run record the input its declaration compiles to, the shape's first request and every later one", () => {
    fc.assert(
      fc.property(records, fc.integer({ min: 1, max: 400 }), (record, retentionDays) => {
        sentAsDeclared(putRunRecord.request({ table: 'lib', record, retentionDays }));
        const again = { ...record, runId: `${record.runId}-2`, startedAtMs: record.startedAtMs + 1 };
        sentAsDeclared(putRunRecord.request({ table: 'lib', record: again, retentionDays }));
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses a request whose parameters do not give its declared values, before anything is sent', () => {
    const request = claim.request({
      table: 'lib',
      job: 'mismatch',
      runId: 'r1',
      slotId: '2026-03-01T02:00',
      nowMs: 1_000,
      leaseUntilMs: 61_000,
    });
    const wrong = {
      ...request,
      writes: request.writes,
      parameters: { shape: 'claim-mismatch', values: () => [...request.parameters!.values()].slice(1) },
    };
    expect(() => singleInput(wrong)).toThrow(
      /^the claim request's parameters do not give its declared values \(shape "claim-mismatch"\): declared \{":v0":\{"N":"1000"\}/,
    );
  });
});

describe('nativeItem', () => {
  /**
   * Attribute names. Not `__proto__`: assigning it, as `unmarshall` and `nativeItem` both do, sets the
   * result's prototype (to a Set, a list, ...), which an equality check cannot compare; that name is
   * checked on its own below.
   */
  const attributeName = fc.string().filter((name) => name !== '__proto__');
  /** Attribute values of every type, as DynamoDB returns them (one member each). */
  const { value } = fc.letrec<{ value: AttributeValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string().map((S) => ({ S })),
      fc
        .oneof(
          fc.integer().map(String),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
          fc.constantFrom('9007199254740993', '-9007199254740993', '1e400', '12345678901234567890'),
        )
        .map((N) => ({ N })),
      fc.boolean().map((BOOL) => ({ BOOL })),
      fc.constant({ NULL: true }),
      fc.uniqueArray(fc.string(), { minLength: 1 }).map((SS) => ({ SS })),
      fc.uniqueArray(fc.integer().map(String), { minLength: 1 }).map((NS) => ({ NS })),
      fc.uint8Array().map((B) => ({ B })),
      fc.array(tie('value'), { maxLength: 4 }).map((L) => ({ L })),
      fc.dictionary(attributeName, tie('value'), { maxKeys: 4 }).map((M) => ({ M })),
    ) as fc.Arbitrary<AttributeValue>,
  }));

  it('unmarshals every item as util-dynamodb does, refusing what it refuses', () => {
    fc.assert(
      fc.property(fc.dictionary(attributeName, value, { maxKeys: 8 }), (item) => {
        // A number it cannot convert (`1e400`, `-1e+21`) is refused by both, with the library's error.
        const outcome = (f: () => unknown) => {
          try {
            return { value: f() };
          } catch (err) {
            return { error: (err as Error).message };
          }
        };
        expect(outcome(() => nativeItem(item))).toStrictEqual(outcome(() => unmarshall(item)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads an attribute named __proto__ as unmarshall does (it sets the prototype, no own key)', () => {
    const item = JSON.parse('{"__proto__": {"M": {"x": {"S": "y"}}}, "b": {"S": "c"}}');
    const mine = nativeItem(item) as Record<string, unknown>;
    const theirs = unmarshall(item);
    expect(Object.keys(mine)).toEqual(['b']);
    expect(Object.keys(theirs)).toEqual(['b']);
    expect(mine.x).toBe('y');
    expect(theirs.x).toBe('y');
  });
});
