/**
 * The sweeper (docs/design.md "Time": missed-run detection, which Scheduler lacks): for every job, list
 * the expected slots in the recent window, compare them with what succeeded (the lease item's done
 * set and succeeded run records), and re-trigger the missing ones through the normal path with
 * trigger `catch-up`. Every decision lands in a run record (`catch-up-limit`) or a log line.
 */
import type { JobDefinition } from '../core/job-definition.js';
import { Outcome, Reason, Trigger } from '../core/outcomes.js';
import type { Clock, LeaseStore, RunStore } from '../core/ports.js';
import { planCatchUp, sweepWindow } from '../core/schedule/catch-up.js';
import { enumerateSlots } from '../core/schedule/enumerate.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import type { Slot } from '../core/schedule/slot.js';

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
}

/** Slot ids that succeeded: the lease's done set and succeeded run records in the slots' range. */
async function succeededIds(deps: SweepDeps, job: string, slots: readonly Slot[]): Promise<Set<string>> {
  const lease = await deps.leases.get({ job });
  const done = new Set<string>(lease?.doneSlots ?? []);
  for (const id of await deps.runs.succeededSlots(
    job,
    slots.map((s) => s.id),
  ))
    done.add(id);
  return done;
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
    const catchUp = t.definition.catchUp ?? DEFAULT_CATCH_UP;
    const window = sweepWindow(nowMs, catchUp.windowHours, graceMs);
    const fromMs = Math.max(window.fromMs, notBeforeMs);
    const toMs = window.toMs;
    const expected = enumerateSlots(
      { ...t.definition, schedule: t.expression, ...(t.startMs !== undefined && { startMs: t.startMs }) },
      fromMs,
      toMs,
    );
    const done = await succeededIds(deps, job, expected);
    const plan = planCatchUp({
      expected,
      succeededIds: done,
      mode: catchUp.mode,
      maxSlotsPerSweep: catchUp.maxSlotsPerSweep,
    });
    const missing = plan.trigger.length + plan.skipped.length + plan.ignored.length;
    report.jobs.push({ job, expected: expected.length, succeeded: expected.length - missing, missing });
    const decide = (d: SweepDecision) => {
      report.decisions.push(d);
      log({ message: 'sweep decision', ...d });
    };
    for (const slot of plan.trigger) {
      const why = slot.shifted ? 'dst-gap-shift' : 'missed';
      await t.invoke(catchUpPayload(job, slot, why), slot);
      decide({ job, slot: slot.id, action: 'triggered', reason: why });
    }
    for (const { slot, reason } of plan.skipped) {
      if (reason === Reason.CatchUpLimit) {
        await deps.runs.put(
          {
            job,
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
  }
  return report;
}
