/**
 * The seeded history explorer: fast-check generates histories, each runs on a backend (in memory by
 * default), every invariant is checked after each; a failing history is shrunk by fast-check and
 * reported with its seed, path and the shrunk history as JSON (replay it with {@link replayHistory}).
 */
import fc from 'fast-check';
import { CLOCK_SKEW_BUDGET_MS } from '../../../lib/core/lease.js';
import type { Check } from '../checks.js';
import { faultsByKind } from '../checks.js';
import { type BackendFactory, memoryBackend } from './backends.js';
import { ecsTaskCases } from './ecs-shape.js';
import { type HistoryShape, type HistorySpec, historyArbitrary } from './history.js';
import { checkInvariants, INVARIANTS } from './invariants.js';
import { LIVENESS, SHAPES, shapesOf } from './liveness.js';
import { type HistoryOutcome, runHistory } from './run-history.js';
import type { LambdaRunOptions } from './run-lambda-history.js';
import { SHAPES as SAFETY_SHAPES, shapesOf as safetyShapesOf } from './shapes.js';

/** Options of {@link explore}. */
export interface ExploreOptions {
  /** Histories to generate (fast-check `numRuns`). */
  readonly runs: number;
  /** @default random (printed in the report) */
  readonly seed?: number;
  /** @default memoryBackend */
  readonly backend?: BackendFactory;
  readonly shape?: HistoryShape;
  /** A broken variant to run instead of the real runtime (to prove the invariants catch it). */
  readonly variant?: LambdaRunOptions['variant'];
  /** Called after each history (progress). */
  readonly onHistory?: (n: number, outcome: HistoryOutcome, checks: readonly Check[]) => void;
}

/** What an exploration did. */
export interface ExploreReport {
  readonly seed: number;
  /** Histories executed, shrinking included. */
  readonly histories: number;
  /** Invariant checks evaluated (histories x invariants). */
  readonly checks: number;
  readonly invariants: readonly string[];
  /** Faults injected, by kind, over all histories. */
  readonly faults: Readonly<Record<string, number>>;
  /** Invocations by outcome over all histories. */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Histories by liveness shape (liveness.ts SHAPES: the Lambda model's), every shape named, 0 included. */
  readonly shapes: Readonly<Record<string, number>>;
  /** Histories by safety shape (shapes.ts SHAPES: the listed model's), every shape named, 0 included. */
  readonly safetyShapes: Readonly<Record<string, number>>;
  /** Histories that broke a safety invariant (I1-I8) and the liveness invariant. */
  readonly violations: { readonly safety: number; readonly liveness: number };
  readonly workers: { readonly min: number; readonly max: number };
  readonly deliveries: number;
  /** The failure, shrunk, when an invariant broke. */
  readonly failure?: {
    readonly message: string;
    readonly history: HistorySpec;
    readonly checks: readonly Check[];
  };
}

const add = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

/** Explore histories; never throws for a violated invariant (it is in the report). */
export async function explore(o: ExploreOptions): Promise<ExploreReport> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const backend = o.backend ?? memoryBackend;
  const budget = o.shape?.skewBudgetMs ?? CLOCK_SKEW_BUDGET_MS;
  const faults: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const shapes: Record<string, number> = Object.fromEntries(SHAPES.map((x) => [x, 0]));
  const safetyShapes: Record<string, number> = Object.fromEntries(SAFETY_SHAPES.map((n) => [n, 0]));
  const violations = { safety: 0, liveness: 0 };
  const options = o.variant ? { variant: o.variant } : {};
  let histories = 0;
  let deliveries = 0;
  let minW = Number.POSITIVE_INFINITY;
  let maxW = 0;
  let lastFailure: { history: HistorySpec; checks: Check[] } | undefined;
  const property = fc.asyncProperty(
    historyArbitrary({
      ...o.shape,
      // a broken variant is of the Lambda model's runtime: every history goes through it
      ...(o.variant && { model: 'lambda' as const }),
    }),
    async (spec) => {
      const outcome = await runHistory(spec, backend, options);
      const checks = checkInvariants(outcome, budget);
      histories++;
      for (const x of shapesOf(spec, outcome)) shapes[x] = (shapes[x] ?? 0) + 1;
      deliveries += spec.deliveries.length;
      minW = Math.min(minW, spec.skewsMs.length);
      maxW = Math.max(maxW, spec.skewsMs.length);
      add(faults, faultsByKind(outcome.entries));
      for (const n of [...safetyShapesOf(spec.shapes), ...ecsTaskCases(spec)])
        safetyShapes[n] = (safetyShapes[n] ?? 0) + 1;
      const provider = outcome.provider.dropped;
      if (provider) add(faults, { 'provider-response-lost': provider });
      for (const r of outcome.results) {
        const k = r.summary
          ? `${r.summary.outcome}${r.summary.reason ? `/${r.summary.reason}` : ''}`
          : `threw ${r.error?.name}`;
        outcomes[k] = (outcomes[k] ?? 0) + 1;
      }
      if (outcome.unsettled)
        outcomes['killed (never settled)'] = (outcomes['killed (never settled)'] ?? 0) + outcome.unsettled;
      o.onHistory?.(histories, outcome, checks);
      const failed = checks.filter((c) => !c.ok);
      if (failed.some((c) => c.name === LIVENESS)) violations.liveness++;
      if (failed.some((c) => c.name !== LIVENESS)) violations.safety++;
      if (failed.length) {
        lastFailure = { history: spec, checks };
        throw new Error(failed.map((c) => `${c.name}: ${c.detail}`).join('\n'));
      }
    },
  );
  const details = await fc.check(property, { numRuns: o.runs, seed, endOnFailure: false });
  const base = {
    seed,
    histories,
    checks: histories * INVARIANTS.length,
    invariants: INVARIANTS,
    faults,
    outcomes,
    shapes,
    safetyShapes,
    violations,
    workers: { min: Number.isFinite(minW) ? minW : 0, max: maxW },
    deliveries,
  };
  if (!details.failed) return base;
  const shrunk = (details.counterexample?.[0] ?? lastFailure?.history) as HistorySpec;
  const final = await runHistory(shrunk, backend, options);
  return {
    ...base,
    failure: {
      message: `seed ${seed}, path ${details.counterexamplePath}, after ${details.numShrinks} shrinks: ${String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)}`,
      history: shrunk,
      checks: checkInvariants(final, budget),
    },
  };
}

/** Re-run one history (e.g. the shrunk JSON a failure printed) and check it. */
export async function replayHistory(
  spec: HistorySpec,
  backend: BackendFactory = memoryBackend,
  options: LambdaRunOptions = {},
): Promise<Check[]> {
  return checkInvariants(await runHistory(spec, backend, options), CLOCK_SKEW_BUDGET_MS);
}
