/**
 * `defineJob`: a job's schedule, zone and lease, validated once, plus its body — turned into a
 * Lambda handler wrapped in cronfence's middy middleware (a middy chain once `.use()` adds middlewares)
 * that carries its {@link JobDefinition} as `handler.job`.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { CronfenceError } from '../core/error-model.js';
import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { JobDefinition } from '../core/job-definition.js';
import { parseJobDefinition } from '../core/job-definition-schema.js';
import type { Mutable } from '../core/mutable.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import { declaredUses, declareUses, type JobAccess, parseJobAccess } from '../store/job-access.js';
import { accessGuard } from './access-guard.js';
import { createDeps, type RuntimeDeps } from './deps.js';
import { type FanOutDeps, fanOut } from './fan-out.js';
import { raceAbort } from './job-context.js';
import { declareEffects } from './job-effects.js';
import type { JobOptions } from './job-options.js';
import { type CronfenceLambdaContext, cronfenceMiddleware } from './middleware.js';
import { runBufferedAfter } from './overlap-start.js';
import type { RunSummary } from './run-session.js';
import { applySingleMiddleware } from './single-middleware.js';

export type { JobOptions } from './job-options.js';

/**
 * A Lambda handler made by {@link defineJob}: a function, not a middy handler object (it has no
 * `before`, `after`, `onError` or `handler` of middy's); middlewares are added with {@link JobHandler.use}.
 */
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
   * runs once the lease is claimed, their `after` / `onError` before the run is recorded. They apply
   * from the next invocation (one in flight keeps the chain it started with); a middleware's functions
   * are taken when it is added. A middleware that ends the chain early — a value returned (or
   * `request.earlyResponse` set) by its `before`, `after` or `onError`, or an error its `onError`
   * throws — stops it before cronfence's own `after` / `onError`, as middy does: that run is not
   * recorded and its lease is not released (the lease keeper renews it while the environment runs, up
   * to the invocation's deadline; then it expires).
   * @throws Error (middy's) for a middleware with none of `before`, `after`, `onError`; nothing is added
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
 * @throws InvalidJobDefinitionError (name, timeZone, observe or effects not a function, `uses.effects` without
 *   `effects`, lease.durationSeconds > timeoutSeconds or below the
 *   docs/clock-skew.md minimum, an unknown option, a malformed `uses`, ...), InvalidScheduleError (the
 *   expression, naming the bad part; a cron that never fires).
 */
export function validateJob(options: Omit<JobOptions, 'run'>): {
  definition: JobDefinition;
  expression: ScheduleExpression;
} {
  const { dispatch: _dispatch, observe, effects, ...rest } = options as Omit<JobOptions, 'run'>;
  if (observe !== undefined && typeof observe !== 'function')
    throw new InvalidJobDefinitionError(
      'observe',
      observe,
      'must be a function returning an observer, e.g. createObserver from cronfence/observability',
    );
  if (effects !== undefined && typeof effects !== 'function')
    throw new InvalidJobDefinitionError('effects', effects, 'must be effectRunner from cronfence');
  const parsed = parseJobDefinition(rest, Date.now());
  if (options?.uses !== undefined) {
    const uses = parseJobAccess(options.uses);
    if (uses.effects && effects === undefined)
      throw new InvalidJobDefinitionError(
        'effects',
        effects,
        'uses.effects declares ctx.effect calls: name the effect runner, effects: effectRunner from cronfence',
      );
    declareUses(parsed.definition, uses);
  }
  if (effects !== undefined) declareEffects(parsed.definition, effects);
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
 * The functions of `m` as they are when it is added, as middy takes them at its `use`: a middleware
 * object changed later does not change the chain (each `.use()` builds it anew from these). Anything
 * but an object is passed on as it is, for middy to refuse.
 */
function capturedMiddleware(m: JobMiddleware): JobMiddleware {
  if (typeof m !== 'object' || m === null) return m;
  const { before, after, onError } = m;
  const captured: Mutable<JobMiddleware> = {};
  if (before) captured.before = before;
  if (after) captured.after = after;
  if (onError) captured.onError = onError;
  return captured;
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
      const body = sharded
        ? fanOut(ctx, event, definition.shards, (deps() as FanOutDeps).dispatchShards ?? options.dispatch)
        : options.run(ctx);
      // Raced once the body has started (up to its first await nothing else runs to abort it; an
      // abort before or during that part rejects the race at once).
      await raceAbort(ctx, body);
      return undefined as unknown as RunSummary; // `after` replaces it with the run summary
    };
    const middleware = cronfenceMiddleware({
      definition,
      expression,
      deps,
      dispatch: () => (deps() as FanOutDeps).dispatchShards ?? options.dispatch,
      ...(onSummary && { onSummary }),
    });
    // With no middleware of its own, the job applies cronfence's middleware as middy would apply it
    // alone, without middy's per-invocation work (single-middleware.ts). Each `.use()` builds the
    // handler anew, a middy chain of cronfence's middleware and then the job's own in the order added
    // (middy refuses a malformed one there, before anything changes); an invocation already in flight
    // keeps the handler it started with, so a middleware added meanwhile never runs its `after`
    // without its `before`. middy's early timeout is off: the run session enforces the deadline itself
    // (DeadlineError with the lease margin, recorded and released). middy's would race it and leave one
    // timer per invocation that only a settled run clears (a killed run's kept a process alive for the
    // job's whole timeout) and warn `TimeoutNegativeWarning` for a context already past its deadline.
    const chain = (middlewares: readonly JobMiddleware[]) =>
      middlewares.length === 0
        ? applySingleMiddleware(middleware, base)
        : middy(base, { timeoutEarlyInMillis: 0 })
            .use(middleware)
            .use([...middlewares]);
    let added = [...inherited];
    let handler = chain(added);
    const invoke = (event: unknown, context: Context | CronfenceLambdaContext): Promise<RunSummary> =>
      handler(event, context as CronfenceLambdaContext);
    // Overlap `buffer-*`: the release path runs the buffered slots its releases name (overlap-start.ts);
    // a sharded job's buffered shard slots are left to the sweeper (it starts the shard, not a fan-out).
    const entry =
      definition.overlap?.maxBuffered === undefined || definition.shards > 1
        ? invoke
        : async (event: unknown, context: Context | CronfenceLambdaContext): Promise<RunSummary> => {
            const summary = await invoke(event, context);
            const remaining = () =>
              typeof (context as Context).getRemainingTimeInMillis === 'function'
                ? (context as Context).getRemainingTimeInMillis()
                : 0;
            return runBufferedAfter(summary, (e) => invoke(e, context), remaining, definition, expression);
          };
    const job: JobHandler = Object.assign(entry as unknown as JobHandler, {
      job: definition,
      expression,
      uses,
      withDeps: (d: () => RuntimeDeps, s?: (s: RunSummary) => void) => build(d, s, added),
      use: (m: JobMiddleware | readonly JobMiddleware[]) => {
        const more = (Array.isArray(m) ? m : [m]).map(capturedMiddleware);
        if (more.length === 0) return job;
        const next = chain([...added, ...more]);
        added = [...added, ...more];
        handler = next;
        return job;
      },
    });
    return job;
  };
  return build(fromEnv);
}
