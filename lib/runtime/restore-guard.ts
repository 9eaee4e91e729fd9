/**
 * Effects after a restore of the library table (docs/design.md "Identity across the job's lifecycle",
 * "A restored table"). DynamoDB restores a backup or a point in time into a NEW table: effect records
 * written after the restore point are gone, while the provider may have executed them. A missing
 * record then looks exactly like an effect never tried, and nothing in the table can tell the two
 * apart. So while a lease carries its restore mark, a send the provider could not deduplicate is not
 * made: the effect stays `sending` with its outcome unknown, and the next run reconciles it like any
 * effect found `sending` — a lookup when the provider has one, else `needs-review`. Never a blind send.
 */
import type { EffectProvider, SendResult } from '../core/effects.js';
import type { Clock } from '../core/ports.js';

/**
 * `provider` as a run of a restored lease may use it. A send goes through when the provider honours
 * idempotency keys and every key sent since the restore point is still within half its declared
 * `keyRetentionMs` (the resend rule's margin), or after this call's own `lookup` found nothing;
 * otherwise it is answered `unknown` without reaching the provider.
 * @param restoredAtMs the restore point on the lease item, epoch ms.
 * @example effects.run(key, request, guardRestored(provider, lease.restoredAtMs, clock));
 */
export function guardRestored<T>(
  provider: EffectProvider<T>,
  restoredAtMs: number,
  clock: Clock,
): EffectProvider<T> {
  const lookedUpAbsent = new Set<string>();
  const keysStillKnown = () =>
    provider.idempotencyKeys && clock.now() - restoredAtMs < (provider.keyRetentionMs ?? 0) / 2;
  const refused = (): SendResult => ({
    kind: 'unknown',
    why:
      `not sent: the library table was restored (restore point ${new Date(restoredAtMs).toISOString()}), so ` +
      'an earlier send of this effect may have left no record; a lookup or an operator must decide',
  });
  const lookup = provider.lookup?.bind(provider);
  return {
    name: provider.name,
    idempotencyKeys: provider.idempotencyKeys,
    ...(provider.keyRetentionMs !== undefined && { keyRetentionMs: provider.keyRetentionMs }),
    ...(provider.lookupSettleMs !== undefined && { lookupSettleMs: provider.lookupSettleMs }),
    send: (key, request) =>
      keysStillKnown() || lookedUpAbsent.has(key) ? provider.send(key, request) : Promise.resolve(refused()),
    ...(lookup && {
      lookup: async (key: string) => {
        const found = await lookup(key);
        if (!found.found) lookedUpAbsent.add(key);
        return found;
      },
    }),
  };
}
