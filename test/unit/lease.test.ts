import { describe, expect, it } from 'vitest';
import {
  claimDoneSlots,
  DONE_SET_MAX_BYTES,
  decideClaimFailed,
  decideClaimSucceeded,
  doneKey,
  doneSlotsFor,
  type LeaseItem,
  leaseUntil,
  nextDoneSlots,
  slotIdOfDoneKey,
  storedDoneSet,
  wasReplaced,
} from '../../lib/core/lease.js';

describe('lease decisions', () => {
  it('gives the first claim fence 1 and no previous holder', () => {
    expect(decideClaimSucceeded(undefined)).toEqual({
      kind: 'acquired',
      fence: 1,
      doneSlots: new Set(),
      ownWrite: false,
      open: [],
    });
  });

  it('is a plain object whose done set reads alike through a copy, a Proxy or an Object.create of it', () => {
    const item: LeaseItem = {
      owner: 'r1',
      fence: 4,
      slot: '2026-03-28T16:00',
      holderState: 'released',
      leaseUntilMs: 0,
      doneSlots: new Set([doneKey('2026-03-28T16:00'), doneKey('2026-03-28T15:00')]),
    };
    const d = decideClaimSucceeded(item);
    if (d.kind !== 'acquired') throw new Error(`expected acquired, got ${d.kind}`);
    const done = new Set(['2026-03-28T16:00', '2026-03-28T15:00']);
    expect(Object.getPrototypeOf(d)).toBe(Object.prototype);
    expect(d).toStrictEqual({
      kind: 'acquired',
      fence: 5,
      ownWrite: false,
      open: [],
      doneSlots: done,
      previous: { runId: 'r1', slot: '2026-03-28T16:00', fence: 4, leaseUntilMs: 0, abandoned: false },
    });
    expect(Object.keys(d)).toEqual(['kind', 'fence', 'ownWrite', 'open', 'doneSlots', 'previous']);
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(d)) as typeof d;
    for (const view of [{ ...d }, new Proxy(d, {}), Object.create(d) as typeof d, copy])
      expect(view.doneSlots).toEqual(done);
    // The run's own read keeps the stored keys (nothing decoded); every other read gets slot ids.
    expect([...(claimDoneSlots(d) as unknown as { stored: Set<string> }).stored].sort()).toEqual([
      doneKey('2026-03-28T15:00'),
      doneKey('2026-03-28T16:00'),
    ]);
    expect(d.doneSlots).toBeInstanceOf(Set);
  });

  it('marks a previous holder that never released as abandoned', () => {
    const d = decideClaimSucceeded({
      owner: 'r1',
      fence: 41,
      slot: '2026-03-28T02:30',
      holderState: 'running',
      leaseUntilMs: 5,
    });
    expect(d).toMatchObject({
      kind: 'acquired',
      fence: 42,
      previous: { runId: 'r1', fence: 41, abandoned: true, leaseUntilMs: 5 },
    });
  });

  it('does not mark a released previous holder abandoned', () => {
    const d = decideClaimSucceeded({ owner: 'r1', fence: 3, slot: 's', holderState: 'released' });
    expect(d).toMatchObject({ fence: 4, previous: { abandoned: false } });
  });

  it('recognises our own applied claim whose response was lost', () => {
    expect(
      decideClaimFailed({ owner: 'me', fence: 7, slot: 's' }, { runId: 'me', slotId: 's' }),
    ).toMatchObject({ kind: 'acquired', fence: 7, ownWrite: true });
  });

  it('reports already-succeeded when the slot is in the done set', () => {
    expect(
      decideClaimFailed({ owner: 'x', fence: 7, doneSlots: new Set(['s']) }, { runId: 'me', slotId: 's' }),
    ).toEqual({ kind: 'already-succeeded', fence: 7 });
  });

  it('ignores the done set for a forced (manual) claim and reports the holder', () => {
    const d = decideClaimFailed(
      { owner: 'x', fence: 7, slot: 's', leaseUntilMs: 99, doneSlots: new Set(['s']) },
      { runId: 'me', slotId: 's', force: true },
    );
    expect(d).toEqual({
      kind: 'held',
      holderRunId: 'x',
      holderSlot: 's',
      leaseUntilMs: 99,
      fence: 7,
      sameSlot: true,
      renewedAtMs: 0,
      acquiredAtMs: 0,
      buffered: [],
    });
  });

  it('tells an overlap (another slot holds the lease) from a same-slot duplicate', () => {
    expect(
      decideClaimFailed({ owner: 'x', fence: 1, slot: 'a', leaseUntilMs: 9 }, { runId: 'me', slotId: 'b' }),
    ).toMatchObject({ kind: 'held', sameSlot: false });
  });

  it('keeps only the newest slots in the bounded done set', () => {
    expect([
      ...nextDoneSlots(new Set(['2026-01-01T00:00', '2026-01-03T00:00']), '2026-01-02T00:00', 2),
    ]).toEqual(['2026-01-02T00:00', '2026-01-03T00:00']);
  });

  it('never lets a lease outlive the Lambda deadline plus the margin', () => {
    expect(leaseUntil(1_000, 60_000, 10_000, 1_000)).toBe(12_000);
    expect(leaseUntil(1_000, 5_000, 10_000, 1_000)).toBe(6_000);
  });
});

describe('the done set as stored (no 1 KB cliff)', () => {
  it('stores a slot as its minute since 1970 in base 36, 6 characters, plus z for a UTC instant id', () => {
    expect(doneKey('2026-03-28T17:00')).toBe('0hlz0c');
    expect(doneKey('1970-01-01T00:00')).toBe('000000');
    expect(doneKey('1970-01-01T00:01:00Z')).toBe('000001z');
    expect(doneKey('2026-03-28T17:00')).toBe(
      (Date.UTC(2026, 2, 28, 17, 0) / 60_000).toString(36).padStart(6, '0'),
    );
    expect(doneKey('2026-03-28T17:00:00Z')).toBe(`${doneKey('2026-03-28T17:00')}z`);
  });

  it('round-trips every id it encodes, and keeps any other id as it is (it contains a "-", never a key)', () => {
    for (const id of ['2026-03-28T17:00', '2026-03-28T17:00:00Z', '2026-10-25T02:30', '2099-12-31T23:59:00Z'])
      expect(slotIdOfDoneKey(doneKey(id))).toBe(id);
    for (const id of ['S1', 's', '2026-02-30T10:00', '2026-03-28T17:00Z', '2026-03-28T17:00:30Z'])
      expect(doneKey(id)).toBe(id);
  });

  it('sorts keys like their slot ids', () => {
    const ids = ['2026-03-28T17:00', '2026-03-28T17:01', '2026-03-29T00:00', '2027-01-01T00:00'];
    expect(ids.map(doneKey)).toEqual([...ids.map(doneKey)].sort());
  });

  it('decodes a stored set, plain ids of a set written before the keys included', () => {
    const item = { doneSlots: new Set([doneKey('2026-03-28T17:00'), '2026-03-28T16:00']) };
    expect([...doneSlotsFor(item, undefined)].sort()).toEqual(['2026-03-28T16:00', '2026-03-28T17:00']);
    expect(decideClaimFailed(item, { runId: 'me', slotId: '2026-03-28T17:00' })).toEqual({
      kind: 'already-succeeded',
      fence: 0,
    });
  });

  it('caps the done set at DONE_SET_MAX_BYTES stored, whatever rememberSlots asks', () => {
    let done: ReadonlySet<string> = new Set();
    const base = Date.UTC(2026, 2, 28, 17, 0);
    for (let i = 0; i < 100; i++)
      done = nextDoneSlots(done, `${new Date(base + i * 60_000).toISOString().slice(0, 17)}00Z`, 1000);
    // 7-byte keys: 36 fit in 256 bytes; the newest are kept.
    expect(done.size).toBe(Math.floor(DONE_SET_MAX_BYTES / 7));
    expect([...done].at(-1)).toBe(`${new Date(base + 99 * 60_000).toISOString().slice(0, 17)}00Z`);
    expect([...storedDoneSet(done)].reduce((n, k) => n + k.length, 0)).toBeLessThanOrEqual(
      DONE_SET_MAX_BYTES,
    );
  });
});

describe('wasReplaced (the lease item names a displaced run)', () => {
  const chain = { replacedRunId: 'r2', replacedFence: 2, replacedFromFence: 1 } as LeaseItem;
  it.each([
    ['the latest displaced, by run id', chain, 'r2', 2, true],
    ['an earlier holder of the same chain, by fence', chain, 'r1', 1, true],
    ['the holder after the chain (its displacer)', chain, 'r3', 3, false],
    ['a holder before the chain', { ...chain, replacedFromFence: 2 } as LeaseItem, 'r1', 1, false],
    [
      'an item written before chains were stored: the latest only',
      { replacedRunId: 'r2', replacedFence: 2 } as LeaseItem,
      'r1',
      1,
      false,
    ],
    ['an item no replace ever wrote', {} as LeaseItem, 'r1', 1, false],
    ['no item', undefined, 'r1', 1, false],
  ])('%s', (_, item, runId, fence, expected) => {
    expect(wasReplaced(item, runId, fence)).toBe(expected);
  });
});
