/**
 * `effectRunner`: the effect runner a job names in `defineJob({ effects: effectRunner })` — the
 * pending -> sending -> succeeded runner (lib/effects/runner.ts) on the job's effect records, with
 * sends guarded after a restore of the library table (lib/runtime/restore-guard.ts).
 */
import { EffectRunner } from '../effects/runner.js';
import { DynamoEffectRunStore } from '../store/effect-run-store.js';
import type { JobEffects } from './job-effects.js';
import { guardRestored } from './restore-guard.js';

/**
 * The effect runner of `ctx.effect` (docs/design.md step 5), passed as `defineJob`'s `effects`. Records
 * go to `deps.effects(job)` when the deps bring an effect store, else to the library table.
 * @example
 * import { defineJob, effectRunner } from 'cronfence';
 * export const handler = defineJob({ name: 'payouts', effects: effectRunner, ..., run: async (ctx) => {
 *   await ctx.effect(`payout#${id}#${ctx.businessDate}`, { id, amountCents }, payments);
 * } });
 */
export const effectRunner: JobEffects = (b) => {
  const { deps } = b;
  // The binding carries the runner's hooks under the runner's own option names.
  const runner = new EffectRunner({
    ...b,
    store: deps.effects?.(b.job) ?? new DynamoEffectRunStore(deps.doc, deps.tableName, b.job),
  });
  const restoredAtMs = b.restoredAtMs;
  return {
    run: (key, request, provider) =>
      runner.run(
        key,
        request,
        restoredAtMs === undefined ? provider : guardRestored(provider, restoredAtMs, deps.clock),
      ),
  };
};
