/**
 * The lease check before a manual run (`trigger`, `backfill`): the job's lease (and every shard lease)
 * is read and shown; a lease a live run holds refuses the command when the job's overlap policy would
 * only skip the manual runs (nothing invoked), naming the holder, when its lease ends and what each run
 * would be recorded; `--expect` refuses a job lease that changed since the version the operator was
 * shown. Under `buffer-*` the runs go ahead and queue behind the holder (`buffered`, or `buffer-full`
 * once the buffer is full), and under `replace` they go ahead when a planned slot is newer than the
 * holder's (that run displaces it). The run's own claim is the atomic guard that follows.
 */
import { type Overlap, OverlapPolicy, SKIP_OVERLAP } from '../lib/core/overlap.js';
import { LeaseBusyError, LeaseChangedError } from '../lib/errors.js';
import { TablePauseStore } from '../lib/store/pause-store.js';
import { DynamoBackend } from '../lib/store/protocol/dynamo-backend.js';
import { leaseVersion, liveHolder } from '../lib/store/protocol/pause-operations.js';
import type { Connection } from './connection.js';
import { iso } from './input.js';

/** What the check read: the job lease's version and its live holder, if any. */
export interface LeaseVersionView {
  readonly version: string;
  readonly holder?: ReturnType<typeof liveHolder>;
}

/**
 * What every manual run of `slots` would be recorded under a live holder of slot `holderSlot`, when the
 * policy only skips them; `undefined` when the policy lets one of them run or wait in the buffer.
 */
export function skippedUnderHolder(
  overlap: Overlap,
  holderSlot: string | undefined,
  slots: readonly string[],
): string | undefined {
  switch (overlap.policy) {
    case OverlapPolicy.BufferOne:
    case OverlapPolicy.BufferAll:
      return undefined;
    case OverlapPolicy.Replace:
      return holderSlot !== undefined && slots.some((s) => holderSlot < s)
        ? undefined
        : `skipped / overlap (overlap replace displaces a holder of an older slot only)`;
    case OverlapPolicy.AfterPrevious:
      return 'skipped / waiting-for-previous (overlap after-previous)';
    default:
      return 'skipped / lease-held';
  }
}

/**
 * Read the job's leases at `nowMs` and refuse a manual run they would skip.
 * @param shards the job's shard count (1: only the job lease)
 * @param expect the version the operator was shown (`--expect`) @default none
 * @param refuseHeld false for a read-only view (`--dry-run`) @default true
 * @param overlap the job's overlap policy (`overlapOf(definition)`) @default skip
 * @param slots the slot ids the manual runs are for (`replace`: one newer than the holder's goes ahead)
 *   @default none
 * @throws LeaseChangedError when the job lease is not at `expect`; LeaseBusyError when a lease is held
 *   by a live run and the policy would skip every run; StoreError
 */
export async function checkLeases(
  conn: Connection,
  job: string,
  o: {
    shards: number;
    nowMs: number;
    expect?: string;
    refuseHeld?: boolean;
    overlap?: Overlap;
    slots?: readonly string[];
  },
): Promise<LeaseVersionView> {
  const store = new TablePauseStore(new DynamoBackend(conn.doc), conn.tableName);
  const shards = o.shards > 1 ? [...Array(o.shards).keys()] : [];
  const [jobLease, ...shardLeases] = await Promise.all([
    store.lease(job),
    ...shards.map((n) => store.lease(job, n)),
  ]);
  const version = leaseVersion(jobLease);
  if (o.expect !== undefined && o.expect !== version)
    throw new LeaseChangedError(job, o.expect, jobLease as Record<string, unknown> | undefined);
  const held = [jobLease, ...shardLeases].flatMap((item, i) => {
    const h = liveHolder(item, o.nowMs);
    return h ? [{ pk: i === 0 ? `JOB#${job}` : `JOB#${job}#${shards[i - 1]}`, h, item }] : [];
  });
  const first = held[0];
  const skipped = first && skippedUnderHolder(o.overlap ?? SKIP_OVERLAP, first.h.slot, o.slots ?? []);
  if (first && skipped && o.refuseHeld !== false)
    throw new LeaseBusyError(
      `job ${job}: lease ${first.pk} is held by run ${first.h.runId} (slot ${String(first.h.slot)}, fence ${String(first.h.fence)}) until ${iso(first.h.leaseUntilMs)}: nothing invoked (a manual run now would only be recorded ${skipped}); wait until that run records its outcome or its lease ends (cronfence lease ${job}), then retry`,
      first.item as Record<string, unknown> | undefined,
    );
  const holder = liveHolder(jobLease, o.nowMs);
  return { version, ...(holder && { holder }) };
}
