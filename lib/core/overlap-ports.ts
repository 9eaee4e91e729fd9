/**
 * The lease store's writes for the overlap policies (lib/core/overlap.ts): the port the runtime calls
 * and the decisions it gets back. Implemented by the table lease store on the protocol's declared
 * writes (lib/store/protocol/overlap-operations.ts), for DynamoDB and the in-memory backend alike.
 */
import type { ClaimDecision, LeaseItem } from './lease.js';
import type { ClaimRequest, LeaseRef } from './ports.js';

/** An arrival to buffer on the lease item (overlap `buffer-*`). */
export interface BufferRequest extends LeaseRef {
  readonly slotId: string;
  readonly nowMs: number;
  /** The job's `overlap.maxBuffered`. */
  readonly maxBuffered: number;
  /** Definition id (`definitionId`): a done set of another definition does not count. @default none */
  readonly def?: string;
}

/** What buffering decided, from the item the write returned (no read). */
export type BufferDecision =
  /** Added: `buffered` is the list after it, in slot order. */
  | { readonly kind: 'buffered'; readonly buffered: readonly string[] }
  /** The slot was already waiting (a duplicate delivery): not buffered twice. */
  | { readonly kind: 'already-buffered'; readonly buffered: readonly string[] }
  /** `maxBuffered` slots already wait. */
  | { readonly kind: 'full'; readonly buffered: readonly string[] }
  /** The lease is free and nothing waits: claim it instead. */
  | { readonly kind: 'free' }
  /** Done, paused, or held for this very slot: the claim's own decision applies (from `item`). */
  | { readonly kind: 'claim-decides'; readonly item: LeaseItem | undefined };

/** A claim over a live holder (overlap `replace`). */
export type ReplaceRequest = ClaimRequest & {
  /**
   * The live holder to displace, as the refused claim saw it; `chainFromFence`: the lowest fence of the
   * chain of displacements the holder's own replacing claim continued (stored as `replacedFromFence`).
   * @default chainFromFence: the holder's fence (a new chain)
   */
  readonly holder: { readonly runId: string; readonly fence: number; readonly chainFromFence?: number };
  /** Only a holder that acquired before `nowMs − replaceAfterSeconds × 1000` is displaced. */
  readonly replaceAfterSeconds: number;
};

/** The lease store's overlap-policy writes, each one conditional `UpdateItem` on the lease item. */
export interface OverlapLeaseStore {
  /** Buffer an arrival; never throws for a refusal (a decision). @throws StoreError */
  buffer(req: BufferRequest): Promise<BufferDecision>;
  /** Take the lease from a live holder by raising the fence; refused → the claim's decision. @throws StoreError */
  replace(req: ReplaceRequest): Promise<ClaimDecision>;
  /** Take a slot that can no longer run off the buffered list. @returns whether it was there. @throws StoreError */
  unbuffer(ref: LeaseRef & { readonly slotId: string }): Promise<boolean>;
}
