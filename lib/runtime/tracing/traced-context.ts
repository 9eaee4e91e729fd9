/**
 * The body's side of an attempt's trace: a middy middleware (it runs after cronfence's claim and
 * before its record) that opens the `cronfence.body` span and hands the body a JobContext whose fenced
 * writes, insert-once writes and effects each run in a child span of it.
 */
import type { MiddlewareObj } from '@middy/core';
import type { JobContext } from '../job-context.js';
import type { CronfenceLambdaContext } from '../middleware.js';
import type { RunSummary } from '../run-summary.js';
import { Attr, defined, SpanName } from './attributes.js';
import type { Attempt, OccurrenceTracing } from './occurrence-tracing.js';

/** `ctx` with each protected operation in a child span of attempt `a` (the operation itself unchanged). */
function tracedContext(t: OccurrenceTracing, a: Attempt, ctx: JobContext): JobContext {
  const write = (table: string) => ({ [Attr.Table]: table, [Attr.Fence]: ctx.fence });
  return {
    ...ctx,
    fencedPut: (tableName, key, attributes, options) =>
      t.child(a, SpanName.FencedWrite, () => ctx.fencedPut(tableName, key, attributes, options), {
        under: 'body',
        attributes: write(tableName),
      }),
    insertOnce: (tableName, key, attributes) =>
      t.child(a, SpanName.InsertOnce, () => ctx.insertOnce(tableName, key, attributes), {
        under: 'body',
        attributes: write(tableName),
        done: (r, span) => span.setAttribute(Attr.InsertOnceResult, r.status),
      }),
    effect: (key, request, provider) =>
      t.child(
        a,
        SpanName.Effect,
        async () => {
          try {
            return await ctx.effect(key, request, provider);
          } finally {
            a.effects.delete(key);
          }
        },
        {
          under: 'body',
          attributes: defined({
            [Attr.EffectKey]: key,
            [Attr.EffectProvider]: provider?.name,
            [Attr.EffectIdempotencyKeys]: provider?.idempotencyKeys,
            [Attr.Fence]: ctx.fence,
          }),
          started: (span) => a.effects.set(key, span),
          done: (r, span) =>
            span.setAttributes({
              [Attr.EffectStatus]: r.status,
              [Attr.EffectSource]: r.source,
              [Attr.EffectAttempts]: r.attempts,
            }),
        },
      ),
  };
}

/**
 * The middleware that opens the body span of a claimed run and swaps in the traced JobContext; the
 * span ends when the body returns (`after`) or throws (`onError`), before cronfence records the run.
 */
export function bodySpans(
  t: OccurrenceTracing,
): MiddlewareObj<unknown, RunSummary, Error, CronfenceLambdaContext> {
  const attemptOf = (ctx: JobContext | undefined) => (ctx ? t.get(ctx.runId) : undefined);
  return {
    before: (request) => {
      const ctx = request.context.cronfence;
      const a = attemptOf(ctx);
      if (!ctx || !a || a.ended) return;
      t.startBody(a);
      request.context.cronfence = tracedContext(t, a, ctx);
    },
    after: (request) => {
      const a = attemptOf(request.context.cronfence);
      if (a) t.endBody(a);
    },
    onError: (request) => {
      const a = attemptOf(request.context.cronfence);
      if (a) t.endBody(a, request.error);
    },
  };
}
