/**
 * `JobOptions`: what a job author passes to `defineJob` (lib/runtime/define-job.ts), each option with
 * its default.
 */
import type { JobDefinition } from '../core/job-definition.js';
import type { OverlapOption } from '../core/overlap.js';
import type { DstGapPolicy } from '../core/schedule/dst-gap.js';
import type { JobAccess } from '../store/job-access.js';
import type { Observer } from './events.js';
import type { ShardDispatcher } from './fan-out.js';
import type { JobContext } from './job-context.js';
import type { JobEffects } from './job-effects.js';

/** What a job author writes. Optional fields take the documented defaults of {@link JobDefinition}. */
export interface JobOptions {
  readonly name: string;
  /**
   * The job's stable identity in the library table (lease, done set, run records, effects). Set it to
   * the old name when renaming a job, so that what it ran and paid carries over. @default name
   */
  readonly id?: string;
  readonly schedule: string;
  /** @default 'UTC' */
  readonly timeZone?: string;
  readonly lease: { readonly durationSeconds: number; readonly renewFraction?: number };
  /**
   * The job's deadline, in seconds: the Lambda timeout (1–900), or with `runtime: 'ecs'` the task's own
   * deadline (up to 604800), enforced by the task runtime. @default 60
   */
  readonly timeoutSeconds?: number;
  /**
   * `'ecs'` runs the job as an ECS Fargate task (`cronfence/ecs-task`, for work longer than a Lambda's
   * 15 minutes): the same `run(ctx)`, its lease renewed for as long as it runs. @default 'lambda'
   */
  readonly runtime?: 'lambda' | 'ecs';
  /** @default 'slot-date' */
  readonly businessDate?: 'slot-date' | 'previous-day';
  readonly dstGap?: DstGapPolicy;
  /**
   * Catch-up of missed slots. `since` (a Date or ISO instant): the first instant this job owns —
   * catch-up never triggers a slot before it (set it when the job replaces another scheduler, or is
   * renamed without `id`). @default none (no catch-up of slots Scheduler never delivered)
   */
  readonly catchUp?: JobDefinition['catchUp'] & { readonly since?: Date | string };
  /**
   * Shards (docs/design.md "Scale"): the scheduled invocation fans out to this many shard invocations, each
   * with its own lease; split business keys with `shardOf(key, shards) === ctx.shard`. @default 1
   */
  readonly shards?: number;
  /** How a sharded job starts its shards (e.g. `lambdaShardDispatcher()`). Required when `shards > 1`. */
  readonly dispatch?: ShardDispatcher;
  /** @default 30 */
  readonly runRetentionDays?: number;
  /**
   * How many recently succeeded slots the lease item remembers (1–1000). The set is also capped at
   * 256 bytes of stored keys (36 UTC or 42 local slots), so the lease item stays under 1 KB for every
   * valid name and a claim or release costs 1 write unit (docs/design.md "Lease item size"). @default 32
   */
  readonly rememberSlots?: number;
  /**
   * Rate schedules only: the whole-minute instant the rate grid counts from (slots are anchor + k × period;
   * the deployment's StartDate is the next grid instant). @default 1970-01-01T00:00:00Z
   */
  readonly rateAnchor?: Date | string;
  /**
   * Pause the job itself after this many consecutive failed occurrences (1–5; a retry of one occurrence
   * counts once), like Temporal's pause-on-failure: the release of the failing run writes the pause,
   * naming the failing run ids; every later delivery is `skipped/paused` until `cronfence resume`.
   * Not with `shards > 1`. At most 5 so that the streak keeps the lease item under 1 KB.
   * @default - never pauses itself
   */
  readonly pauseOnFailure?: number;
  /**
   * What the body touches beyond its own lease and run records: the application tables it writes (and
   * with which `ctx` call) and whether it calls `ctx.effect`. The CDK creates those tables, passes each
   * table's name in its `envVar` and grants exactly these writes; the runtime refuses any other table
   * (or an effect not declared) before sending it, naming the declaration to add, and so do the local
   * tests (`cronfence/testing`). Without `uses` a job may write no application table in AWS.
   * @default - none declared (the CDK entry's `uses`, if any, grants instead)
   * @example uses: { tables: [{ table: reportsTable, writes: ['fencedPut'] }], effects: true }
   */
  readonly uses?: JobAccess;
  /**
   * Makes the observer of a deployed function's runs (dependencies built from the environment), called
   * once at the first invocation: pass `createObserver` from `cronfence/observability` for one log line
   * per decision (Powertools Logger) and the EMF metrics the stack's alarms read (Powertools Metrics).
   * Handlers built with `withDeps` (tests, drills, the emulator) bring their own deps and ignore it.
   * @default - no logs or metrics, and no Powertools in the job's bundle
   * @example observe: createObserver
   */
  readonly observe?: () => Observer;
  /**
   * The effect runner of `ctx.effect` (docs/design.md step 5): pass `effectRunner` (root export). Only
   * a job that names it bundles the runner; a job that declares `uses.effects: true` must name it.
   * @default - none: `ctx.effect` throws InvalidJobDefinitionError naming `effects`
   * @example effects: effectRunner
   */
  readonly effects?: JobEffects;
  /**
   * Check-ins to an external cron monitor: the run that claims an occurrence reports `in_progress`,
   * then `ok` / `error`, to `url` (`{status}`, `{job}`, `{slot}`, `{runId}` filled in), bounded by
   * `timeoutMs` (default 2000) and never delaying, failing or repeating the run (lib/core/check-in.ts).
   * @default - none
   * @example checkIn: { url: 'https://o1.ingest.sentry.io/api/7/cron/nightly/KEY/?status={status}' }
   * @example checkIn: { url: 'https://hc-ping.com/UUID{status}?rid={runId}', statuses: { inProgress: '/start', ok: '', error: '/fail' } }
   */
  readonly checkIn?: {
    readonly url: string;
    readonly statuses?: { readonly inProgress?: string; readonly ok?: string; readonly error?: string };
    readonly timeoutMs?: number;
  };
  /**
   * What an occurrence does when another occurrence of the job holds the lease: `skip` (recorded
   * `skipped / overlap`, left to catch-up), `buffer-one`, `buffer-all` (with `maxBuffered`), `replace`
   * (the newest takes the lease by raising the fence; optional `replaceAfterSeconds`) or `after-previous`
   * (N runs only after N−1 succeeded). Manual triggers, backfills and catch-up honour it too.
   * @default 'skip'
   * @example overlap: { policy: 'buffer-all', maxBuffered: 3 }
   */
  readonly overlap?: OverlapOption;
  /** The job body. Use `ctx.fencedPut` / `ctx.insertOnce` for business writes. */
  run(ctx: JobContext): Promise<unknown>;
}
