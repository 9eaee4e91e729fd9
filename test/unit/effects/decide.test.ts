/**
 * Unit: what a run may do with an effect record it finds (pure decisions, docs/design.md step 5).
 */
import { describe, expect, it } from 'vitest';
import { decideExisting, type EffectActor, type StoredEffect } from '../../../lib/effects/decide.js';

const me: EffectActor = {
  runId: 'run-b',
  fence: 5,
  requestHash: 'h1',
  attemptedHere: false,
  providerName: 'payments',
  idempotencyKeys: false,
  canLookup: false,
};
const stored = (s: Partial<StoredEffect>): StoredEffect => ({
  status: 'sending',
  requestHash: 'h1',
  fence: 4,
  runId: 'run-a',
  ...s,
});

describe('decideExisting', () => {
  it.each([
    [
      'a different request under the same key, even when settled',
      { requestHash: 'h2', status: 'succeeded' },
      {},
      { kind: 'conflict' },
    ],
    ['a succeeded effect', { status: 'succeeded' }, {}, { kind: 'stored' }],
    ['a failed effect', { status: 'failed' }, {}, { kind: 'stored' }],
    ['an effect in needs-review', { status: 'needs-review' }, {}, { kind: 'stored' }],
    [
      'a settled effect written under a higher fence',
      { status: 'succeeded', fence: 9 },
      {},
      { kind: 'stored' },
    ],
    [
      'a sending effect under a higher fence',
      { fence: 6 },
      { idempotencyKeys: true },
      { kind: 'stale', storedFence: 6 },
    ],
    ['a pending effect (never sent)', { status: 'pending' }, {}, { kind: 'send', resend: false }],
    [
      'our own sending write whose response was lost',
      { fence: 5, runId: 'run-b' },
      {},
      { kind: 'send', resend: false },
    ],
    [
      'a sending effect, provider honours keys',
      {},
      { idempotencyKeys: true, canLookup: true },
      { kind: 'send', resend: true },
    ],
    [
      'our own sending effect we already called, provider honours keys',
      { fence: 5, runId: 'run-b' },
      { attemptedHere: true, idempotencyKeys: true },
      { kind: 'send', resend: true },
    ],
    ['a sending effect, provider offers lookup only', {}, { canLookup: true }, { kind: 'lookup' }],
  ] as const)('decides for %s', (_name, s, actor, expected) => {
    expect(decideExisting(stored(s), { ...me, ...actor })).toEqual(expected);
  });

  it('marks a sending effect for review, naming the earlier run and fence, when the provider supports neither', () => {
    expect(decideExisting(stored({}), me)).toEqual({
      kind: 'review',
      why: 'outcome of the call by run run-a (fence 4) is unknown and provider "payments" supports neither idempotency keys nor lookup; not resent',
    });
  });

  it('never sends again when this run already called a provider that supports neither', () => {
    expect(decideExisting(stored({ fence: 5, runId: 'run-b' }), { ...me, attemptedHere: true }).kind).toBe(
      'review',
    );
  });
});

describe('decideExisting with a late outcome', () => {
  const late = [{ runId: 'run-a', fence: 4, status: 'succeeded', providerRef: 'txn_1' }];
  it.each([
    ['pending (released for resend)', 'pending'],
    ['sending', 'sending'],
  ])(
    'marks a %s effect needs-review instead of sending it again, even with idempotency keys',
    (_what, status) => {
      expect(
        decideExisting(stored({ status, requestHash: undefined, lateOutcomes: late }), {
          ...me,
          idempotencyKeys: true,
          canLookup: true,
        }),
      ).toEqual({
        kind: 'review',
        why: 'run run-a (fence 4) had it executed (provider ref txn_1) after its finish was refused; not resent',
      });
    },
  );

  it('sends a pending effect whose only late outcome is a rejection', () => {
    const rejected = [{ runId: 'run-a', fence: 4, status: 'failed' }];
    expect(decideExisting(stored({ status: 'pending', lateOutcomes: rejected }), me)).toEqual({
      kind: 'send',
      resend: false,
    });
  });
});
