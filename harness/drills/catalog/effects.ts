/**
 * Uncertain outcomes of an external effect (docs/design.md step 5), with the real settlement handler
 * paying through the local payment service (idempotency keys + lookup): the provider executed a payout
 * but its response was lost; the effect record's `sending` write or its `succeeded` write was applied
 * by DynamoDB but its response was lost. Every payout must execute at most once at the provider.
 */
import { on } from '../../faults/sdk-faults.js';
import { startPaymentService } from '../../local/payment-service.js';
import { check } from '../checks.js';
import { trackFetch } from '../fetch-tracker.js';
import type { Drill } from '../types.js';
import { recordOf, recordsMatch, show, tally } from './helpers.js';

/** Where the outcome is lost. */
export type EffectUncertainty = 'provider' | 'effect-sending' | 'effect-finish';

const INJECTED: Record<EffectUncertainty, string> = {
  provider: 'the payment service executes the first payout, then drops the connection (response lost)',
  'effect-sending':
    'the first effect record’s `sending` write (transaction with the lease check) is applied, its response lost',
  'effect-finish': 'the first effect record’s `succeeded` write is applied, its response lost',
};

const EXPECTED: Record<EffectUncertainty, string> = {
  provider:
    'the effect stays `sending`; the run fails and the retry resends with the SAME key: the provider replays, executing the payout once',
  'effect-sending': 'the SDK retry meets its own write; the payout is sent once; run succeeded',
  'effect-finish': 'the SDK retry meets its own `succeeded` write; no resend; run succeeded',
};

/** One uncertain-effect drill. */
export function uncertainEffect(where: EffectUncertainty): Drill {
  return {
    name: `uncertain-effect-${where}`,
    injected: INJECTED[where],
    expected: EXPECTED[where],
    async run(ctx) {
      const service = await startPaymentService({ idempotencyKeys: true, lookup: true });
      const saved = [process.env.PAYMENTS_URL, process.env.PAYMENTS_CAPABILITIES] as const;
      process.env.PAYMENTS_URL = service.url;
      process.env.PAYMENTS_CAPABILITIES = 'idempotency-keys,lookup';
      const fetches = trackFetch();
      ctx.stage.alsoBusy.push(fetches.busy);
      try {
        const h = ctx.insertOnce;
        const a = ctx.stage.worker('A');
        const b = ctx.stage.worker('B');
        if (where === 'provider') {
          service.inject({ kind: 'drop-response', match: { kind: 'payout' } });
          ctx.stage.recorder.process(
            'payments',
            'provider-fault',
            'first payout: execute, then drop the response',
          );
        }
        if (where === 'effect-sending')
          a.faults.add({
            name: 'sending write response lost',
            match: on.all(on.effect, on.command('TransactWriteItemsCommand')),
            action: { kind: 'apply-then-fail' },
          });
        if (where === 'effect-finish')
          a.faults.add({
            name: 'succeeded write response lost',
            match: on.all(on.effect, on.command('UpdateItemCommand')),
            action: { kind: 'apply-then-fail' },
          });
        const ra = ctx.send(a, h, { label: 'A' });
        const rb = ctx.send(b, h, { label: 'B retry', attempt: 2, delayMs: 60_000 });
        await ctx.stage.run();
        const [A, B] = [await ra, await rb];
        const records = await ctx.tables.runRecords(h.job.name);
        const payouts = service.payouts();
        const firstKey = service.requests.find((r) => r.kind === 'payout')?.key;
        const firstRequests = firstKey
          ? service.requestsFor(firstKey).filter((r) => r.method === 'POST')
          : [];
        const keys = payouts.map((p) => String(p.key));
        const transitions = ctx.stage.recorder.events('effect-transition');
        return {
          observed: `${tally([A, B])}; A ${show(recordOf(records, A.summary?.runId))}, B ${show(recordOf(records, B.summary?.runId))}; ${payouts.length} payouts executed for ${new Set(keys).size} keys; first key POSTed ${firstRequests.length}x, executed ${service.payouts(firstKey).length}x; ${transitions.length} effect transitions`,
          jobs: [h],
          checks: [
            check(
              'every payout key executed at most once by the provider',
              keys.length === new Set(keys).size,
              `${payouts.length} executed, ${new Set(keys).size} distinct keys`,
            ),
            check(
              'the payout whose outcome was uncertain executed exactly once',
              firstKey !== undefined && service.payouts(firstKey).length === 1,
              `${firstKey}: ${firstRequests.map((r) => r.status).join(', ')}`,
            ),
            ...(where === 'provider'
              ? []
              : [
                  check(
                    'the lost response was injected once',
                    a.faults.fired.length === 1,
                    `${a.faults.fired.length} fired`,
                  ),
                ]),
            recordsMatch([A, B], records),
            ...(await ctx.verifyApp([h])),
          ],
        };
      } finally {
        fetches.restore();
        await service.stop();
        if (saved[0] === undefined) delete process.env.PAYMENTS_URL;
        else process.env.PAYMENTS_URL = saved[0];
        if (saved[1] === undefined) delete process.env.PAYMENTS_CAPABILITIES;
        else process.env.PAYMENTS_CAPABILITIES = saved[1];
      }
    },
  };
}
