/**
 * The middy middleware that wires {@link RunSession} into a Lambda handler (docs/design.md "Conventions" 7):
 * `before` parses the event and claims, `after` records success and releases, `onError` always
 * records the run and releases the lease.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { parseInvocationEvent } from '../core/event.js';
import { InvalidEventError } from '../core/input-errors.js';
import type { JobDefinition } from '../core/job-definition.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import { CheckInSender } from './check-in-sender.js';
import type { RuntimeDeps } from './deps.js';
import { UnknownJobError } from './errors.js';
import { type ShardDispatcher, shardPayloads } from './fan-out.js';
import type { JobContext } from './job-context.js';
import { RunSession, type RunSummary } from './run-session.js';
import { drawNextRunIdRandom } from './run-summary.js';

/** Options of {@link cronfenceMiddleware}. */
export interface CronfenceMiddlewareOptions {
  readonly definition: JobDefinition;
  readonly expression: ScheduleExpression;
  /** Dependencies, resolved at the first invocation. */
  readonly deps: () => RuntimeDeps;
  /** How a sharded job starts shard invocations (re-fan-out of a payload cut for another shard count). */
  readonly dispatch?: () => ShardDispatcher | undefined;
  /** Called with every finished invocation's summary (logs, metrics, the emulator's printout). */
  readonly onSummary?: (summary: RunSummary) => void;
}

/** The Lambda context as the job handler sees it after `before`: the JobContext under `cronfence`. */
export type CronfenceLambdaContext = Context & { cronfence?: JobContext };

/** Property under which a rethrown error carries the failed run's summary. */
export const RUN_SUMMARY = 'cronfenceRunSummary';

/** The run summary a failed invocation's rethrown error carries, if any. */
export function summaryOfError(err: unknown): RunSummary | undefined {
  return (err as Record<string, RunSummary> | undefined)?.[RUN_SUMMARY];
}

function attachSummary(error: unknown, summary: RunSummary): void {
  if (error && typeof error === 'object') {
    Object.defineProperty(error, RUN_SUMMARY, { value: summary, enumerable: false, configurable: true });
  }
}

/** Key of cronfence's state in middy's `request.internal` (namespaced: other middlewares share it). */
export const INTERNAL_KEY = 'cronfence';

interface Internal {
  [INTERNAL_KEY]?: { session?: RunSession; checkIns?: CheckInSender };
}

/**
 * Build the middleware. The base handler receives the {@link JobContext} as `context.cronfence`
 * and races it against the lease's AbortSignal. {@link defineJob} applies it; it is exported for
 * handlers composed by hand with middy.
 * @example
 * const handler = middy(base).use(cronfenceMiddleware({ definition, expression, deps }));
 */
export function cronfenceMiddleware(
  options: CronfenceMiddlewareOptions,
): MiddlewareObj<unknown, RunSummary, Error, CronfenceLambdaContext> {
  const { definition } = options;
  const state = (request: Request<unknown, RunSummary, Error, CronfenceLambdaContext>) => {
    const internal = request.internal as unknown as Internal;
    internal[INTERNAL_KEY] ??= {};
    return internal[INTERNAL_KEY];
  };

  return {
    before: async (request) => {
      const event = parseInvocationEvent(request.event);
      // A job renamed with `id` = its old name also takes events cut under that name (queued copies).
      if (event.job !== definition.name && event.job !== definition.id)
        throw new UnknownJobError(event.job, [definition.name]);
      if (event.shard !== undefined && event.shards !== undefined && event.shards !== definition.shards) {
        // Cut for another shard count (queued across a redeploy): its index names another key space.
        // Re-fan out for the current count (each shard's lease absorbs duplicates), or fail loudly.
        const dispatcher = options.dispatch?.();
        if (!dispatcher || definition.shards === 1) {
          throw new InvalidEventError(
            'shards',
            event.shards,
            `the payload was cut for ${event.shards} shards; job "${definition.name}" now has ${definition.shards}${definition.shards > 1 ? ' and no shard dispatcher' : ''}`,
          );
        }
        const session = new RunSession(
          definition,
          options.expression,
          options.deps(),
          event,
          request.context,
        );
        await dispatcher.dispatch(shardPayloads(request.event, definition.shards));
        const summary = await session.recordResharded(event.shards, definition.shards);
        options.onSummary?.(summary);
        return summary;
      }
      if (event.shard !== undefined && event.shard >= definition.shards) {
        throw new InvalidEventError(
          'shard',
          event.shard,
          definition.shards === 1
            ? `job "${definition.name}" has no shards`
            : `must be below ${definition.shards} (the job's shard count)`,
        );
      }
      const session = new RunSession(definition, options.expression, options.deps(), event, request.context);
      const own = state(request);
      own.session = session;
      const begun = await session.begin();
      if (begun.kind === 'skipped') {
        options.onSummary?.(begun.summary);
        drawNextRunIdRandom();
        return begun.summary;
      }
      request.context.cronfence = begun.ctx;
      // Check-ins (opt-in): only a run that claimed sends; never awaited before the body.
      if (definition.checkIn)
        own.checkIns = new CheckInSender(definition.checkIn, {
          job: definition.name,
          slot: begun.ctx.slot.id,
          runId: begun.ctx.runId,
        });
      return undefined;
    },
    after: async (request) => {
      const session = state(request).session;
      if (!session) return;
      const summary = await session.succeed();
      options.onSummary?.(summary);
      request.response = summary;
      await state(request).checkIns?.end(summary.outcome, request.context.getRemainingTimeInMillis());
      drawNextRunIdRandom();
    },
    onError: async (request) => {
      const session = state(request).session;
      if (!session?.claimed) {
        // Nothing claimed, nothing to release: the error propagates (with the failed claim's record).
        if (session?.unclaimedFailure) attachSummary(request.error, session.unclaimedFailure);
        return;
      }
      const { summary, rethrow } = await session.fail(request.error);
      options.onSummary?.(summary);
      await state(request).checkIns?.end(summary.outcome, request.context.getRemainingTimeInMillis());
      if (!rethrow) request.response = summary;
      else attachSummary(request.error, summary);
      drawNextRunIdRandom();
    },
  };
}
