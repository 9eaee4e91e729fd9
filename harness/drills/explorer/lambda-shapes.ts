/**
 * Shapes of Lambda-model histories that the platform's own rules produce (the Lambda and Scheduler
 * docs, never kinder), each named in the report:
 *
 * - `timeout-kill`: an invocation hangs at a pause point past its timeout; Lambda ends it there (its
 *   environment is killed: no promise or timer of it resumes) and retries the event elsewhere;
 * - `freeze-until-next`: every environment is frozen when its invocation returns and thawed only by
 *   its next invocation (or never), so a branch that outlived the handler resumes hours later, or not;
 * - `late-6h`: a late copy of a delivered occurrence, handed off after Scheduler retried for up to 24 h
 *   and then queued in Lambda for up to 6 h (both maximum event ages), counted from the hand-off;
 * - `parallel-body` / `mixed-writes` under the Lambda model: the settle body's rows in parallel
 *   branches, and insert-once + fenced writes on one report key.
 */
import fc from 'fast-check';
import type { PausePointName } from '../../../lib/runtime/deps.js';

/** The Lambda-model shape names, in report order. */
export const LAMBDA_SHAPES = [
  'timeout-kill',
  'freeze-until-next',
  'late-6h',
  'parallel-body',
  'mixed-writes',
] as const;
/** One of {@link LAMBDA_SHAPES}. */
export type LambdaShape = (typeof LAMBDA_SHAPES)[number];

/** The Lambda-model shapes of one history. */
export interface LambdaShapeSpec {
  /** Worker `worker`'s first invocation that reaches `at` hangs there for `ms` (past its 120 s timeout). */
  readonly timeoutKill?: { readonly worker: number; readonly at: PausePointName; readonly ms: number };
  /** Freeze every returned environment until its next invocation. */
  readonly freezeUntilNext: boolean;
  /** A late copy of delivery `delivery` (index mod the count): Scheduler retried `schedulerMs`, Lambda queued `lambdaMs`. */
  readonly late?: { readonly delivery: number; readonly schedulerMs: number; readonly lambdaMs: number };
  readonly parallelBody: boolean;
  readonly mixedWrites: boolean;
}

const HOUR = 3_600_000;

/** The arbitrary of {@link LambdaShapeSpec} for histories of up to `maxWorkers` workers. */
export function lambdaShapesArbitrary(maxWorkers: number): fc.Arbitrary<LambdaShapeSpec> {
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 3 });
  return fc.record({
    timeoutKill: maybe(
      fc.record({
        worker: fc.nat({ max: maxWorkers - 1 }),
        at: fc.constantFrom<PausePointName>('after-claim', 'before-write', 'before-finish'),
        ms: fc.integer({ min: 121_000, max: 900_000 }),
      }),
    ),
    freezeUntilNext: fc.boolean(),
    late: maybe(
      fc.record({
        delivery: fc.nat({ max: 40 }),
        schedulerMs: fc.oneof(fc.constant(0), fc.integer({ min: HOUR, max: 24 * HOUR })),
        lambdaMs: fc.integer({ min: 0, max: 6 * HOUR - 60_000 }),
      }),
    ),
    parallelBody: fc.boolean(),
    mixedWrites: fc.boolean(),
  });
}

/** The Lambda-model shape names a history covers (`timedOut`: invocations the model ended at their timeout). */
export function lambdaShapesOf(s: LambdaShapeSpec | undefined, timedOut: number): LambdaShape[] {
  if (!s) return [];
  const on: [LambdaShape, boolean][] = [
    ['timeout-kill', s.timeoutKill !== undefined && timedOut > 0],
    ['freeze-until-next', s.freezeUntilNext],
    ['late-6h', s.late !== undefined],
    ['parallel-body', s.parallelBody],
    ['mixed-writes', s.mixedWrites],
  ];
  return on.filter(([, v]) => v).map(([n]) => n);
}
