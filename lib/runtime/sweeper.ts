/**
 * The sweeper (DESIGN.md "Time": missed-run detection, which Scheduler lacks): for every job, list
 * the expected slots in the recent window, compare them with what succeeded (the lease item's done
 * set and succeeded run records), and re-trigger the missing ones through the normal path with
 * trigger `catch-up`. Every decision lands in a run record (`catch-up-limit`) or a log line.
 */
import { type JobDefinition, jobKeyOf } from '../core/job-definition.js';
import { awaitsAbandonMark, type LeaseItem, openHolders } from '../core/lease.js';
import { definitionId, holdersToMark } from '../core/liveness.js';
import { Outcome, Reason, Trigger } from '../core/outcomes.js';
import { pauseInForce } from '../core/pause.js';
import type { Clock, LeaseStore, RunStore } from '../core/ports.js';
import { BEFORE_START, catchUpFloorMs, planCatchUp, sweepWindow } from '../core/schedule/catch-up.js';
import { enumerateSlots } from '../core/schedule/enumerate.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import type { Slot } from '../core/schedule/slot.js';
import { offScheduleSlots, type RecordFacts, slotStatuses } from '../core/slot-status.js';
import { shardPayloads } from './fan-out.js';

/** A job the sweeper watches, and how to invoke it. */
export interface SweepTarget {
  readonly definition: JobDefinition;
  readonly expression: ScheduleExpression;
  /** Rate jobs: the pinned Scheduler start, epoch ms. */
  readonly startMs?: number;
  /** Invoke the job asynchronously with this payload (Lambda Invoke `Event`, or in-process locally). */
  invoke(payload: Record<string, unknown>, slot: Slot): Promise<void>;
}

/** Catch-up used for a job that declares none: shifted DST-gap slots only, over one day. */
export const DEFAULT_CATCH_UP = { mode: 'none', windowHours: 24, maxSlotsPerSweep: 1 } as const;

/** One decision of a sweep. */
export interface SweepDecision {
  readonly job: string;
  readonly slot: string;
  readonly action: 'triggered' | 'skipped' | 'ignored';
  readonly reason: string;
}

/** What a sweep found and did. */
export interface SweepReport {
  readonly nowMs: number;
  readonly jobs: {
    readonly job: string;
    readonly expected: number;
    readonly succeeded: number;
    readonly missing: number;
  }[];
  readonly decisions: SweepDecision[];
}

/** Dependencies of {@link sweep}. */
export interface SweepDeps {
  readonly leases: LeaseStore;
  readonly runs: RunStore;
  readonly clock: Clock;
  /** One structured line per decision. @default console.log of JSON */
  readonly log?: (line: Record<string, unknown>) => void;
  /**
   * Catch up delivered-but-unfinished slots whatever `catchUp` says. `false` reproduces the sweeper
   * before it did (a same-slot skip was the end of the line): only the history explorer's broken
   * variant sets it, to prove the liveness invariant catches that. @default true
   */
  readonly catchUpUnfinished?: boolean;
}

/** The most two zones' local times differ (UTC-12 .. UTC+14), ms. */
const ZONE_SPAN_MS = 26 * 3_600_000;

/** The run id of the sweeper's `skipped / not-on-schedule` record of a delivered slot a redeploy removed. */
export const OFF_SCHEDULE_RUN_ID = 'sweeper-not-on-schedule';

/** Catch-up attempts of one unfinished slot after which the sweeper stops re-triggering it. */
export const MAX_CATCH_UP_ATTEMPTS = 3;

async function leaseItems(
  deps: SweepDeps,
  job: string,
  shards: number,
): Promise<Map<number | undefined, LeaseItem | undefined>> {
  const out = new Map<number | undefined, LeaseItem | undefined>();
  for (const shard of [undefined, ...Array.from({ length: shards > 1 ? shards : 0 }, (_, i) => i)])
    out.set(shard, await deps.leases.get({ job, ...(shard !== undefined && { shard }) }));
  return out;
}

async function recordsOf(
  deps: SweepDeps,
  job: string,
  slots: readonly Slot[],
  fromMs: number,
  toMs: number,
): Promise<RecordFacts[]> {
  if (toMs < fromMs) return [];
  // Slot ids are local minutes: a zone change between deploys gives the same occurrences other ids,
  // up to 26 h apart. Read that much around the window so records of the old ids are seen too — and
  // read the whole window even when the current schedule has no slot in it (a redeploy may have
  // removed slots that were delivered: offScheduleSlots).
  const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  const ids = [...slots.map((s) => s.id), minute(fromMs - ZONE_SPAN_MS), minute(toMs + ZONE_SPAN_MS)].sort();
  return deps.runs.slotRecords(job, ids[0] as string, ids[ids.length - 1] as string);
}

/** The payload a catch-up invocation carries (the manual form with trigger `catch-up`). */
export function catchUpPayload(job: string, slot: Slot, why: string): Record<string, unknown> {
  return {
    job,
    scheduledTime: `${new Date(slot.scheduledTimeMs).toISOString().slice(0, 19)}Z`,
    trigger: Trigger.CatchUp,
    requestedBy: 'sweeper',
    reason: why,
    ...(slot.shifted && { slot: slot.localTime }),
  };
}

/**
 * Sweep every target once.
 * @param graceMs leave slots younger than this to Scheduler and Lambda's own retries, ms. @default 600_000
 * @param notBeforeMs ignore slots at or before this instant (the emulator's range start), epoch ms. @default none
 * @throws StoreError when DynamoDB cannot be read (nothing is invoked for that job).
 */
export async function sweep(
  deps: SweepDeps,
  targets: readonly SweepTarget[],
  graceMs = 600_000,
  notBeforeMs = Number.NEGATIVE_INFINITY,
): Promise<SweepReport> {
  const nowMs = deps.clock.now();
  const log = deps.log ?? ((l) => console.log(JSON.stringify(l)));
  const report: SweepReport = { nowMs, jobs: [], decisions: [] };
  for (const t of targets) {
    const job = t.definition.name;
    // The job's identity in the table (its `id`, else its name): what leases and records are keyed by.
    const key = jobKeyOf(t.definition);
    const catchUp = t.definition.catchUp ?? DEFAULT_CATCH_UP;
    const window = sweepWindow(nowMs, catchUp.windowHours, graceMs);
    const fromMs = Math.max(window.fromMs, notBeforeMs);
    const toMs = window.toMs;
    const expected = enumerateSlots(
      { ...t.definition, schedule: t.expression, ...(t.startMs !== undefined && { startMs: t.startMs }) },
      fromMs,
      toMs,
    );
    const def = definitionId(t.definition);
    const shards = t.definition.shards;
    const leases = await leaseItems(deps, key, shards);
    const records = await recordsOf(deps, key, expected, fromMs, toMs);
    const statuses = slotStatuses({
      expected,
      records,
      leases,
      shards,
      def,
      nowMs,
    });
    const decide = (d: SweepDecision) => {
      report.decisions.push(d);
      log({ message: 'sweep decision', ...d });
    };
    // A holder whose lease is over and that never released: record it abandoned now (a problem record
    // the alarm counts), not only when the job's next claim comes.
    for (const [shard, item] of leases) {
      if (!item || (item.leaseUntilMs ?? 0) >= nowMs) continue;
      const dead = openHolders(item).filter((h) => h.leaseUntilMs < nowMs);
      // The current holder as the lease item names it: with its claim time, trigger and requester.
      const current =
        awaitsAbandonMark(item.holderState) && item.owner && item.slot
          ? {
              runId: item.owner,
              slot: item.slot,
              leaseUntilMs: item.leaseUntilMs ?? 0,
              fence: item.fence ?? 0,
              ...(item.acquiredAtMs !== undefined && { acquiredAtMs: item.acquiredAtMs }),
              ...(item.trigger !== undefined && { trigger: item.trigger }),
              ...(item.requestedBy !== undefined && { requestedBy: item.requestedBy }),
            }
          : undefined;
      if (current) dead.push(current);
      for (const holder of holdersToMark(dead, '')) {
        await deps.runs.markAbandoned(
          key,
          holder.runId === current?.runId ? current : holder,
          `sweeper${shard === undefined ? '' : ` (shard ${shard})`}`,
          nowMs,
          t.definition.runRetentionDays,
        );
      }
    }
    // Paused (docs/design.md "Pause"): nothing is triggered (a claim would only record skipped/paused);
    // after resume the missed slots are this job's catch-up rule's, as if Scheduler never delivered them.
    const paused = pauseInForce(leases.get(undefined), nowMs);
    if (paused) {
      report.jobs.push({ job, expected: expected.length, succeeded: 0, missing: 0 });
      decide({ job, slot: '*', action: 'skipped', reason: `paused by ${paused.by}: ${paused.note}` });
      continue;
    }
    // Delivered and never finished: always caught up (whatever catchUp says; that setting is about
    // slots Scheduler never delivered), the missing shards only, at most MAX_CATCH_UP_ATTEMPTS times.
    const unfinished =
      deps.catchUpUnfinished === false ? [] : statuses.filter((st) => !st.done && st.started);
    for (const st of unfinished) {
      if (st.failedCatchUps >= MAX_CATCH_UP_ATTEMPTS) {
        decide({ job, slot: st.slot.id, action: 'skipped', reason: 'catch-up-exhausted' });
        continue;
      }
      const base = catchUpPayload(job, st.slot, 'unfinished');
      const payloads = shards > 1 ? shardPayloads(base, shards, st.missingShards) : [base];
      for (const p of payloads) await t.invoke(p, st.slot);
      decide({
        job,
        slot: st.slot.id,
        action: 'triggered',
        reason: shards > 1 ? `unfinished: shards ${st.missingShards.join(',')}` : 'unfinished',
      });
    }
    // Delivered, never finished, and no longer on the schedule (a redeploy removed it): it cannot be
    // caught up, so it ends here as a problem record the alarms count (`skipped/not-on-schedule`), at
    // the first sweep that sees its record inside the window (bound: one sweep period after the slot's
    // grace, while the slot is within `catchUp.windowHours`).
    if (deps.catchUpUnfinished !== false) {
      for (const off of offScheduleSlots({ expected, records, fromMs, toMs })) {
        await deps.runs.put(
          {
            job: key,
            slot: off.slot,
            scheduledTime: new Date(off.scheduledTimeMs).toISOString(),
            businessDate: off.slot.slice(0, 10),
            runId: OFF_SCHEDULE_RUN_ID,
            trigger: Trigger.CatchUp,
            requestedBy: 'sweeper',
            outcome: Outcome.Skipped,
            reason: Reason.NotOnSchedule,
            startedAtMs: nowMs,
            finishedAtMs: nowMs,
            durationMs: 0,
            details: { delivered: 'unfinished', currentSchedule: t.definition.schedule, def },
            def,
          },
          t.definition.runRetentionDays,
        );
        decide({ job, slot: off.slot, action: 'skipped', reason: Reason.NotOnSchedule });
      }
    }
    const done = new Set(statuses.filter((st) => st.done || st.started).map((st) => st.slot.id));
    const plan = planCatchUp({
      expected,
      succeededIds: done,
      mode: catchUp.mode,
      maxSlotsPerSweep: catchUp.maxSlotsPerSweep,
      floorMs: catchUpFloorMs(t.definition.catchUp),
    });
    const missing = statuses.filter((st) => !st.done).length;
    report.jobs.push({ job, expected: expected.length, succeeded: expected.length - missing, missing });
    for (const slot of plan.trigger) {
      const why = slot.shifted ? 'dst-gap-shift' : 'missed';
      await t.invoke(catchUpPayload(job, slot, why), slot);
      decide({ job, slot: slot.id, action: 'triggered', reason: why });
    }
    for (const { slot, reason } of plan.skipped) {
      if (reason === Reason.CatchUpLimit) {
        await deps.runs.put(
          {
            job: key,
            slot: slot.id,
            scheduledTime: new Date(slot.scheduledTimeMs).toISOString(),
            businessDate: slot.businessDate,
            runId: 'sweeper-catch-up-limit',
            trigger: Trigger.CatchUp,
            requestedBy: 'sweeper',
            outcome: Outcome.Skipped,
            reason: Reason.CatchUpLimit,
            startedAtMs: nowMs,
            finishedAtMs: nowMs,
            durationMs: 0,
          },
          t.definition.runRetentionDays,
        );
      }
      decide({ job, slot: slot.id, action: 'skipped', reason });
    }
    for (const slot of plan.ignored)
      decide({ job, slot: slot.id, action: 'ignored', reason: 'catch-up-none' });
    for (const slot of plan.beforeStart)
      decide({ job, slot: slot.id, action: 'ignored', reason: BEFORE_START });
  }
  return report;
}
