/**
 * The operator's pause and resume (docs/design.md "Pause"), declared once like every write of the
 * protocol: conditional writes on the job's lease item and — for a sharded job — on every shard lease
 * item `JOB#<job>#<n>` in the same transaction, so a shard's own delivery (a Lambda retry of a shard
 * invocation) meets the pause at its own claim. The claim's condition (`notPaused` in operations.ts)
 * does the enforcing; these writes only store or clear `pausedAtMs`, `pausedBy`, `pauseNote`,
 * `pausedUntilMs` (and `pausedRuns`, `failedSlots` of a `pauseOnFailure` pause). Neither is on a run's
 * path. Tagged `other` (ops.ts): no fault rule or timeline step names them.
 */
import type { LeaseItem } from '../../core/lease.js';
import { pauseInForce, RESUME_TRACE } from '../../core/pause.js';
import { JobNotPausedError, JobPausedError, LeaseChangedError } from '../operator-errors.js';
import { Keys } from '../schema.js';
import { and, type Condition, eq, exists, notExists, or } from './expression.js';
import { notPaused } from './operations.js';
import { ProtocolOp } from './ops.js';
import type { Item, Operation, Write } from './request.js';

/** Most items of one DynamoDB transaction (TransactWriteItems quota). */
export const MAX_TRANSACTION_ITEMS = 100;

/** Any state of the item (a shard lease follows its job lease, whatever it holds). */
const always: Condition = or(notExists('pk'), exists('pk'));

/**
 * The state of a job's lease an operator is shown and hands back as the condition of a pause, resume,
 * trigger or backfill: its fence (every claim increments it) and the pause it carries. Renewals do not
 * change it.
 */
export interface ShownLease {
  /** The lease's fence; absent: never claimed. */
  readonly fence?: number;
  /** The stored pause's `pausedAtMs`; absent: not paused. */
  readonly pausedAtMs?: number;
}

/** What an operator is shown of a lease item. */
export function shownLease(item: { fence?: unknown; pausedAtMs?: unknown } | undefined): ShownLease {
  return {
    ...(typeof item?.fence === 'number' && { fence: item.fence }),
    ...(typeof item?.pausedAtMs === 'number' && { pausedAtMs: item.pausedAtMs }),
  };
}

/**
 * The version token of a lease as printed by `pause`, `resume`, `trigger --dry-run` and
 * `backfill --dry-run`: `<fence>:<pausedAtMs>`, `-` for absent, e.g. `7:-` (fence 7, not paused).
 */
export function leaseVersion(item: { fence?: unknown; pausedAtMs?: unknown } | undefined): string {
  const v = shownLease(item);
  return `${v.fence ?? '-'}:${v.pausedAtMs ?? '-'}`;
}

/** The lease still has the fence and the pause shown. */
export function leaseAsShown(v: ShownLease): Condition {
  return and(
    v.fence === undefined ? notExists('fence') : eq('fence', v.fence),
    v.pausedAtMs === undefined ? notExists('pausedAtMs') : eq('pausedAtMs', v.pausedAtMs),
  );
}

/** The run holding a lease at `nowMs` by the caller's clock (running, lease not ended), if any. */
export function liveHolder(
  item: LeaseItem | undefined,
  nowMs: number,
): { runId: string; slot?: string; fence?: number; leaseUntilMs: number } | undefined {
  if (item?.holderState !== 'running' || item.owner === undefined) return undefined;
  const until = Number(item.leaseUntilMs);
  if (!(until >= nowMs)) return undefined;
  return {
    runId: item.owner,
    ...(item.slot !== undefined && { slot: String(item.slot) }),
    ...(item.fence !== undefined && { fence: Number(item.fence) }),
    leaseUntilMs: until,
  };
}

/** Which lease items one pause or resume request writes: the job lease and/or some shard leases. */
export interface PauseTarget {
  readonly table: string;
  readonly job: string;
  /** Include the job lease `JOB#<job>` (and check its condition). */
  readonly jobLease: boolean;
  /** Shard indexes whose lease items to write too. */
  readonly shards: readonly number[];
}

/** The lease's fence is the one shown (none: never claimed). */
function fenceAsShown(v: ShownLease): Condition {
  return v.fence === undefined ? notExists('fence') : eq('fence', v.fence);
}

/** Input of {@link pause}. */
export interface PauseInput extends PauseTarget {
  readonly nowMs: number;
  readonly by: string;
  readonly note: string;
  /** Ends by itself at this instant, epoch ms. @default until resumed */
  readonly untilMs?: number;
  /** The job lease as the operator was shown it (its fence): the pause is refused if it changed. */
  readonly shown?: ShownLease;
}

function writesOf(t: PauseTarget, jobWrite: (key: Item) => Write, shardWrite: (key: Item) => Write) {
  const writes: Write[] = [
    ...(t.jobLease ? [jobWrite(Keys.lease(t.job))] : []),
    ...t.shards.map((n) => shardWrite(Keys.lease(t.job, n))),
  ];
  if (writes.length === 0 || writes.length > MAX_TRANSACTION_ITEMS)
    throw new RangeError(
      `a pause request writes 1 to ${MAX_TRANSACTION_ITEMS} lease items, not ${writes.length}`,
    );
  return writes as [Write, ...Write[]];
}

/**
 * Pause: store who, when, the note and the optional expiry on the job lease — only if no pause is in
 * force there ({@link notPaused}: an expired `--until` pause is replaced) — and on the given shard
 * leases. A holder running now keeps its lease and finishes its run; the next claim refuses.
 * Refused: JobPausedError carrying the pause in force.
 */
export const pause: Operation<PauseInput, void> = {
  name: 'pause',
  request: (p) => {
    const update = (key: Item, condition: Condition): Write => ({
      kind: 'update',
      table: p.table,
      key,
      condition,
      update: {
        set: {
          pausedAtMs: p.nowMs,
          pausedBy: p.by,
          pauseNote: p.note,
          ...(p.untilMs !== undefined && { pausedUntilMs: p.untilMs }),
        },
        remove: [...(p.untilMs === undefined ? ['pausedUntilMs'] : []), 'pausedRuns', ...RESUME_TRACE],
      },
    });
    const key = Keys.lease(p.job);
    return {
      tag: { op: ProtocolOp.Other, name: 'pause', table: p.table, key },
      label: `pause ${p.job}`,
      writes: writesOf(
        p,
        (k) =>
          update(
            k,
            p.shown === undefined ? notPaused(p.nowMs) : and(notPaused(p.nowMs), fenceAsShown(p.shown)),
          ),
        (k) => update(k, always),
      ),
    };
  },
  accepted: () => undefined,
  refused: (item, _i, p) => {
    const state = pauseInForce(item as LeaseItem | undefined, p.nowMs);
    if (state === undefined && p.shown !== undefined)
      throw new LeaseChangedError(p.job, leaseVersion(p.shown), item);
    throw new JobPausedError(p.job, state, item);
  },
};

/** Input of {@link resume}. */
export interface ResumeInput extends PauseTarget {
  /** The `pausedAtMs` the operator saw: only that pause is cleared (a newer one stays). */
  readonly pausedAtMs: number;
  /** The fence the operator saw (a paused lease is never claimed, so it does not move). @default any */
  readonly fence?: number;
  /**
   * Who resumed and when (epoch ms): stored on the job lease as `resumedBy`, `resumedAtMs` and
   * `resumedPauseAtMs` (the pause it ended), so a reader (`cronfence report`) can draw the resume. The
   * next pause removes them. @default not stored
   */
  readonly by?: string;
  readonly nowMs?: number;
}

/**
 * Resume: remove the pause (and a `pauseOnFailure` streak) from the job lease, only if it still holds
 * the pause the operator saw (same `pausedAtMs`), and from the given shard leases. Missed slots are
 * then the sweeper's, by the job's catch-up rule. Refused: JobNotPausedError carrying the item.
 */
export const resume: Operation<ResumeInput, void> = {
  name: 'resume',
  request: (r) => {
    const clear = (key: Item, condition: Condition, trace: Item = {}): Write => ({
      kind: 'update',
      table: r.table,
      key,
      condition,
      update: {
        set: trace,
        remove: ['pausedAtMs', 'pausedBy', 'pauseNote', 'pausedUntilMs', 'pausedRuns', 'failedSlots'],
      },
    });
    const trace =
      r.nowMs !== undefined && r.by !== undefined
        ? { resumedAtMs: r.nowMs, resumedBy: r.by, resumedPauseAtMs: r.pausedAtMs }
        : {};
    return {
      tag: { op: ProtocolOp.Other, name: 'resume', table: r.table, key: Keys.lease(r.job) },
      label: `resume ${r.job}`,
      writes: writesOf(
        r,
        (k) =>
          clear(
            k,
            r.fence === undefined
              ? eq('pausedAtMs', r.pausedAtMs)
              : and(eq('pausedAtMs', r.pausedAtMs), eq('fence', r.fence)),
            trace,
          ),
        (k) => clear(k, always),
      ),
    };
  },
  accepted: () => undefined,
  refused: (item, _i, r) => {
    throw new JobNotPausedError(r.job, item);
  },
};
