/**
 * `defineJob`: a job's schedule, zone and lease, validated once, plus its body — turned into a
 * middy-wrapped Lambda handler that carries its {@link JobDefinition} as `handler.job`.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { CronfenceError } from '../core/error-model.js';
import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { JobDefinition } from '../core/job-definition.js';
import { parseJobDefinition } from '../core/job-definition-schema.js';
import type { OverlapOption } from '../core/overlap.js';
import type { DstGapPolicy } from '../core/schedule/dst-gap.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import { declaredUses, declareUses, type JobAccess, parseJobAccess } from '../store/job-access.js';
import { accessGuard } from './access-guard.js';
import { createDeps, type RuntimeDeps } from './deps.js';
import type { Observer } from './events.js';
import { type FanOutDeps, fanOut, type ShardDispatcher } from './fan-out.js';
import type { JobContext } from './job-context.js';
import { type CronfenceLambdaContext, cronfenceMiddleware } from './middleware.js';
import { runBufferedAfter } from './overlap-start.js';
import type { RunSummary } from './run-session.js';

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

/** A Lambda handler made by {@link defineJob}. */
export type JobHandler = ((
  event: unknown,
  context: Context | CronfenceLambdaContext,
) => Promise<RunSummary>) & {
  /** The validated definition (read by the CDK app, the emulator and the sweeper). */
  readonly job: JobDefinition;
  /** The parsed schedule expression. */
  readonly expression: ScheduleExpression;
  /** What the job declared it touches (`defineJob`'s `uses`); `undefined` when it declares nothing. */
  readonly uses: JobAccess | undefined;
  /**
   * Build a handler for the same job on other dependencies (tests, drills, the local emulator); it
   * carries the middlewares added with {@link JobHandler.use} so far.
   */
  withDeps(deps: () => RuntimeDeps, onSummary?: (s: RunSummary) => void): JobHandler;
  /**
   * Add middy middlewares (e.g. Powertools' logger or tracer) after cronfence's own: their `before`
   * runs once the lease is claimed, their `after` / `onError` before the run is recorded.
   * @returns the same handler
   * @example export const handler = defineJob({ ... }).use(injectLambdaContext(logger));
   */
  use(middlewares: JobMiddleware | readonly JobMiddleware[]): JobHandler;
};

/** A middy middleware a job handler accepts. */
export type JobMiddleware = MiddlewareObj<unknown, RunSummary, Error, CronfenceLambdaContext>;

/**
 * Validate a job's options into a {@link JobDefinition} with the one job schema
 * (lib/core/job-definition-schema.ts), which synth and `cronfence check` run too.
 * The definition carries the validated `uses` (read with `declaredUses(definition)`).
 * @throws InvalidJobDefinitionError (name, timeZone, observe not a function, lease.durationSeconds > timeoutSeconds or below the
 *   docs/clock-skew.md minimum, an unknown option, a malformed `uses`, ...), InvalidScheduleError (the
 *   expression, naming the bad part; a cron that never fires).
 */
export function validateJob(options: Omit<JobOptions, 'run'>): {
  definition: JobDefinition;
  expression: ScheduleExpression;
} {
  const { dispatch: _dispatch, observe, ...rest } = options as Omit<JobOptions, 'run'>;
  if (observe !== undefined && typeof observe !== 'function')
    throw new InvalidJobDefinitionError(
      'observe',
      observe,
      'must be a function returning an observer, e.g. createObserver from cronfence/observability',
    );
  const parsed = parseJobDefinition(rest, Date.now());
  if (options?.uses !== undefined) declareUses(parsed.definition, parseJobAccess(options.uses));
  return parsed;
}

/** {@link validateJob}, with the job's name at the start of a cronfence error's message. */
function validateNamingJob(options: JobOptions): ReturnType<typeof validateJob> {
  try {
    return validateJob(options);
  } catch (err) {
    if (err instanceof CronfenceError && typeof options?.name === 'string' && options.name !== '') {
      err.message = `job "${options.name}": ${err.message}`;
    }
    throw err;
  }
}

/**
 * Define a job: validates at definition time and returns its Lambda handler.
 * @throws InvalidJobDefinitionError / InvalidScheduleError at import time for a bad definition, its
 *   message starting with `job "<name>": ` (so `npx cdk synth`, `npm start` and the CLI name the job).
 * @example
 * export const handler = defineJob({
 *   name: 'daily-report', schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin',
 *   lease: { durationSeconds: 60 }, timeoutSeconds: 120,
 *   run: async (ctx) => ctx.fencedPut(table, { reportDate: ctx.businessDate }, { body }),
 * });
 */
export function defineJob(options: JobOptions): JobHandler {
  const { definition, expression } = validateNamingJob(options);
  const uses = declaredUses(definition);
  // A job that declares what it touches gets exactly that, wherever it runs (deps that bring their
  // own guard, such as cronfence/testing's, keep it).
  const guarded = (deps: () => RuntimeDeps) => {
    if (uses === undefined) return deps;
    const guard = accessGuard(definition.name, uses);
    const withGuard = new WeakMap<RuntimeDeps, RuntimeDeps>();
    return () => {
      const d = deps();
      if (d.access) return d;
      const known = withGuard.get(d);
      if (known) return known;
      const g = { ...d, access: guard };
      withGuard.set(d, g);
      return g;
    };
  };
  let cached: RuntimeDeps | undefined;
  const fromEnv = () => {
    // A deployed function reports its decisions to the job's observer, when it has one.
    cached ??= createDeps(options.observe ? { observe: options.observe() } : {});
    return cached;
  };
  const build = (
    deps: () => RuntimeDeps,
    onSummary?: (s: RunSummary) => void,
    inherited: readonly JobMiddleware[] = [],
  ): JobHandler => {
    deps = guarded(deps);
    const base = async (event: unknown, context: CronfenceLambdaContext): Promise<RunSummary> => {
      const ctx = context.cronfence;
      if (!ctx) throw new Error('cronfence middleware did not run');
      const sharded = definition.shards > 1 && ctx.shard === undefined;
      const dispatcher = () => (deps() as FanOutDeps).dispatchShards ?? options.dispatch;
      const body = sharded ? fanOut(ctx, event, definition.shards, dispatcher()) : options.run(ctx);
      // Listened for once the body has started (up to its first await nothing else runs to abort it;
      // an abort before or during that part is seen through `aborted`).
      const aborted = new Promise<never>((_, reject) => {
        if (ctx.signal.aborted) reject(ctx.signal.reason);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      });
      await Promise.race([body, aborted]);
      return undefined as unknown as RunSummary; // `after` replaces it with the run summary
    };
    // middy's early timeout is off: the run session enforces the deadline itself (DeadlineError with the
    // lease margin, recorded and released). middy's would race it and leave one timer per invocation
    // that only a settled run clears (a killed run's kept a process alive for the job's whole timeout)
    // and warn `TimeoutNegativeWarning` for a context already past its deadline.
    const handler = middy(base, { timeoutEarlyInMillis: 0 }).use(
      cronfenceMiddleware({
        definition,
        expression,
        deps,
        dispatch: () => (deps() as FanOutDeps).dispatchShards ?? options.dispatch,
        ...(onSummary && { onSummary }),
      }),
    );
    let added = [...inherited];
    handler.use(added);
    const middyUse = handler.use; // replaced below on the same object by one that returns the JobHandler
    // Overlap `buffer-*`: the release path runs the buffered slots its releases name (overlap-start.ts);
    // a sharded job's buffered shard slots are left to the sweeper (it starts the shard, not a fan-out).
    const entry =
      definition.overlap?.maxBuffered === undefined || definition.shards > 1
        ? handler
        : Object.assign(
            async (event: unknown, context: Context | CronfenceLambdaContext): Promise<RunSummary> => {
              const summary = (await handler(event, context as never)) as RunSummary;
              const remaining = () =>
                typeof (context as Context).getRemainingTimeInMillis === 'function'
                  ? (context as Context).getRemainingTimeInMillis()
                  : 0;
              return runBufferedAfter(
                summary,
                (e) => handler(e, context as never) as Promise<RunSummary>,
                remaining,
                definition,
                expression,
              );
            },
            { use: handler.use },
          );
    const job: JobHandler = Object.assign(entry as unknown as JobHandler, {
      job: definition,
      expression,
      uses,
      withDeps: (d: () => RuntimeDeps, s?: (s: RunSummary) => void) => build(d, s, added),
      use: (m: JobMiddleware | readonly JobMiddleware[]) => {
        const more = Array.isArray(m) ? [...m] : [m as JobMiddleware];
        middyUse(more);
        added = [...added, ...more];
        return job;
      },
    });
    return job;
  };
  return build(fromEnv);
}
