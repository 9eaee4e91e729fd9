/**
 * `withTracing(handler)`: the job handler with OpenTelemetry spans — one attempt span per invocation
 * attempt in its occurrence's trace, child spans for the claim, the body and its writes and effects,
 * the record and the release. Opt-in by import (`cronfence/tracing`): a job that does not import it
 * bundles none of this, nor `@opentelemetry/api`.
 */
import {
  isSpanContextValid,
  type Link,
  context as otelContext,
  ProxyTracerProvider,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import type { Context } from 'aws-lambda';
import { parseInvocationEvent } from '../../core/event.js';
import { jobKeyOf } from '../../core/job-definition.js';
import type { JobHandler, JobMiddleware } from '../define-job.js';
import { createDeps, type RuntimeDeps } from '../deps.js';
import type { CronfenceLambdaContext } from '../middleware.js';
import { createObserver } from '../observability.js';
import type { RunSummary } from '../run-summary.js';
import { Attr, defined, faasCron } from './attributes.js';
import {
  failSpan,
  type Invocation,
  OccurrenceTracing,
  type OccurrenceTracingOptions,
} from './occurrence-tracing.js';
import { bodySpans } from './traced-context.js';
import { tracedDeps } from './traced-deps.js';

/** `faas.time` of an event: its scheduled time in ISO 8601 UTC to the second; none for a bad event. */
function faasTime(event: unknown): string | undefined {
  try {
    return new Date(parseInvocationEvent(event).scheduledTimeMs).toISOString().replace('.000Z', 'Z');
  } catch {
    return undefined;
  }
}

/** The span the caller made active (e.g. the ADOT layer's invocation span): the attempt links to it. */
function ambientLinks(): Link[] {
  const ambient = trace.getSpan(otelContext.active())?.spanContext();
  return ambient && isSpanContextValid(ambient) ? [{ context: ambient }] : [];
}

/** Options of {@link withTracing}. */
export interface WithTracingOptions extends OccurrenceTracingOptions {
  /**
   * Called after the invocation's spans ended, before the handler returns: the spans must be exported
   * by then, since Lambda freezes the environment once the handler returns (a provider of the project's
   * own: `() => provider.forceFlush()`). Its errors are ignored.
   * @default without `tracer`, {@link flushGlobalProvider}; with `tracer`, none
   */
  readonly flush?: () => Promise<unknown>;
}

/**
 * Force-flush the globally registered tracer provider (the ADOT layer's, or one registered with
 * `trace.setGlobalTracerProvider`), when it has `forceFlush`; nothing when none is registered.
 */
export async function flushGlobalProvider(): Promise<void> {
  const global = trace.getTracerProvider();
  const real = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  await (real as { forceFlush?: () => Promise<void> }).forceFlush?.();
}

function wrap(
  t: OccurrenceTracing,
  flush: (() => Promise<unknown>) | undefined,
  h: JobHandler,
  deps: () => RuntimeDeps,
  onSummary: ((s: RunSummary) => void) | undefined,
  added: readonly JobMiddleware[],
): JobHandler {
  const traced = () => tracedDeps(t, deps());
  const inner = h.withDeps(traced, onSummary).use([bodySpans(t), ...added]);
  let more = [...added];
  const run = async (event: unknown, context: Context | CronfenceLambdaContext): Promise<RunSummary> => {
    const clock = traced().clock;
    const inv: Invocation = {
      jobName: h.job.name,
      jobKey: jobKeyOf(h.job),
      faas: defined({
        [Attr.FaasTrigger]: 'timer',
        [Attr.FaasCron]: faasCron(h.expression),
        [Attr.FaasTime]: faasTime(event),
        [Attr.FaasInvocationId]: context?.awsRequestId,
        [Attr.FaasColdstart]: t.coldStart(),
        [Attr.CloudResourceId]: context?.invokedFunctionArn,
        [Attr.Schedule]: h.job.schedule,
      }),
      clock,
      startMs: clock.now(),
      runIds: new Set(),
      links: ambientLinks(),
    };
    let error: unknown;
    try {
      return await t.within(inv, () => inner(event, context));
    } catch (err) {
      error = err;
      throw err;
    } finally {
      t.endInvocation(inv, error);
      if (inv.runIds.size === 0 && error !== undefined) {
        // Refused before any attempt began (a malformed event): one span in a trace of its own.
        const span = t.tracer.startSpan(inv.jobName, {
          kind: SpanKind.SERVER,
          startTime: inv.startMs,
          links: inv.links,
          attributes: { ...inv.faas, [Attr.Job]: inv.jobName, [Attr.JobKey]: inv.jobKey },
        });
        failSpan(span, error);
        span.end(clock.now());
      }
      await flush?.().catch(() => undefined);
    }
  };
  const handler: JobHandler = Object.assign(run, {
    job: h.job,
    expression: h.expression,
    uses: h.uses,
    withDeps: (d: () => RuntimeDeps, s?: (s: RunSummary) => void) => wrap(t, flush, h, d, s, more),
    use: (m: JobMiddleware | readonly JobMiddleware[]) => {
      const list = Array.isArray(m) ? [...m] : [m as JobMiddleware];
      inner.use(list);
      more = [...more, ...list];
      return handler;
    },
  });
  return handler;
}

/**
 * The job handler with OpenTelemetry tracing, through `@opentelemetry/api` only: spans go to the
 * globally registered tracer provider (the ADOT Lambda layer's, or one the project registers), and
 * nowhere without one (the API's no-op). Every attempt of one occurrence — retries, duplicates, late
 * copies, catch-ups, backfills, shard runs — is a span in the trace whose id is derived from the job's
 * key and the slot id ({@link occurrenceIds}); docs/design.md "Traces" has the span model.
 * `withDeps` and `use` keep the tracing. Pass one {@link OccurrenceTracing} to several handlers (and
 * `tracedDeps` of a sweeper) to share its tracer.
 * @param options - a tracer (@default the global provider's `cronfence` tracer) and a flush, or a
 *   shared instance
 * @example
 * import { withTracing } from 'cronfence/tracing';
 * export const handler = withTracing(defineJob({ name: 'daily-report', ... }));
 */
export function withTracing(
  handler: JobHandler,
  options: WithTracingOptions | OccurrenceTracing = {},
): JobHandler {
  const t = options instanceof OccurrenceTracing ? options : new OccurrenceTracing(options);
  const flush =
    options instanceof OccurrenceTracing
      ? undefined
      : (options.flush ?? (options.tracer === undefined ? flushGlobalProvider : undefined));
  // What defineJob's deployed handler builds from the environment: logs and EMF metrics as without tracing.
  let env: RuntimeDeps | undefined;
  const fromEnv = () => {
    env ??= createDeps({ observe: createObserver() });
    return env;
  };
  return wrap(t, flush, handler, fromEnv, undefined, []);
}
