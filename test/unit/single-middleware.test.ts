/**
 * unit: one middleware applied without middy settles as `middy(base, { timeoutEarlyInMillis: 0 })
 * .use(middleware)` does (@middy/core itself is the oracle, run side by side): the same calls in the
 * same order, the same request each middleware sees, the same response or the same rejection (its
 * message, `cause` and `originalError`), for every combination fast-check draws of what `before`,
 * the handler, `after` and `onError` do (a thenable that is not a Promise included: middy takes it as
 * the middleware's value, unawaited).
 */
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySingleMiddleware } from '../../lib/runtime/single-middleware.js';

type Step =
  | 'absent'
  | 'early-then-throws'
  | 'nothing'
  | 'returns'
  | 'early-undefined'
  | 'throws'
  | 'sync-returns'
  | 'sync-throws'
  | 'thenable'
  | 'rejecting-thenable';
type OnErrorStep =
  | Step
  | 'sets-response'
  | 'rethrows'
  | 'replaces-error'
  | 'replaces-error-and-sets-response'
  | 'throws-primitive';
type BaseStep = 'returns' | 'undefined' | 'throws' | 'throws-primitive';

interface Plan {
  before: Step;
  base: BaseStep;
  after: Step;
  onError: OnErrorStep;
  event: 'object' | 'undefined';
  context: 'object' | 'undefined';
}

type R = Request<unknown, unknown, Error, Context>;

/** The middleware, the handler and the log of what each saw, for one plan (fresh errors per build). */
function build(plan: Plan) {
  const log: string[] = [];
  const seen = (where: string, r: R) =>
    log.push(
      `${where} event=${JSON.stringify(r.event)} context=${JSON.stringify(r.context)} response=${String(
        r.response,
      )} error=${(r.error as Error | undefined)?.message ?? String(r.error)} early=${'earlyResponse' in r} internal=${Object.getPrototypeOf(r.internal)}`,
    );
  const act = (where: string, step: OnErrorStep) => (r: R) => {
    seen(where, r);
    switch (step) {
      case 'nothing':
        return Promise.resolve(undefined);
      case 'returns':
        return Promise.resolve(`${where}-value`);
      case 'sync-returns':
        return `${where}-sync-value`;
      case 'early-undefined':
        r.earlyResponse = undefined;
        return Promise.resolve(undefined);
      case 'throws':
        return Promise.reject(new Error(`${where}-error`));
      case 'thenable':
        // Not a native Promise: middy takes it as the middleware's value, unawaited.
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the case under test
        return { then: (resolve: (v: unknown) => void) => resolve(`${where}-thenable`) };
      case 'rejecting-thenable':
        return {
          // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is the case under test
          then: (_: unknown, reject: (e: unknown) => void) => reject(new Error(`${where}-thenable-error`)),
        };
      case 'early-then-throws':
        r.earlyResponse = `${where}-early`;
        return Promise.reject(new Error(`${where}-error`));
      case 'sync-throws':
        throw new Error(`${where}-sync-error`);
      case 'sets-response':
        r.response = `${where}-set`;
        return Promise.resolve(undefined);
      case 'rethrows':
        return Promise.reject(r.error);
      case 'replaces-error':
        r.error = new Error(`${where}-replaced`);
        return Promise.resolve(undefined);
      case 'replaces-error-and-sets-response':
        r.error = new Error(`${where}-replaced`);
        r.response = `${where}-set`;
        return Promise.resolve(undefined);
      case 'throws-primitive':
        return Promise.reject(`${where}-primitive`);
      default:
        return Promise.resolve(undefined);
    }
  };
  const middleware: MiddlewareObj<unknown, unknown, Error, Context> = {};
  if (plan.before !== 'absent') middleware.before = act('before', plan.before) as never;
  if (plan.after !== 'absent') middleware.after = act('after', plan.after) as never;
  if (plan.onError !== 'absent') middleware.onError = act('onError', plan.onError) as never;
  if (!middleware.before && !middleware.after && !middleware.onError)
    middleware.after = act('after', 'nothing') as never;
  const base = async (event: unknown, context: Context): Promise<unknown> => {
    log.push(`base event=${JSON.stringify(event)} context=${JSON.stringify(context)}`);
    if (plan.base === 'throws') throw new Error('base-error');
    if (plan.base === 'throws-primitive') throw 'base-primitive';
    return plan.base === 'returns' ? 'base-value' : undefined;
  };
  return { middleware, base, log };
}

/** How an invocation settled, with the parts of a rejection a caller can read. */
async function settle(p: Promise<unknown>): Promise<string> {
  try {
    return `resolved ${String(await p)}`;
  } catch (err) {
    if (typeof err !== 'object' || err === null) return `rejected primitive ${String(err)}`;
    const e = err as Error & { originalError?: Error };
    return `rejected ${e.message} cause=${(e.cause as Error | undefined)?.message ?? String(e.cause)} original=${e.originalError?.message ?? String(e.originalError)}`;
  }
}

async function both(plan: Plan): Promise<{ middy: string[]; alone: string[] }> {
  const args = [
    plan.event === 'object' ? { job: 'j' } : undefined,
    plan.context === 'object' ? ({ awsRequestId: 'r' } as Context) : undefined,
  ] as const;
  const viaMiddy = build(plan);
  const chained = middy(viaMiddy.base, { timeoutEarlyInMillis: 0 }).use(viaMiddy.middleware);
  const outMiddy = await settle((chained as (e: unknown, c: unknown) => Promise<unknown>)(...args));
  const direct = build(plan);
  const outAlone = await settle(applySingleMiddleware(direct.middleware, direct.base)(...args));
  return { middy: [...viaMiddy.log, outMiddy], alone: [...direct.log, outAlone] };
}

const steps: Step[] = [
  'absent',
  'nothing',
  'returns',
  'early-undefined',
  'throws',
  'sync-returns',
  'sync-throws',
  'early-then-throws',
  'thenable',
  'rejecting-thenable',
];
const plans = fc.record<Plan>({
  before: fc.constantFrom(...steps),
  base: fc.constantFrom<BaseStep>('returns', 'undefined', 'throws', 'throws-primitive'),
  after: fc.constantFrom(...steps),
  onError: fc.constantFrom<OnErrorStep>(
    ...steps,
    'sets-response',
    'rethrows',
    'replaces-error',
    'replaces-error-and-sets-response',
    'throws-primitive',
  ),
  event: fc.constantFrom<'object' | 'undefined'>('object', 'undefined'),
  context: fc.constantFrom<'object' | 'undefined'>('object', 'undefined'),
});

/** A plan that does nothing unusual (a handler returning a value, given an event and a context), with `p` over it. */
const planWith = (p: Partial<Plan>): Plan => ({
  before: 'nothing',
  base: 'returns',
  after: 'nothing',
  onError: 'nothing',
  event: 'object',
  context: 'object',
  ...p,
});

describe('applySingleMiddleware', () => {
  it('settles every drawn plan as middy does, with the same calls seeing the same request', async () => {
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const { middy: expected, alone } = await both(plan);
        expect(alone).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('rethrows the handler error with the run kept when onError leaves no response', async () => {
    const out = await both(planWith({ base: 'throws' }));
    expect(out.alone).toEqual([
      'before event={"job":"j"} context={"awsRequestId":"r"} response=undefined error=undefined early=false internal=null',
      'base event={"job":"j"} context={"awsRequestId":"r"}',
      'onError event={"job":"j"} context={"awsRequestId":"r"} response=undefined error=base-error early=false internal=null',
      'rejected base-error cause=undefined original=undefined',
    ]);
    expect(out.alone).toEqual(out.middy);
  });

  it('gives an undefined event and context as {} (what middy hands a handler invoked without them)', async () => {
    const out = await both(
      planWith({ before: 'returns', onError: 'absent', event: 'undefined', context: 'undefined' }),
    );
    expect(out.alone).toEqual([
      'before event={} context={} response=undefined error=undefined early=false internal=null',
      'resolved before-value',
    ]);
    expect(out.alone).toEqual(out.middy);
  });

  it('attaches the first error as cause and originalError of an error onError throws', async () => {
    const out = await both(planWith({ after: 'throws', onError: 'throws' }));
    expect(out.alone.at(-1)).toBe('rejected onError-error cause=after-error original=after-error');
    expect(out.alone).toEqual(out.middy);
  });
});
