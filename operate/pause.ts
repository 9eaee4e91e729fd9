/**
 * Pause and resume a job (`JobHandle.pause` / `resume`, `cronfence pause` / `resume`): a pause is
 * stored on the job's lease item (and its shard leases) and enforced by every claim (docs/design.md
 * "Pause"). Both are conditioned on the lease version the operator was shown (`expect`, else the one
 * read now). Resume reports the slots that fell in the pause and what the job's catch-up rule will
 * do with them (the sweeper runs them, not resume).
 */
import { MAX_PAUSED_BY_CHARS, pauseInForce } from '../lib/core/pause.js';
import { LeaseChangedError } from '../lib/errors.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { DEFAULT_CATCH_UP } from '../lib/runtime/sweeper.js';
import { DynamoPauseStore } from '../lib/store/pause-store.js';
import { leaseVersion, liveHolder } from '../lib/store/protocol/pause-operations.js';
import { DynamoRunStore } from '../lib/store/run-store.js';
import type { Connection } from './connection.js';
import { iso, operatorValue } from './input.js';
import { type PausedSlot, pausedSlots } from './paused-slots.js';
import { setScheduleState } from './schedule-state.js';
import type { Session } from './session.js';

/** Options shared by pause and resume. */
interface ControlOptions {
  /** Who, 1-128 characters (kept on the lease). @default `CRONFENCE_OPERATOR`, then the OS user */
  readonly by?: string;
  /** The lease version the operator was shown (`<fence>:<pausedAtMs>`): refused, nothing changed, if the lease changed since. @default the version read now */
  readonly expect?: string;
  /** The job's Scheduler schedule group (AWS only). @default found by ListSchedules */
  readonly scheduleGroup?: string;
}

/** What {@link pauseJob} stores. */
export interface PauseOptions extends ControlOptions {
  /** Why, 1-200 characters (stored on the lease item). */
  readonly note: string;
  /** The pause ends by itself at this instant, epoch ms. @default never */
  readonly untilMs?: number;
  /** Also set the job's Scheduler schedule DISABLED (AWS; needs scheduler:UpdateSchedule). @default false */
  readonly disableSchedule?: boolean;
}

/** Options of {@link resumeJob}. */
export interface ResumeOptions extends ControlOptions {
  /** Also set the job's Scheduler schedule ENABLED (AWS; needs scheduler:UpdateSchedule). @default false */
  readonly enableSchedule?: boolean;
}

/** The run a pause lets finish: it holds the lease now. */
export interface LiveHolderView {
  readonly runId: string;
  readonly slot: string;
  readonly fence: number;
  /** Epoch ms. */
  readonly leaseUntilMs: number;
}

/** A pause as stored (`cronfence pause --json`). */
export interface PauseView {
  readonly job: string;
  readonly paused: true;
  readonly by: string;
  /** ISO-8601 UTC. */
  readonly pausedAt: string;
  readonly note: string;
  /** ISO-8601 UTC, when the pause ends by itself. */
  readonly until?: string;
  /** Lease items paused: 1, or shards + 1 for a sharded job. */
  readonly leases: number;
  /** `<version before> -> <version after>`. */
  readonly version: string;
  /** What happened to the Scheduler schedule, when asked. */
  readonly schedule?: string;
  /** The run that held the lease when the pause was written: it finishes its run. */
  readonly holder?: LiveHolderView;
}

/** A resumed pause (`cronfence resume --json`), or `resumed: false` when the job was not paused. */
export type ResumeView =
  | {
      readonly job: string;
      readonly resumed: true;
      readonly pause: {
        readonly by: string;
        readonly pausedAt: string;
        readonly note: string;
        readonly until?: string;
        readonly runIds?: string[];
        /** False when its `until` had passed. */
        readonly inForce: boolean;
      };
      /** The job's catch-up mode (`none`, `latest`, `all`): it decides what runs of the skipped slots. */
      readonly catchUp: string;
      readonly version: string;
      readonly skippedSlots: PausedSlot[];
      readonly schedule?: string;
    }
  | { readonly job: string; readonly resumed: false; readonly why: 'not-paused' };

async function scheduleState(
  conn: Connection,
  job: string,
  state: 'ENABLED' | 'DISABLED',
  group: string | undefined,
): Promise<string> {
  if (conn.mode === 'local')
    return 'local: no EventBridge Scheduler schedule (the emulator delivers; the lease refuses them)';
  return setScheduleState(conn.clientConfig, job, state, group);
}

/**
 * Pause `handler`'s job: read the lease, condition the pause on what was read (or on `expect`).
 * @throws InvalidArgumentError naming `by`, `note` or `untilMs`; LeaseChangedError when the
 *   lease is not at `expect`; StoreError
 */
export async function pauseJob(s: Session, handler: JobHandler, o: PauseOptions): Promise<PauseView> {
  const job = handler.job.name;
  // Checked first, naming where the name came from (--by, CRONFENCE_OPERATOR, the OS user): nothing
  // written (the store checks it again, as `--by`).
  const by = operatorValue('by', o.by, MAX_PAUSED_BY_CHARS);
  const conn = await s.connection();
  const nowMs = s.now();
  const store = new DynamoPauseStore(conn.doc, conn.tableName);
  const before = await store.lease(job);
  const shown = o.expect ?? leaseVersion(before);
  const pause = await store.pause({
    job,
    shards: handler.job.shards,
    by,
    note: o.note,
    ...(o.untilMs !== undefined && { untilMs: o.untilMs }),
    nowMs,
    expect: shown,
  });
  const schedule = o.disableSchedule
    ? await scheduleState(conn, job, 'DISABLED', o.scheduleGroup)
    : undefined;
  const h = liveHolder(before, nowMs);
  return {
    job,
    paused: true,
    by: pause.by,
    pausedAt: iso(pause.atMs),
    note: pause.note,
    ...(pause.untilMs !== undefined && { until: iso(pause.untilMs) }),
    leases: handler.job.shards > 1 ? handler.job.shards + 1 : 1,
    version: `${shown} -> ${leaseVersion({ fence: before?.fence, pausedAtMs: pause.atMs })}`,
    ...(schedule !== undefined && { schedule }),
    ...(h && {
      holder: { runId: h.runId, slot: String(h.slot), fence: Number(h.fence), leaseUntilMs: h.leaseUntilMs },
    }),
  };
}

/**
 * Clear `handler`'s job's pause and list the slots it skipped.
 * @throws InvalidArgumentError naming `by`; LeaseChangedError when the lease is not at `expect`;
 *   StoreError
 */
export async function resumeJob(s: Session, handler: JobHandler, o: ResumeOptions): Promise<ResumeView> {
  const job = handler.job.name;
  const by = operatorValue('by', o.by, MAX_PAUSED_BY_CHARS);
  const conn = await s.connection();
  const nowMs = s.now();
  const store = new DynamoPauseStore(conn.doc, conn.tableName);
  const item = await store.lease(job);
  const pausedAtMs = item?.pausedAtMs;
  if (pausedAtMs === undefined) return { job, resumed: false, why: 'not-paused' };
  if (o.expect !== undefined && o.expect !== leaseVersion(item))
    throw new LeaseChangedError(job, o.expect, item as Record<string, unknown>);
  const inForce = pauseInForce(item, nowMs);
  await store.resume({
    job,
    shards: handler.job.shards,
    pausedAtMs,
    by,
    nowMs,
    ...(item?.fence !== undefined && { fence: item.fence }),
  });
  const endMs = Math.min(nowMs, item?.pausedUntilMs ?? nowMs);
  const slots = await pausedSlots(handler, new DynamoRunStore(conn.doc, conn.tableName), {
    fromMs: pausedAtMs,
    toMs: endMs,
    nowMs,
  });
  const schedule = o.enableSchedule ? await scheduleState(conn, job, 'ENABLED', o.scheduleGroup) : undefined;
  return {
    job,
    resumed: true,
    pause: {
      by: String(item?.pausedBy),
      pausedAt: iso(pausedAtMs),
      note: String(item?.pauseNote ?? ''),
      ...(item?.pausedUntilMs !== undefined && { until: iso(item.pausedUntilMs) }),
      ...(item?.pausedRuns !== undefined && { runIds: [...item.pausedRuns] }),
      inForce: inForce !== undefined,
    },
    catchUp: (handler.job.catchUp ?? DEFAULT_CATCH_UP).mode,
    version: `${leaseVersion(item)} -> ${leaseVersion({ fence: item?.fence })}`,
    skippedSlots: slots,
    ...(schedule !== undefined && { schedule }),
  };
}
