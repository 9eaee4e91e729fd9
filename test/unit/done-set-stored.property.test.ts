/**
 * Unit (no network): a claim's done set is carried from the claim to the release in its stored form
 * (`StoredDoneSlots`, compact keys; lib/core/lease.ts). Over random done sets of local and UTC minute
 * ids, random slots and `rememberSlots`, the stored form answers exactly as the decoded set does:
 * membership, the late-copy check (`needsDoneCheck`), the next done set (`nextDoneSlots`: the same
 * slots, the same stored keys the release writes), and the decision's `doneSlots` read as slot ids.
 * A set holding a plain slot id (written before the keys) is read decoded, as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  claimDoneSlots,
  decideClaimFailed,
  decideClaimSucceeded,
  doneKey,
  doneSlotsFor,
  nextDoneSlots,
  StoredDoneSlots,
  storedDoneSet,
} from '../../lib/core/lease.js';
import { needsDoneCheck } from '../../lib/core/liveness.js';

const BASE_MS = Date.parse('2026-03-28T17:00:00Z');
const minuteId = (utc: boolean) =>
  fc.integer({ min: -200_000, max: 200_000 }).map((m) => {
    const iso = new Date(BASE_MS + m * 60_000).toISOString();
    return utc ? `${iso.slice(0, 17)}00Z` : iso.slice(0, 16);
  });
/** A job's slot ids are all of one form: local wall-clock minutes or UTC instants. */
const job = fc.boolean().chain((utc) =>
  fc.record({
    done: fc.uniqueArray(minuteId(utc), { maxLength: 40 }),
    slot: minuteId(utc),
    max: fc.integer({ min: 1, max: 40 }),
  }),
);
const sorted = (s: ReadonlySet<string>) => [...s].sort();

describe('the stored form of a done set answers as the decoded set', () => {
  it('membership, the late-copy check, the next set and its stored keys', () => {
    fc.assert(
      fc.property(job, ({ done, slot, max }) => {
        const ids = new Set(done);
        const stored = new StoredDoneSlots(new Set(done.map(doneKey)));
        expect(stored.size).toBe(ids.size);
        expect(stored.has(slot)).toBe(ids.has(slot));
        expect(sorted(stored)).toEqual(sorted(ids));
        expect(needsDoneCheck(stored, slot)).toBe(needsDoneCheck(ids, slot));
        const nextStored = nextDoneSlots(stored, slot, max);
        const nextIds = nextDoneSlots(ids, slot, max);
        expect(nextStored).toBeInstanceOf(StoredDoneSlots);
        expect(sorted(nextStored)).toEqual(sorted(nextIds));
        expect(sorted(storedDoneSet(nextStored))).toEqual(sorted(storedDoneSet(nextIds)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('"older than every slot" compares stored keys as the slot ids compare, local and UTC ids mixed', () => {
    const anyId = fc.boolean().chain(minuteId);
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { maxLength: 40 }), anyId, (done, slot) => {
        const stored = new StoredDoneSlots(new Set(done.map(doneKey)));
        expect(stored.precedesAll(slot)).toBe(done.length > 0 && done.every((id) => slot < id));
      }),
      { numRuns: 2_000 },
    );
    // The same minute in both forms: the local id sorts first, as its key does.
    const local = '2026-03-28T17:00';
    const utc = '2026-03-28T17:00:00Z';
    expect(new StoredDoneSlots(new Set([doneKey(utc)])).precedesAll(local)).toBe(true);
    expect(new StoredDoneSlots(new Set([doneKey(local)])).precedesAll(utc)).toBe(false);
    // An id without a compact key is compared decoded.
    expect(new StoredDoneSlots(new Set([doneKey(local)])).precedesAll('2026-03-28T16:59Z')).toBe(true);
  });

  it("a claim's decision reads its done set as slot ids and hands the run the stored form", () => {
    fc.assert(
      fc.property(job, ({ done, slot }) => {
        const item = { owner: 'r0', slot, fence: 3, doneSlots: new Set(done.map(doneKey)), def: 'd1' };
        const won = decideClaimSucceeded(item, { def: 'd1' });
        if (won.kind !== 'acquired') throw new Error(won.kind);
        expect(won.doneSlots).toEqual(new Set(done));
        expect(sorted(claimDoneSlots(won))).toEqual([...done].sort());
        expect(claimDoneSlots(won)).toBeInstanceOf(StoredDoneSlots);
        // The response of our own claim lost and retried: the same set.
        const own = decideClaimFailed({ ...item, owner: 'me' }, { runId: 'me', slotId: slot, def: 'd1' });
        if (own.kind !== 'acquired') throw new Error(own.kind);
        expect(own.doneSlots).toEqual(new Set(done));
        // A duplicate of a done slot is refused as already succeeded, any other as held.
        const dup = decideClaimFailed(
          { ...item, leaseUntilMs: Number.MAX_SAFE_INTEGER },
          { runId: 'me', slotId: slot, def: 'd1' },
        );
        expect(dup.kind).toBe(done.includes(slot) ? 'already-succeeded' : 'held');
      }),
      { numRuns: 500 },
    );
  });

  it('a done set written under another definition is empty; one holding a plain slot id is decoded', () => {
    const keys = new Set([doneKey('2026-03-28T17:00'), doneKey('2026-03-28T16:00')]);
    const other = decideClaimSucceeded({ doneSlots: keys, def: 'd0' }, { def: 'd1' });
    if (other.kind !== 'acquired') throw new Error(other.kind);
    expect(other.doneSlots).toEqual(new Set());
    expect(claimDoneSlots(other).size).toBe(0);
    const legacy = decideClaimSucceeded({ doneSlots: new Set([...keys, '2026-03-28T15:00']) }, {});
    if (legacy.kind !== 'acquired') throw new Error(legacy.kind);
    expect(claimDoneSlots(legacy)).toEqual(
      new Set(['2026-03-28T17:00', '2026-03-28T16:00', '2026-03-28T15:00']),
    );
    expect(doneSlotsFor({ doneSlots: keys }, undefined)).toEqual(
      new Set(['2026-03-28T17:00', '2026-03-28T16:00']),
    );
  });
});
