/**
 * Pause and resume a job at its lease (docs/design.md "Pause"): the declared writes of
 * protocol/pause-operations.ts, one transaction of the job lease and up to 99 shard leases, further
 * shard leases (jobs of 100+ shards) in transactions of 100 after it. Operators' path, never a run's.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LeaseItem } from '../core/lease.js';
import { type PauseState, pauseInForce, validatePause } from '../core/pause.js';
import { LeaseChangedError } from './operator-errors.js';
import { DynamoBackend } from './protocol/dynamo-backend.js';
import {
  leaseVersion,
  MAX_TRANSACTION_ITEMS,
  type PauseTarget,
  pause,
  resume,
  shownLease,
} from './protocol/pause-operations.js';
import { type ProtocolBackend, perform, read } from './protocol/request.js';
import { Keys } from './schema.js';

/** Split a job's lease items into requests: the first with the job lease, then shard chunks. */
export function pauseTargets(table: string, job: string, shards: number): PauseTarget[] {
  const all = shards > 1 ? Array.from({ length: shards }, (_, i) => i) : [];
  const first = all.slice(0, MAX_TRANSACTION_ITEMS - 1);
  const out: PauseTarget[] = [{ table, job, jobLease: true, shards: first }];
  for (let i = first.length; i < all.length; i += MAX_TRANSACTION_ITEMS)
    out.push({ table, job, jobLease: false, shards: all.slice(i, i + MAX_TRANSACTION_ITEMS) });
  return out;
}

/** Pause store on the library table of a protocol backend. */
export class TablePauseStore {
  constructor(
    private readonly backend: ProtocolBackend,
    private readonly tableName: string,
  ) {}

  /**
   * Pause `job` (and each of its `shards` leases) from `nowMs`. With `expect` (a {@link leaseVersion}
   * token the operator was shown) the job lease is read first and the pause is conditioned on its fence.
   * @throws InvalidArgumentError naming `note`, `by` or `untilMs` (nothing written);
   *   JobPausedError when a pause is in force; LeaseChangedError when the lease is not at `expect`; StoreError
   */
  async pause(input: {
    job: string;
    shards: number;
    by: string;
    note: string;
    untilMs?: number;
    nowMs: number;
    expect?: string;
  }): Promise<PauseState> {
    const { note, by } = validatePause(input, input.nowMs);
    let shown: ReturnType<typeof shownLease> | undefined;
    if (input.expect !== undefined) {
      const item = await this.lease(input.job);
      if (leaseVersion(item) !== input.expect) throw new LeaseChangedError(input.job, input.expect, item);
      shown = shownLease(item);
    }
    const base = {
      nowMs: input.nowMs,
      by,
      note,
      ...(input.untilMs !== undefined && { untilMs: input.untilMs }),
      ...(shown !== undefined && { shown }),
    };
    for (const t of pauseTargets(this.tableName, input.job, input.shards))
      await perform(this.backend, pause, { ...t, ...base });
    return { by, atMs: input.nowMs, note, ...(input.untilMs !== undefined && { untilMs: input.untilMs }) };
  }

  /**
   * Clear the pause stored at `pausedAtMs` (and, when given, only at lease fence `fence`): shard chunks
   * beyond the first, then the job lease with its first shards. @throws JobNotPausedError; StoreError
   */
  async resume(input: {
    job: string;
    shards: number;
    pausedAtMs: number;
    /** Who resumes and when (epoch ms), kept on the job lease for readers. @default not kept */
    by?: string;
    nowMs?: number;
    /** The lease fence the operator saw. @default any */
    fence?: number;
  }): Promise<void> {
    const targets = pauseTargets(this.tableName, input.job, input.shards);
    const trace = {
      ...(input.by !== undefined && { by: input.by }),
      ...(input.nowMs !== undefined && { nowMs: input.nowMs }),
    };
    for (const t of [...targets.slice(1), targets[0] as PauseTarget])
      await perform(this.backend, resume, {
        ...t,
        pausedAtMs: input.pausedAtMs,
        ...trace,
        ...(t.jobLease && input.fence !== undefined && { fence: input.fence }),
      });
  }

  /** The job lease item, or a shard's (one GetItem). @throws StoreError */
  async lease(job: string, shard?: number): Promise<LeaseItem | undefined> {
    return (await read(this.backend, this.tableName, Keys.lease(job, shard), 'lease')) as
      | LeaseItem
      | undefined;
  }

  /** The pause in force on the job lease at `nowMs`, if any (one GetItem). @throws StoreError */
  async pauseOf(job: string, nowMs: number): Promise<PauseState | undefined> {
    return pauseInForce(await this.lease(job), nowMs);
  }
}

/** Pause store on the library table in DynamoDB. */
export class DynamoPauseStore extends TablePauseStore {
  constructor(doc: DynamoDBDocumentClient, tableName: string) {
    super(new DynamoBackend(doc), tableName);
  }
}
