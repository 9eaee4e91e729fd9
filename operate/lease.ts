/**
 * A job's lease as an operator reads it: who holds it (or held it last), its fence, until when, and
 * the recently succeeded slots the lease item remembers (`doneSlots`). Read from the table alone (the
 * job's name, no job code): one GetItem, plus one per shard of a sharded job.
 */
import { doneSlotsFor, type LeaseItem, slotIdOfDoneKey } from '../lib/core/lease.js';
import { DynamoLeaseStore } from '../lib/store/lease-store.js';
import { iso, usage } from './input.js';
import type { Session } from './session.js';

/** A lease item as the operator API reports it (`JobHandle.lease`, `cronfence lease`). */
export interface LeaseView {
  readonly job: string;
  readonly shard?: number;
  /** `held` (unexpired), `expired` (holder never released), `released`, or `never-claimed`. */
  readonly state: 'held' | 'expired' | 'released' | 'never-claimed';
  readonly holder?: string;
  readonly fence?: number;
  readonly leaseUntilMs?: number;
  readonly leaseUntil?: string;
  readonly slot?: string;
  readonly acquiredAtMs?: number;
  readonly renewedAtMs?: number;
  readonly releasedAtMs?: number;
  readonly lambdaRequestId?: string;
  /** The holder's trigger and (manual runs) requester, while it holds the lease. */
  readonly trigger?: string;
  readonly requestedBy?: string;
  /** The latest slot that succeeded, as the lease records it (absent on items written before it). */
  readonly lastSucceeded?: string;
  /** Recently succeeded slots, newest first. */
  readonly recentlySucceededSlots: string[];
  /**
   * Overlap `buffer-*`: the slot ids waiting on this lease item to run after its holder, in slot order
   * (the item stores them as compact done keys). Absent when none wait.
   */
  readonly waiting?: string[];
}

/** Describe a lease item as of `nowMs` (by this machine's clock). */
export function leaseView(
  job: string,
  shard: number | undefined,
  item: LeaseItem | undefined,
  nowMs: number,
): LeaseView {
  const base = { job, ...(shard !== undefined && { shard }) };
  if (!item) return { ...base, state: 'never-claimed', recentlySucceededSlots: [] };
  const until = item.leaseUntilMs ?? 0;
  const state =
    item.holderState === 'released' || item.holderState === 'unrecorded'
      ? 'released'
      : until > nowMs
        ? 'held'
        : 'expired';
  return {
    ...base,
    state,
    ...(item.owner !== undefined && { holder: item.owner }),
    ...(item.fence !== undefined && { fence: item.fence }),
    leaseUntilMs: until,
    leaseUntil: iso(until),
    ...(item.slot !== undefined && { slot: item.slot }),
    ...(item.acquiredAtMs !== undefined && { acquiredAtMs: item.acquiredAtMs }),
    ...(item.renewedAtMs !== undefined && { renewedAtMs: item.renewedAtMs }),
    ...(item.releasedAtMs !== undefined && { releasedAtMs: item.releasedAtMs }),
    ...(item.lambdaRequestId !== undefined && { lambdaRequestId: item.lambdaRequestId }),
    ...(item.trigger !== undefined && { trigger: item.trigger }),
    ...(item.requestedBy !== undefined && { requestedBy: item.requestedBy }),
    ...(item.lastSucceeded !== undefined && { lastSucceeded: item.lastSucceeded }),
    recentlySucceededSlots: [...doneSlotsFor(item, undefined)].sort().reverse(),
    ...(item.buffered !== undefined &&
      item.buffered.size > 0 && { waiting: [...item.buffered].map(slotIdOfDoneKey).sort() }),
  };
}

/**
 * The lease items of `job`, from the table alone (no job code): `JOB#<job>`, and when that item
 * records `shards: N` (sharded jobs, see `ClaimRequest.shards`) the shard leases `JOB#<job>#0..N-1`.
 * Without a base item (a shard re-triggered alone, or a never-claimed job) `JOB#<job>#0` is read for
 * the count. One GetItem for an unsharded job, plus one per shard of a sharded job. Lease items
 * written before the count was recorded carry none: the job's next claim writes it.
 * @returns the shard count the table records (1 for an unsharded or never-claimed job), the job
 *   lease item (`base`) and the items to show (the job lease, or each shard lease).
 */
export async function readLeases(
  store: DynamoLeaseStore,
  job: string,
): Promise<{
  shards: number;
  base: LeaseItem | undefined;
  leases: { shard?: number; item: LeaseItem | undefined }[];
}> {
  const base = await store.get({ job });
  const first = base === undefined ? await store.get({ job, shard: 0 }) : undefined;
  const shards = base?.shards ?? first?.shards ?? 1;
  if (shards <= 1) return { shards: 1, base, leases: [{ item: base }] };
  const rest = await Promise.all(
    Array.from({ length: shards }, async (_, shard) => ({ shard, item: await store.get({ job, shard }) })),
  );
  return { shards, base, leases: rest };
}

/**
 * The job's lease views as of now (by this machine's clock): one for an unsharded job, one per
 * shard of a sharded one, or only `shard`'s.
 * @throws InvalidArgumentError naming `shard` when the job is not sharded in the table or has no
 *   such shard; StoreError
 */
export async function leaseViews(s: Session, job: string, shard?: number): Promise<LeaseView[]> {
  const conn = await s.connection();
  const store = new DynamoLeaseStore(conn.doc, conn.tableName);
  const { shards, leases } = await readLeases(store, job);
  if (shard !== undefined && shards === 1) {
    throw usage(
      'shard',
      shard,
      `job ${job} is not sharded in table ${conn.tableName} (one lease, JOB#${job}): drop \`shard\``,
    );
  }
  if (shard !== undefined && shard >= shards) {
    throw usage('shard', shard, `job ${job} has ${shards} shards: 0..${shards - 1}`);
  }
  const nowMs = s.now();
  return leases
    .filter((l) => shard === undefined || l.shard === shard)
    .map((l) => leaseView(job, l.shard, l.item, nowMs));
}
