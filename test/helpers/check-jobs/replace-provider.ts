/**
 * A jobs module with a `replace` job and the effect provider it sends through, which has neither
 * idempotency keys nor a lookup: what `cronfence check` warns about (`overlap-replace-provider`).
 */
import type { EffectProvider } from '../../../lib/core/effects.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { effectRunner } from '../../../lib/runtime/effect-runner.js';

export const ledger: EffectProvider<{ amountCents: number }> = {
  name: 'ledger',
  idempotencyKeys: false,
  send: async () => ({ kind: 'succeeded', providerRef: 'ref', response: {} }),
};

export const handlers = [
  defineJob({
    name: 'settle',
    schedule: 'rate(5 minutes)',
    lease: { durationSeconds: 30 },
    timeoutSeconds: 120,
    overlap: 'replace',
    effects: effectRunner,
    run: async (ctx) => {
      await ctx.effect('pay', { amountCents: 1 }, ledger);
    },
  }),
];
