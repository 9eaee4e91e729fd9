/**
 * An {@link EffectProvider} for JSON-over-HTTP APIs shaped like the local payment service (and most
 * payment APIs): `POST <path>` with an `Idempotency-Key` header, optional `GET <path>/<key>`.
 * Status mapping: 2xx succeeded; 408, 409, 425, 429 and 5xx unknown; other 4xx rejected (permanent);
 * timeouts and dropped connections unknown.
 */

import type { EffectProvider, LookupResult, SendResult } from '../core/effects.js';
import { InvalidArgumentError } from '../core/input-errors.js';

/** Options of {@link httpJsonProvider}. */
export interface HttpJsonProviderOptions {
  /** Stored on effect records, e.g. `payments`. */
  readonly name: string;
  /** e.g. `http://127.0.0.1:4010` */
  readonly baseUrl: string;
  /** Collection path, e.g. `/payouts`. */
  readonly path: string;
  /** The API executes a key at most once (so a resend with the same key is safe). */
  readonly idempotencyKeys: boolean;
  /** The API offers `GET <path>/<key>`. */
  readonly lookup: boolean;
  /** Give up waiting for a response after this long (the outcome is then unknown), ms. @default 5000 */
  readonly timeoutMs?: number;
  /** See {@link EffectProvider.lookupSettleMs}, ms. Required with `lookup: true` (no default). */
  readonly lookupSettleMs?: number;
  /** See {@link EffectProvider.keyRetentionMs}, ms. Required with `idempotencyKeys: true` (no default). */
  readonly keyRetentionMs?: number;
}

/** Statuses below 500 that do not prove the request was refused. */
const UNCERTAIN_4XX = [408, 409, 425, 429];

async function json(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

function why(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no response within ${timeoutMs} ms`;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
}

/**
 * Build the adapter. @throws InvalidArgumentError for a base URL that is not http(s), or a capability
 *   without its declaration (`lookupSettleMs` with lookup, `keyRetentionMs` with idempotency keys).
 * @example
 * const payments = httpJsonProvider({ name: 'payments', baseUrl, path: '/payouts', idempotencyKeys: true, keyRetentionMs: 86_400_000, lookup: false });
 * await ctx.effect(`payout#${m.id}#${ctx.businessDate}`, { merchantId: m.id, amountCents, currency }, payments);
 */
export function httpJsonProvider<T>(o: HttpJsonProviderOptions): EffectProvider<T> {
  if (!/^https?:\/\//.test(o.baseUrl))
    throw new InvalidArgumentError('baseUrl', o.baseUrl, 'must be an http(s) URL');
  if (o.lookup && !(typeof o.lookupSettleMs === 'number' && o.lookupSettleMs >= 0))
    throw new InvalidArgumentError(
      'lookupSettleMs',
      o.lookupSettleMs,
      'must be declared (ms >= 0) for a provider with lookup: how long a request may stay in flight',
    );
  if (o.idempotencyKeys && !(typeof o.keyRetentionMs === 'number' && o.keyRetentionMs > 0))
    throw new InvalidArgumentError(
      'keyRetentionMs',
      o.keyRetentionMs,
      'must be declared (ms > 0) for a provider with idempotency keys: how long it remembers a key',
    );
  const timeoutMs = o.timeoutMs ?? 5_000;
  const base = `${o.baseUrl.replace(/\/$/, '')}${o.path}`;
  const provider: EffectProvider<T> = {
    name: o.name,
    idempotencyKeys: o.idempotencyKeys,
    ...(o.idempotencyKeys && { keyRetentionMs: o.keyRetentionMs }),
    async send(key: string, request: T): Promise<SendResult> {
      try {
        const res = await fetch(base, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': encodeURIComponent(key) },
          body: JSON.stringify(request),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = await json(res);
        if (res.ok) return { kind: 'succeeded', providerRef: String(body.id ?? ''), response: body };
        if (res.status >= 500 || UNCERTAIN_4XX.includes(res.status)) {
          return { kind: 'unknown', why: `HTTP ${res.status}: ${String(body.error ?? body.text ?? '')}` };
        }
        return { kind: 'rejected', httpStatus: res.status, message: String(body.error ?? body.text ?? '') };
      } catch (err) {
        return { kind: 'unknown', why: why(err, timeoutMs) };
      }
    },
  };
  if (!o.lookup) return provider;
  return {
    ...provider,
    lookupSettleMs: Number(o.lookupSettleMs),
    async lookup(key: string): Promise<LookupResult> {
      let res: Response;
      try {
        res = await fetch(`${base}/${encodeURIComponent(key)}`, { signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw new Error(`GET ${o.path}/<key>: ${why(err, timeoutMs)}`);
      }
      const body = await json(res);
      if (res.status === 404) return { found: false };
      if (!res.ok) throw new Error(`GET ${o.path}/<key>: HTTP ${res.status}: ${String(body.error ?? '')}`);
      return { found: true, providerRef: String(body.id ?? ''), response: body };
    },
  };
}

/** Provider capabilities as written in an environment variable: `idempotency-keys`, `lookup`, both (comma-separated) or `none`. */
export function parseCapabilities(
  text: string | undefined,
  fallback = 'idempotency-keys',
): {
  idempotencyKeys: boolean;
  lookup: boolean;
} {
  const parts = (text ?? fallback)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of parts) {
    if (!['idempotency-keys', 'lookup', 'none'].includes(p)) {
      throw new InvalidArgumentError(
        'provider capabilities',
        text,
        `unknown capability "${p}" (use idempotency-keys, lookup or none)`,
      );
    }
  }
  return { idempotencyKeys: parts.includes('idempotency-keys'), lookup: parts.includes('lookup') };
}
