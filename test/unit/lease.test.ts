import { describe, expect, it } from 'vitest';
import { decideClaimFailed, decideClaimSucceeded, leaseUntil, nextDoneSlots } from '../../lib/core/lease.js';

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
