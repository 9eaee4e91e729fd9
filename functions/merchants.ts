/**
 * The merchants the settlement example settles, from the data file in the repo.
 */
import merchants from '../data/merchants.json' with { type: 'json' };

/** One merchant of the example. */
export interface Merchant {
  readonly merchantId: string;
  readonly name: string;
  readonly currency: string;
  readonly dailyVolumeCents: number;
}

/** All merchants of data/merchants.json. */
export const MERCHANTS: readonly Merchant[] = merchants;

/**
 * Deterministic settlement amount for a merchant and date (same inputs → same amount, so a re-run
 * computes the same row). Integer cents.
 */
export function settlementAmountCents(m: Merchant, settlementDate: string): number {
  let h = 0;
  for (const c of `${m.merchantId}|${settlementDate}`) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return m.dailyVolumeCents + (h % 5000);
}
