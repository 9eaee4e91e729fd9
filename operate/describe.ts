/**
 * One job as an operator sees it (`JobHandle.describe`): its definition and next occurrences when its
 * code is at hand, and from the table its lease (every shard's), its pause and the lease version the
 * conditioned operations take back (`expect`). Without the job's code the definition is absent and
 * the lease, pause and version are still there.
 */
import { checkJob, type Occurrence } from '../lib/core/job-check.js';
import type { JobDefinition } from '../lib/core/job-definition.js';
import { overlapConsequence, overlapLabel, overlapOfJob } from '../lib/core/overlap-check.js';
import { pauseInForce } from '../lib/core/pause.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { DynamoLeaseStore } from '../lib/store/lease-store.js';
import { leaseVersion } from '../lib/store/protocol/pause-operations.js';
import { iso } from './input.js';
import { type LeaseView, leaseView, readLeases } from './lease.js';
import type { Session } from './session.js';

/** A pause in force. */
export interface PauseStateView {
  readonly by: string;
  /** ISO-8601 UTC. */
  readonly since: string;
  readonly note: string;
  /** ISO-8601 UTC, when it ends by itself. */
  readonly until?: string;
}

/** What {@link describeJob} reports. */
export interface JobDescription {
  readonly job: string;
  /** The job's definition, when its code was given (else absent: the name was all there was). */
  readonly definition?: JobDefinition;
  /**
   * The overlap policy (`buffer-all(4)`, `replace(>300s)`) and what it does to an occurrence meeting a
   * holder, when the job's code was given.
   */
  readonly overlap?: { readonly label: string; readonly consequence: string };
  /** The next occurrences (at most 5) by the definition; empty without the job's code. */
  readonly next: readonly Occurrence[];
  /** The job lease, then each shard lease of a sharded job. */
  readonly leases: readonly LeaseView[];
  /** The pause in force now, or null. */
  readonly paused: PauseStateView | null;
  /** The job lease's version (`<fence>:<pausedAtMs>`): what `pause`, `resume`, `trigger`, `backfill` take as `expect`. */
  readonly version: string;
}

function overlapView(handler: JobHandler, nowMs: number): { label: string; consequence: string } {
  const o = overlapOfJob(handler.job, handler.expression, nowMs);
  return { label: overlapLabel(o), consequence: overlapConsequence(o, handler.job) };
}

/**
 * Describe job `job`: one GetItem of its lease (plus one per shard), no job code needed.
 * @param handler the job's handler, when its code is at hand.
 * @throws StoreError
 */
export async function describeJob(
  s: Session,
  job: string,
  handler: JobHandler | undefined,
): Promise<JobDescription> {
  const conn = await s.connection();
  const nowMs = s.now();
  const store = new DynamoLeaseStore(conn.doc, conn.tableName);
  const { base, leases } = await readLeases(store, job);
  const pause = pauseInForce(base, nowMs);
  return {
    job,
    ...(handler && { definition: handler.job, overlap: overlapView(handler, nowMs) }),
    next: handler ? checkJob(handler.job, nowMs).next.slice(0, 5) : [],
    leases: [
      ...(leases.some((l) => l.shard !== undefined) ? [leaseView(job, undefined, base, nowMs)] : []),
      ...leases.map((l) => leaseView(job, l.shard, l.item, nowMs)),
    ],
    paused: pause
      ? {
          by: pause.by,
          since: iso(pause.atMs),
          note: pause.note,
          ...(pause.untilMs !== undefined && { until: iso(pause.untilMs) }),
        }
      : null,
    version: leaseVersion(base),
  };
}
