/**
 * One middy middleware applied to a handler without middy's per-invocation machinery: how a job with
 * no middleware of its own runs (`defineJob` switches to a middy chain at the first `.use()`).
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';

/** A handler as middy calls it, without middy's third argument (`{ signal }`: the handlers given here take none). */
export type BaseHandler<TEvent, TResult, TContext> = (event: TEvent, context: TContext) => Promise<TResult>;

/**
 * `base` with `middleware` applied as `middy(base, { timeoutEarlyInMillis: 0 }).use(middleware)`
 * applies it (@middy/core 7, `runRequest`): one request object `{ event, context, response, error,
 * internal }` per invocation (an undefined event or context becomes `{}`); `before`, then `base` unless
 * `before` returned a value or set `request.earlyResponse` (that is the response), then `after` (a
 * value it returns replaces the response); an error thrown anywhere resets the response, sets
 * `request.error` and runs `onError`, after which `request.error` is rethrown unless `onError` left a
 * response; an error `onError` throws itself propagates with the first one as its `cause` (and middy's
 * `originalError`). As middy, a middleware's result is awaited only when it is a native Promise.
 *
 * What it leaves out of middy's work: the AbortController middy makes per invocation for the handler's
 * third argument, its plugin hooks (all unset here), its early-timeout race (off) and two async frames
 * around the request. The function it returns is not a middy handler: it has no `use`, `before`,
 * `after`, `onError` or `handler` of its own. Measured on the claim path in BENCHMARKS.md section 9
 * ("A job without middlewares of its own runs without middy").
 * @returns an async handler `(event, context) => response`; it rejects with what middy would reject.
 */
export function applySingleMiddleware<TEvent, TResult, TContext extends Context>(
  middleware: MiddlewareObj<TEvent, TResult, Error, TContext>,
  base: BaseHandler<TEvent, TResult, TContext>,
): (event?: TEvent, context?: TContext) => Promise<TResult> {
  const { before, after, onError } = middleware;
  const early = (request: Request<TEvent, TResult, Error, TContext>, res: TResult | undefined): boolean => {
    if (res !== undefined) request.earlyResponse = res;
    if (!('earlyResponse' in request)) return false;
    request.response = request.earlyResponse;
    return true;
  };
  return async (event = {} as TEvent, context = {} as TContext) => {
    const request: Request<TEvent, TResult, Error, TContext> = {
      event,
      context,
      response: undefined,
      error: undefined,
      internal: Object.create(null),
    };
    try {
      // A middleware's result is awaited only when it is a native Promise, as middy does.
      let res: unknown = before?.(request);
      if (res instanceof Promise) res = await res;
      if (!before || !early(request, res as TResult | undefined)) {
        request.response = await base(request.event, request.context);
        if (after) {
          res = after(request);
          if (res instanceof Promise) res = await res;
          early(request, res as TResult | undefined);
        }
      }
    } catch (err) {
      request.response = undefined;
      delete request.earlyResponse;
      request.error = err as Error;
      try {
        if (onError) {
          let res: unknown = onError(request);
          if (res instanceof Promise) res = await res;
          early(request, res as TResult | undefined);
        }
      } catch (thrown) {
        if (thrown !== request.error && typeof thrown === 'object' && thrown !== null) {
          (thrown as { originalError?: unknown }).originalError = request.error;
          (thrown as { cause?: unknown }).cause ??= request.error;
        }
        throw thrown;
      }
      if (request.response === undefined) throw request.error;
    }
    return request.response as TResult;
  };
}
