/**
 * Running a backfill plan: one lane per lease (job or shard), because a job's slots share its lease —
 * two slots of one lease at once would only skip each other (`overlap`). Within a lane, slots go one
 * at a time: a local invocation returns when the run finished; an asynchronous Lambda invocation is
 * followed by polling for its run record (bounded by `waitPerSlotMs`) before the next slot is sent.
 */
import pLimit from 'p-limit';
import pWaitFor from 'p-wait-for';
import type { Invoker } from './backfill-invoke.js';
import { manualEvent } from './backfill-plan.js';
import { backfillRecords, type PlannedRun, plannedKey } from './backfill-summary.js';
import type { Connection } from './connection.js';

/** Who asked, why, and since when (the records' filter). */
export interface BackfillRequest {
  readonly job: string;
  readonly by: string;
  readonly reason: string;
  /** Identifies this backfill: sent as every event's `executionId`, stored on each run record. */
  readonly backfillId: string;
}

/** Options of {@link executeBackfill}. */
export interface ExecuteOptions {
  readonly conn: Connection;
  readonly invoker: Invoker;
  readonly request: BackfillRequest;
  readonly planned: readonly PlannedRun[];
  /** Lanes (leases) in flight at once. */
  readonly concurrency: number;
  /** Asynchronous invocations: how long to wait for one slot's run record before moving on, ms. */
  readonly waitPerSlotMs: number;
  /** @default 1000 */
  readonly pollMs?: number;
  /** Called after each slot with what is known of it (an outcome, `sent`, `pending` or `error`). */
  readonly onProgress?: (p: PlannedRun, status: string) => void;
}

async function awaitRecord(o: ExecuteOptions, p: PlannedRun): Promise<string> {
  let outcome = 'pending';
  const recorded = async () => {
    const recs = await backfillRecords(o.conn.doc, o.conn.tableName, o.request.job, [p], o.request);
    const mine = recs.filter((r) => (r.shard as number | undefined) === p.shard);
    if (mine.length > 0) outcome = String(mine[mine.length - 1]?.outcome);
    return mine.length > 0;
  };
  // First look at once; then every pollMs until waitPerSlotMs has passed.
  await pWaitFor(recorded, {
    interval: o.pollMs ?? 1000,
    timeout: { milliseconds: o.waitPerSlotMs, fallback: () => undefined },
  });
  return outcome;
}

/**
 * Send every planned run, lane by lane. @returns hand-off errors by {@link plannedKey} (runs whose
 * event never reached the function).
 */
export async function executeBackfill(o: ExecuteOptions): Promise<Map<string, string>> {
  const lanes = new Map<number | undefined, PlannedRun[]>();
  for (const p of o.planned) lanes.set(p.shard, [...(lanes.get(p.shard) ?? []), p]);
  const sendErrors = new Map<string, string>();
  const runLane = async (lane: readonly PlannedRun[]) => {
    for (const p of lane) {
      const r = await o.invoker(manualEvent(o.request, p.slot, p.shard));
      let status = r.summary?.outcome ?? (r.ok ? 'sent' : 'error');
      if (!r.ok && !r.summary) sendErrors.set(plannedKey(p), r.error ?? 'error');
      else if (!r.summary && o.waitPerSlotMs > 0) status = await awaitRecord(o, p);
      o.onProgress?.(p, status);
    }
  };
  // p-limit: at most `concurrency` lanes in flight (a maintained pool instead of our own).
  const limit = pLimit(o.concurrency);
  await Promise.all([...lanes.values()].map((lane) => limit(() => runLane(lane))));
  return sendErrors;
}
