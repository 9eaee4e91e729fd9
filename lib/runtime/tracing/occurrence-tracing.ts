/**
 * The state of cronfence's OpenTelemetry instrumentation: one attempt span per invocation attempt
 * (a run id), parented by its occurrence's derived span context (trace-ids.ts), with child spans for
 * the protocol's steps. Only `@opentelemetry/api` is used: without a registered SDK every span is the
 * API's non-recording span, and nothing is exported.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Attributes,
  type Context,
  type Link,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { type Outcome, PROBLEM_OUTCOMES } from '../../core/outcomes.js';
import type { Clock } from '../../core/ports.js';
import { Attr, defined, SpanName } from './attributes.js';
import { occurrenceSpanContext } from './trace-ids.js';

/** Instrumentation scope name of every cronfence span. */
export const TRACER_NAME = 'cronfence';

/** One handler invocation as the handler wrapper opened it (the attempts it ran end with it). */
export interface Invocation {
  /** The job's name (the attempt span's name) and key (the trace id's input). */
  readonly jobName: string;
  readonly jobKey: string;
  /** FaaS attributes of every attempt span of this invocation (`faas.*`, `cloud.resource_id`). */
  readonly faas: Attributes;
  /** The run's clock (virtual in drills): every span time of the invocation's attempts. */
  readonly clock: Clock;
  /** When the handler was called, epoch ms by {@link clock}. */
  readonly startMs: number;
  readonly runIds: Set<string>;
  /** Set when the handler returned or threw: no attempt starts in it any more. */
  done?: boolean;
  /** Ambient span when the handler was called (e.g. the ADOT layer's invocation span): linked. */
  readonly links: Link[];
}

/** What identifies an attempt when its first operation or decision is seen. */
export interface AttemptInfo {
  readonly runId: string;
  readonly slot: string;
  readonly trigger?: string;
  readonly shard?: number;
}

/** One attempt's span and the child spans still open. */
export interface Attempt {
  readonly span: Span;
  /** Context whose active span is the attempt span (the parent of its children). */
  readonly ctx: Context;
  readonly clock: Clock;
  readonly invocation: Invocation;
  readonly slot: string;
  body?: Span;
  bodyCtx?: Context;
  bodyEnded?: boolean;
  /** Open effect spans by idempotency key (transitions land on them). */
  readonly effects: Map<string, Span>;
  /** Set once a run record of the attempt was written (the last write wins, as in the table). */
  recorded?: { readonly outcome: string; readonly reason?: string };
  ended: boolean;
}

/** Options of {@link OccurrenceTracing.child}. */
export interface ChildOptions<T> {
  readonly attributes?: Attributes;
  /** Parent the span by the body span while it is open (operations of the job's body). @default the attempt */
  readonly under?: 'body';
  /** Called with the result before the span ends (attributes from it). */
  readonly done?: (result: T, span: Span) => void;
  /** Called with the span once it is started (register it for events). */
  readonly started?: (span: Span) => void;
}

/** Options of {@link OccurrenceTracing}. */
export interface OccurrenceTracingOptions {
  /** @default `trace.getTracer('cronfence')`: the globally registered provider's (ADOT layer, own SDK) */
  readonly tracer?: Tracer;
}

/** Attempt spans by run id, and the invocation each call belongs to. */
export class OccurrenceTracing {
  readonly tracer: Tracer;
  private readonly attempts = new Map<string, Attempt>();
  private readonly current = new AsyncLocalStorage<Invocation>();

  private warm = false;

  constructor(options: OccurrenceTracingOptions = {}) {
    this.tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  }

  /** True for the first invocation this instance sees (`faas.coldstart`), false after. */
  coldStart(): boolean {
    const cold = !this.warm;
    this.warm = true;
    return cold;
  }

  /** Run `fn` as invocation `inv`: attempts first seen inside it belong to it. */
  within<T>(inv: Invocation, fn: () => Promise<T>): Promise<T> {
    return this.current.run(inv, fn);
  }

  /** The attempt of `runId`, if it is open or ended in this process. */
  get(runId: string): Attempt | undefined {
    return this.attempts.get(runId);
  }

  /** The attempt of the current invocation that serves `slotId`, if any. */
  currentFor(slotId: string): Attempt | undefined {
    for (const runId of this.current.getStore()?.runIds ?? []) {
      const a = this.attempts.get(runId);
      if (a?.slot === slotId && !a.ended) return a;
    }
    return undefined;
  }

  /**
   * The attempt of `info.runId`, started (at the invocation's start) when first seen inside an
   * invocation; undefined outside any (the sweeper, a timer of a run never seen).
   */
  attempt(info: AttemptInfo, jobKey?: string): Attempt | undefined {
    const known = this.attempts.get(info.runId);
    if (known) return known;
    const inv = this.current.getStore();
    if (!inv || inv.done || (jobKey !== undefined && jobKey !== inv.jobKey)) return undefined;
    const parent = trace.setSpanContext(otelContext.active(), occurrenceSpanContext(inv.jobKey, info.slot));
    const span = this.tracer.startSpan(
      inv.jobName,
      {
        kind: SpanKind.SERVER,
        startTime: inv.startMs,
        links: inv.links,
        attributes: {
          ...inv.faas,
          ...defined({
            [Attr.Job]: inv.jobName,
            [Attr.JobKey]: inv.jobKey,
            [Attr.Slot]: info.slot,
            [Attr.RunId]: info.runId,
            [Attr.Trigger]: info.trigger,
            [Attr.Shard]: info.shard,
          }),
        },
      },
      parent,
    );
    const a: Attempt = {
      span,
      ctx: trace.setSpan(parent, span),
      clock: inv.clock,
      invocation: inv,
      slot: info.slot,
      effects: new Map(),
      ended: false,
    };
    this.attempts.set(info.runId, a);
    inv.runIds.add(info.runId);
    return a;
  }

  /**
   * Run `op` in a child span of `a` (under its body span with `under: 'body'` while the body runs); no
   * span when `a` is undefined. The span is the active one while `op` runs (so an SDK client's own
   * instrumentation nests under it); `done` adds attributes from the result; a rejection sets the
   * error status and is rethrown unchanged.
   */
  async child<T>(
    a: Attempt | undefined,
    name: string,
    op: () => Promise<T>,
    o: ChildOptions<T> = {},
  ): Promise<T> {
    if (!a) return op();
    const parent = o.under === 'body' && a.bodyCtx && !a.bodyEnded ? a.bodyCtx : a.ctx;
    const span = this.tracer.startSpan(
      name,
      { startTime: a.clock.now(), attributes: o.attributes ?? {} },
      parent,
    );
    o.started?.(span);
    try {
      const result = await otelContext.with(trace.setSpan(parent, span), op);
      o.done?.(result, span);
      return result;
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end(a.clock.now());
    }
  }

  /** Open the body span of `a` (the job's `run`, between the claim and the record). */
  startBody(a: Attempt): void {
    const body = this.tracer.startSpan(SpanName.Body, { startTime: a.clock.now() }, a.ctx);
    a.body = body;
    a.bodyCtx = trace.setSpan(a.ctx, body);
  }

  /** End the body span of `a`, with the body's error if it threw (once; later calls do nothing). */
  endBody(a: Attempt, error?: unknown): void {
    if (!a.body || a.bodyEnded) return;
    a.bodyEnded = true;
    if (error !== undefined) failSpan(a.body, error);
    a.body.end(a.clock.now());
  }

  /**
   * End every attempt `inv` started, and the invocation: attempts are no longer started in it (a body
   * branch still running after the handler returned adds spans under its ended attempt, never a new one).
   * The record decides the outcome; the status is an error for a problem outcome or a thrown error
   * (Lambda retries it), with the thrown error as an exception event.
   */
  endInvocation(inv: Invocation, error: unknown): void {
    inv.done = true;
    for (const runId of inv.runIds) {
      const a = this.attempts.get(runId);
      this.attempts.delete(runId);
      if (!a || a.ended) continue;
      const nowMs = a.clock.now();
      this.endBody(a);
      a.ended = true;
      const r = a.recorded;
      a.span.setAttribute(Attr.RecordWritten, r !== undefined);
      if (r) a.span.setAttributes(defined({ [Attr.Outcome]: r.outcome, [Attr.Reason]: r.reason }));
      if (r && PROBLEM_OUTCOMES.includes(r.outcome as Outcome)) {
        if (error !== undefined) recordError(a.span, error);
        a.span.setStatus({
          code: SpanStatusCode.ERROR,
          message: `${r.outcome}${r.reason ? `: ${r.reason}` : ''}`,
        });
      } else if (error !== undefined) failSpan(a.span, error);
      a.span.end(nowMs);
    }
  }
}

/** Add `err` to `span` as an exception event (never throws). */
function recordError(span: Span, err: unknown): void {
  const e = err as Error | undefined;
  span.recordException({ name: String(e?.name ?? 'Error'), message: String(e?.message ?? err) });
}

/** Record `err` on `span` as an exception event and set the error status (never throws). */
export function failSpan(span: Span, err: unknown): void {
  recordError(span, err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: String((err as Error | undefined)?.message ?? err) });
}
