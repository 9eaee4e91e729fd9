/**
 * The vocabulary of `cronfence why`: what one expected occurrence of a job turned out to be, and the
 * evidence each answer rests on. `as const` objects with derived unions (docs/design.md "Conventions" 6).
 */

/** What happened to one occurrence, from the table (or, when it holds nothing, from AWS's evidence). */
export const SlotClass = {
  /** A run of the occurrence (schedule or Scheduler retry) succeeded. */
  Succeeded: 'succeeded',
  /** The sweeper's catch-up run succeeded (a missed, unfinished or DST-shifted occurrence). */
  CaughtUp: 'caught-up',
  /** An operator's manual run (`backfill`, `trigger`) succeeded. */
  Backfilled: 'backfilled',
  /** Refused for good, or skipped and not yet caught up: the reason says which. */
  Skipped: 'skipped',
  Failed: 'failed',
  Stale: 'stale',
  Abandoned: 'abandoned',
  /** A run claimed the lease for it and has not recorded an end (still running, or died). */
  Unfinished: 'delivered-unfinished',
  /** A delivery the current schedule does not have (recorded `skipped / not-on-schedule`). */
  NotOnSchedule: 'not-on-schedule',
  /** Nothing in the table: the verdict comes from Scheduler, CloudWatch and the dead-letter queues. */
  NotRecorded: 'not-recorded',
  /** Its instant is after now. */
  NotDue: 'not-due',
  /** Before the job's `catchUp.since`: not this job's to run. */
  BeforeStart: 'before-start',
} as const;
/** Union of {@link SlotClass} values. */
export type SlotClass = (typeof SlotClass)[keyof typeof SlotClass];

/** The reason `why` gives a DST-gap occurrence under `dstGap: skip` (Scheduler never delivers it). */
export const DST_GAP = 'dst-gap';

/** A run record as `why` reads it (the stored item's public attributes). */
export interface WhyRecord {
  readonly slot: string;
  readonly scheduledTime?: string;
  readonly runId: string;
  readonly trigger?: string;
  readonly requestedBy?: string;
  readonly requestReason?: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly fence?: number;
  readonly shard?: number;
  /** Shard runs: the shard count the payload was cut for. */
  readonly shards?: number;
  readonly startedAtMs?: number;
  readonly finishedAtMs?: number;
  readonly durationMs?: number;
  readonly error?: { readonly name?: string; readonly message?: string };
  readonly holderSeen?: { readonly runId?: string; readonly slot?: string };
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The one attempt a line is about, as printed. */
export interface AttemptView {
  readonly runId: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly trigger?: string;
  readonly fence?: number;
  readonly durationMs?: number;
  readonly requestedBy?: string;
  readonly error?: string;
}

/** One line of `why`: an expected occurrence (or an off-schedule delivery) and what became of it. */
export interface SlotLine {
  /** The slot id (local wall-clock minute for crons, UTC instant id for rate/at). */
  readonly slot: string;
  /** The occurrence's instant, ISO-8601 UTC. */
  readonly scheduledTime: string;
  readonly class: SlotClass;
  /** The run record's reason, or `dst-gap` for a DST-gap occurrence under `dstGap: skip`. */
  readonly reason?: string;
  /** The attempt the classification rests on (absent when nothing is recorded). */
  readonly attempt?: AttemptView;
  /** Every attempt recorded for the occurrence, counted by `outcome[/reason]`. */
  readonly attempts: Readonly<Record<string, number>>;
  /** The verdict in words. */
  readonly verdict: string;
  /** What AWS said, for an occurrence the table holds nothing of (see {@link DeliveryEvidence}). */
  readonly evidence?: DeliveryEvidence;
}

/** Evidence that could not be read: which, why, and the IAM action when a permission was missing. */
export interface Unreadable {
  readonly source: string;
  readonly reason: string;
  /** The IAM action the operator lacks (AccessDenied), e.g. `cloudwatch:GetMetricData`. */
  readonly action?: string;
}

/** The deployed Scheduler schedule (GetSchedule) compared with the job definition. */
export interface ScheduleFacts {
  readonly exists: boolean;
  readonly group?: string;
  readonly state?: string;
  readonly expression?: string;
  readonly timeZone?: string;
  readonly startMs?: number;
  readonly endMs?: number;
  /** The schedule target's dead-letter queue ARN. */
  readonly deadLetterArn?: string;
  /** Where the deployed schedule differs from the definition (`expression cron(…) ≠ cron(…)`). */
  readonly mismatches: readonly string[];
}

/** CloudWatch data points for the occurrence: its minute, and (drops) the retry window after it. */
export interface MetricFacts {
  /** Metric name → sum over the occurrence's minute. */
  readonly minute: Readonly<Record<string, number>>;
  /** Metric name → sum from the occurrence to the end of its delivery window (24 h + 6 h) or now. */
  readonly after: Readonly<Record<string, number>>;
}

/** A dead-letter message that names the occurrence (peeked, never consumed). */
export interface DeadLetterFacts {
  readonly queue: string;
  readonly messageId: string;
  /** `scheduler` (the schedule gave up) or `lambda` (the async invoke gave up). */
  readonly from: 'scheduler' | 'lambda';
  readonly errorCode?: string;
  readonly errorMessage?: string;
  /** Scheduler: its retries; Lambda: its attempts. */
  readonly attempts?: number;
}

/** What AWS says about an occurrence the table has no record of. */
export interface DeliveryEvidence {
  readonly schedule?: ScheduleFacts;
  /** `AWS/Scheduler`, dimension `ScheduleGroup` (CloudWatch has no per-schedule Scheduler metric). */
  readonly scheduler?: MetricFacts;
  /** `AWS/Lambda`, dimension `FunctionName`. */
  readonly lambda?: MetricFacts;
  readonly deadLetters?: readonly DeadLetterFacts[];
  readonly unreadable: readonly Unreadable[];
}
