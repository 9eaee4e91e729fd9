/**
 * A simulated external provider for the history explorer: executes requests (recording every
 * execution per idempotency key, which the "at most once" invariant reads), honours idempotency keys
 * and offers a lookup when configured, takes virtual time, and can execute a request but lose its
 * response (the uncertain outcome of protocol step 5).
 */
import type { EffectProvider, LookupResult, SendResult } from '../../../lib/core/effects.js';

/** What the provider supports, and which calls lose their response. */
export interface SimProviderOptions {
  readonly idempotencyKeys: boolean;
  readonly lookup: boolean;
  /** The n-th send calls (1-based, across all keys) execute but lose their response. */
  readonly dropResponses: readonly number[];
  /** The n-th send calls fail before executing (a 503: the outcome is unknown to the caller). @default none */
  readonly failBeforeExecution?: readonly number[];
  /** Latency of a call, ms of virtual time. */
  readonly latencyMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** The provider forgets a key this long after its first execution, ms (key-expiry). @default never */
  readonly keyRetentionMs?: number;
  /** True time, epoch ms (for key expiry). @default Date.now */
  readonly now?: () => number;
}

/** What the simulated provider declares as its in-flight window (its latency is far below it), ms. */
export const SIM_LOOKUP_SETTLE_MS = 1_000;

/** The provider: an EffectProvider plus what it executed. */
export class SimProvider implements EffectProvider<{ id: string; amountCents: number }> {
  readonly name = 'sim-payments';
  readonly idempotencyKeys: boolean;
  readonly keyRetentionMs?: number;
  readonly lookupSettleMs?: number;
  /** Every execution, in order: the key and the request. */
  readonly executions: { key: string; request: unknown }[] = [];
  /** Calls whose response was dropped. */
  dropped = 0;
  private calls = 0;
  private readonly byKey = new Map<string, string>();
  private readonly firstAtMs = new Map<string, number>();
  readonly lookup?: (key: string) => Promise<LookupResult>;

  constructor(private readonly o: SimProviderOptions) {
    this.idempotencyKeys = o.idempotencyKeys;
    if (o.idempotencyKeys) this.keyRetentionMs = o.keyRetentionMs ?? Number.POSITIVE_INFINITY;
    if (o.lookup) {
      this.lookupSettleMs = SIM_LOOKUP_SETTLE_MS;
      this.lookup = async (key) => {
        await o.sleep(o.latencyMs);
        const ref = this.byKey.get(key);
        return ref ? { found: true, providerRef: ref, response: { id: ref } } : { found: false };
      };
    }
  }

  async send(key: string, request: { id: string; amountCents: number }): Promise<SendResult> {
    const n = ++this.calls;
    await this.o.sleep(this.o.latencyMs);
    if (this.o.failBeforeExecution?.includes(n))
      return { kind: 'unknown', why: 'injected: failed before executing (503)' };
    const now = (this.o.now ?? Date.now)();
    const remembered =
      this.o.keyRetentionMs === undefined || now - (this.firstAtMs.get(key) ?? now) < this.o.keyRetentionMs;
    let ref = this.o.idempotencyKeys && remembered ? this.byKey.get(key) : undefined;
    if (ref === undefined) {
      ref = `op_${this.executions.length + 1}`;
      this.executions.push({ key, request });
      this.byKey.set(key, ref);
      this.firstAtMs.set(key, now);
    }
    if (this.o.dropResponses.includes(n)) {
      this.dropped++;
      return { kind: 'unknown', why: 'injected: response lost after execution' };
    }
    return { kind: 'succeeded', providerRef: ref, response: { id: ref } };
  }

  /** Keys executed more than once. */
  executedTwice(): string[] {
    const n = new Map<string, number>();
    for (const e of this.executions) n.set(e.key, (n.get(e.key) ?? 0) + 1);
    return [...n].filter(([, c]) => c > 1).map(([k, c]) => `${k} x${c}`);
  }
}
