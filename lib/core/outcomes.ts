/**
 * The vocabulary of run records (docs/design.md "Items in the library table"): triggers, outcomes and skip/failure
 * reasons. `as const` objects with derived unions (docs/design.md "Conventions" 6).
 */

/** What caused an invocation. `retry` is a Scheduler re-delivery (attempt number > 1). */
export const Trigger = {
  Schedule: 'schedule',
  Retry: 'retry',
  Manual: 'manual',
  CatchUp: 'catch-up',
} as const;
/** Union of {@link Trigger} values. */
export type Trigger = (typeof Trigger)[keyof typeof Trigger];

/** The outcome of one invocation attempt, as stored on its run record. */
export const Outcome = {
  Running: 'running',
  Succeeded: 'succeeded',
  Failed: 'failed',
  Skipped: 'skipped',
  /**
   * The occurrence arrived while another held the lease and waits on the lease item (overlap policy
   * `buffer-one` / `buffer-all`): it runs when the holder releases, under a record of its own. Not a problem.
   */
  Buffered: 'buffered',
  Stale: 'stale',
  Abandoned: 'abandoned',
} as const;
/** Union of {@link Outcome} values. */
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** Outcomes that land in the sparse `problems` index (the console's "what went wrong today"). */
export const PROBLEM_OUTCOMES: readonly Outcome[] = [Outcome.Failed, Outcome.Stale, Outcome.Abandoned];

/**
 * Skip reasons that are problems too (they land in the `problems` index and the `SlotNotRun` alarm counts
 * them): an occurrence that will never run under the current definition — delivered but no longer on the
 * schedule (`not-on-schedule`), missed and left behind by the catch-up cap (`catch-up-limit`), or refused
 * by a full buffer (`buffer-full`) — or one waiting for its predecessor past the job's bound
 * (`waiting-too-long`).
 */
export const PROBLEM_REASONS: readonly string[] = [
  'not-on-schedule',
  'catch-up-limit',
  'buffer-full',
  'waiting-too-long',
];

/**
 * The `problems` index partitions a run record can land in (`problem` = its outcome): the
 * {@link PROBLEM_OUTCOMES} and `skipped`, which holds only the skips whose reason is in
 * {@link PROBLEM_REASONS}. `cronfence runs --failed` queries these; `cronfence jobs` counts them.
 */
export const RUN_PROBLEM_PARTITIONS: readonly Outcome[] = [...PROBLEM_OUTCOMES, Outcome.Skipped];

/**
 * True when a run record is a problem (it lands in the sparse `problems` index under its outcome):
 * a {@link PROBLEM_OUTCOMES} outcome, or a reason in {@link PROBLEM_REASONS}.
 */
export function isProblemRun(outcome: Outcome, reason: string | undefined): boolean {
  return PROBLEM_OUTCOMES.includes(outcome) || (reason !== undefined && PROBLEM_REASONS.includes(reason));
}

/** Why a run was skipped, failed, went stale or was abandoned. */
export const Reason = {
  /** Another attempt of the same slot holds the lease. */
  LeaseHeld: 'lease-held',
  /** Another slot's run holds the lease; catch-up picks this slot up later. */
  Overlap: 'overlap',
  /**
   * Overlap policy `buffer-one` / `buffer-all`: another slot holds the lease and the lease item already
   * holds `maxBuffered` buffered slots; the occurrence is not buffered (a problem: `SlotNotRun`).
   */
  BufferFull: 'buffer-full',
  /**
   * Overlap policy `replace`: a newer occurrence raised the fence and took the lease from this run; its
   * renewal and every later fenced write, insert-once and effect send are refused (`stale`, `RunStale`).
   */
  Replaced: 'replaced',
  /**
   * Overlap policy `after-previous`: the previous occurrence of the job has not succeeded; the sweeper
   * starts this one once it has. Not a problem until {@link Reason.WaitingTooLong}.
   */
  WaitingForPrevious: 'waiting-for-previous',
  /**
   * Overlap policy `after-previous`: the slot has waited for its predecessor longer than
   * `overlap.waitingProblemAfterSeconds` (written by the sweeper; a problem: `SlotNotRun`). It still runs
   * once its predecessor succeeds.
   */
  WaitingTooLong: 'waiting-too-long',
  /** The slot is in the lease item's set of recently succeeded slots. */
  AlreadySucceeded: 'already-succeeded',
  /** The slot's local time does not exist in the job's zone and the job uses `dstGap: skip`. */
  NonexistentLocalTime: 'nonexistent-local-time',
  /** `latest` catch-up: a newer slot runs instead of this missed one. */
  Superseded: 'superseded',
  /** More missed slots than the catch-up cap allows in one sweep. */
  CatchUpLimit: 'catch-up-limit',
  /** The Lambda had too little time left to claim, or reached its deadline mid-run. */
  Deadline: 'deadline',
  /** The job body threw. */
  Error: 'error',
  /**
   * The platform stopped the run's process (ECS sent SIGTERM: a task stopped, a deploy, a Fargate Spot
   * reclaim): the body was aborted through `ctx.signal`, the run recorded `failed` and its lease
   * released before the platform's SIGKILL (`stopTimeout`). The slot is not done: catch-up re-runs it.
   */
  Terminated: 'terminated',
  /** A renewal found another owner or fence: the lease was lost. */
  LeaseLost: 'lease-lost',
  /** A fenced write found a higher stored fence. */
  StaleFence: 'stale-fence',
  /** The holder never released; a later claimer took the lease over. */
  NotReleased: 'not-released',
  /** DynamoDB failed (throttled, unreachable) during the protocol. */
  StoreError: 'store-error',
  /**
   * The event's time is not an occurrence of the job's current schedule (e.g. a retry of an occurrence
   * of the schedule before a redeploy changed it): recorded under the event's UTC minute, never run.
   */
  NotOnSchedule: 'not-on-schedule',
  /**
   * The sweeper could not sweep the job (a read of its lease or records failed, or the catch-up invoke
   * was refused, e.g. `ResourceNotFoundException` for a removed function): a `failed` record under the
   * slot it was catching up (or the sweep's UTC minute), counted by the job's `SweepFailed` alarm. The
   * other jobs of the sweep proceed.
   */
  SweepFailed: 'sweep-failed',
  /** A shard event cut for another shard count: re-fanned out for the current count, not run. */
  Resharded: 'resharded',
  /**
   * The job is paused (`cronfence pause`, or `pauseOnFailure`): the claim refused; the record's
   * `details.pause` names who, when and the note. Left to the catch-up rule after `resume`.
   */
  Paused: 'paused',
  /**
   * The body finished but an effect it met is in `needs-review` (outcome unknown, nothing sent): the run
   * is `failed` with this reason and the effect keys under `details.effectsNeedingReview`; the slot is
   * not done until an operator resolves the effect (`cronfence effects resolve`) and a re-run finishes.
   */
  EffectNeedsReview: 'effect-needs-review',
} as const;
/** Union of {@link Reason} values. */
export type Reason = (typeof Reason)[keyof typeof Reason];
