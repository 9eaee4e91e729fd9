/**
 * `cronfence lease <job>`: who holds the job's lease (or held it last), its fence, until when, and
 * the recently succeeded slots the lease item remembers (`doneSlots`). Read from the table alone (the
 * job's name, no job code): one GetItem, plus one per shard of a sharded job.
 */
import type { Command } from 'commander';
import { doneSlotsFor, type LeaseItem } from '../lib/core/lease.js';
import { DynamoLeaseStore } from '../lib/store/lease-store.js';
import { intArg, jobNameArg } from './args.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import { action, cell, ExitCode, iso, out, table, toJson, usage } from './output.js';

interface LeaseFlags extends ConnectionFlags {
  readonly shard?: number;
  readonly slots: number;
}

/** The lease as the CLI reports it. */
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
  };
}

function human(v: LeaseView, nowMs: number, slots: number): string {
  const name = v.shard === undefined ? v.job : `${v.job} (shard ${v.shard})`;
  if (v.state === 'never-claimed') return `${name}: no lease item yet (never claimed)`;
  const until = v.leaseUntilMs ?? 0;
  const status =
    v.state === 'held'
      ? `held, ${Math.ceil((until - nowMs) / 1000)}s left`
      : v.state === 'expired'
        ? `expired ${Math.round((nowMs - until) / 1000)}s ago without release (next claim marks the run abandoned)`
        : 'released';
  const done = v.recentlySucceededSlots;
  const rows: [string, string][] = [
    ['job', name],
    ['state', status],
    [
      'holder',
      `${cell(v.holder)}${v.slot ? ` (slot ${v.slot}${v.trigger ? `, ${v.trigger}${v.requestedBy ? ` by ${v.requestedBy}` : ''}` : ''})` : ''}`,
    ],
    ['fence', cell(v.fence)],
    ['leaseUntil', v.state === 'released' ? 'released' : cell(v.leaseUntil)],
    ['lastSucceeded', cell(v.lastSucceeded)],
    ['acquiredAt', iso(v.acquiredAtMs)],
    ['renewedAt', iso(v.renewedAtMs)],
    ['releasedAt', iso(v.releasedAtMs)],
    ['lambdaRequestId', cell(v.lambdaRequestId)],
    [
      'succeeded slots',
      done.length === 0
        ? '-'
        : `${done.slice(0, slots).join(', ')}${done.length > slots ? ` (+${done.length - slots} older)` : ''}`,
    ],
  ];
  return table(
    rows,
    [
      { header: 'FIELD', cell: ([k]) => k },
      { header: 'VALUE', cell: ([, val]) => val, max: Number.POSITIVE_INFINITY },
    ],
    { header: false },
  );
}

/**
 * The lease items of `job`, from the table alone (no job code): `JOB#<job>`, and when that item
 * records `shards: N` (sharded jobs, see `ClaimRequest.shards`) the shard leases `JOB#<job>#0..N-1`.
 * Without a base item (a shard re-triggered alone, or a never-claimed job) `JOB#<job>#0` is read for
 * the count. One GetItem for an unsharded job, plus one per shard of a sharded job. Lease items
 * written before the count was recorded carry none: the job's next claim writes it.
 * @returns the shard count the table records (1 for an unsharded or never-claimed job) and the items.
 */
export async function readLeases(
  store: DynamoLeaseStore,
  job: string,
): Promise<{ shards: number; leases: { shard?: number; item: LeaseItem | undefined }[] }> {
  const base = await store.get({ job });
  const first = base === undefined ? await store.get({ job, shard: 0 }) : undefined;
  const shards = base?.shards ?? first?.shards ?? 1;
  if (shards <= 1) return { shards: 1, leases: [{ item: base }] };
  const rest = await Promise.all(
    Array.from({ length: shards }, async (_, shard) => ({ shard, item: await store.get({ job, shard }) })),
  );
  return { shards, leases: rest };
}

/** Register `lease` on the program. It reads the table only: no job code is imported. */
export function registerLease(program: Command): void {
  const cmd = program
    .command('lease')
    .argument('<job>', 'job name', jobNameArg('<job>'))
    .description("Show a job's lease: holder, fence, leaseUntil and recently succeeded slots")
    .option('--shard <n>', 'only this shard of a sharded job', intArg('--shard', 0, 999))
    .option('--slots <n>', 'succeeded slots to list in the table', intArg('--slots', 1, 1000), 10);
  withConnectionOptions(cmd).action(
    action(async (job: string, flags: LeaseFlags) => {
      const conn = await connect(flags);
      try {
        const store = new DynamoLeaseStore(conn.doc, conn.tableName);
        const { shards, leases } = await readLeases(store, job);
        if (flags.shard !== undefined && shards === 1) {
          throw usage(
            '--shard',
            flags.shard,
            `job ${job} is not sharded in table ${conn.tableName} (one lease, JOB#${job}): drop --shard`,
          );
        }
        if (flags.shard !== undefined && flags.shard >= shards) {
          throw usage('--shard', flags.shard, `job ${job} has ${shards} shards: 0..${shards - 1}`);
        }
        const nowMs = Date.now();
        const views = leases
          .filter((l) => flags.shard === undefined || l.shard === flags.shard)
          .map((l) => leaseView(job, l.shard, l.item, nowMs));
        if (flags.json) out(toJson(views.length === 1 ? views[0] : views));
        else out(views.map((v) => human(v, nowMs, flags.slots)).join('\n\n'));
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );
}
