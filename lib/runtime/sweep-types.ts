/**
 * The sweeper's vocabulary: the jobs it watches (targets), its dependencies, its decisions, the problem
 * records it writes and its report; and the constants its phases share.
 */

import type { JobDefinition } from '../core/job-definition.js';
import type { Outcome, Reason } from '../core/outcomes.js';
import type { OverlapLeaseStore } from '../core/overlap-ports.js';
import type { Clock, LeaseStore, RunStore } from '../core/ports.js';
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

/** One decision of a sweep. `failed`: the job's sweep stopped there (recorded `failed / sweep-failed`). */
export interface SweepDecision {
  readonly job: string;
  readonly slot: string;
  readonly action: 'triggered' | 'skipped' | 'ignored' | 'failed';
  readonly reason: string;
}

/** A problem record the sweeper wrote (or, for `sweep-failed`, tried to write): what its metric counts. */
export interface SweepProblem {
  readonly job: string;
  readonly slot: string;
  readonly outcome: Outcome;
  readonly reason: Reason;
  /** `sweep-failed`: the error's message. */
  readonly error?: string;
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
  /** Problem records of this sweep, in order (abandoned marks, not-on-schedule, catch-up-limit, sweep-failed). */
  readonly problems: SweepProblem[];
  /** Jobs that have run before (a lease item exists) with a due slot not done. */
  readonly overdue: string[];
}

/** Dependencies of {@link sweep}. */
export interface SweepDeps {
  /** The lease store, with the overlap policies' writes (the sweeper takes dead slots off a buffer). */
  readonly leases: LeaseStore & OverlapLeaseStore;
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

/** The run id of the sweeper's `skipped / not-on-schedule` record of a delivered slot a redeploy removed. */
export const OFF_SCHEDULE_RUN_ID = 'sweeper-not-on-schedule';

/** Catch-up attempts of one unfinished slot after which the sweeper stops re-triggering it. */
export const MAX_CATCH_UP_ATTEMPTS = 3;
