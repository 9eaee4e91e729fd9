/**
 * The effect runner as a plug-in of a job's definition: `defineJob({ effects: effectRunner })` names
 * it, and only then is the pending -> sending -> succeeded runner (lib/effects/runner.ts) part of the
 * job's bundle. A job without `effects` bundles none of it; its `ctx.effect` refuses with an error
 * naming the option.
 */
import type { EffectProvider, EffectResult } from '../core/effects.js';
import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { EffectTransition } from '../effects/runner.js';
import type { FenceContext } from '../store/result-store.js';
import type { RuntimeDeps } from './deps.js';

/** What one run gives its effect runner (built at the body's first `ctx.effect`). */
export interface EffectsBinding {
  readonly deps: RuntimeDeps;
  /** The job's key in the library table (its effect records are `EFFECT#<job>#<key>`). */
  readonly job: string;
  /** The run's fence context, with the current time. */
  readonly fence: () => FenceContext;
  /** The run record's details (effects in `needs-review` are named there). */
  readonly details: Record<string, unknown>;
  /** The lease item's restore mark, epoch ms, when the table was restored. @default none */
  readonly restoredAtMs?: number;
  /** Before the first write of each effect: abort checks and the `before-write` pause point. */
  beforeWrite(key: string): Promise<void>;
  /** Right before each provider call: throws when the run may no longer send. */
  beforeSend(): void;
  /** Wait `ms` on the run's clock; rejects with the abort reason when the run must stop. */
  wait(ms: number): Promise<void>;
  /** Lambda time left, ms. */
  remainingTimeMs(): number;
  /** Reports a record's transition to the run's observer. */
  onTransition(t: EffectTransition): void;
}

/** One run's effects: `ctx.effect(key, request, provider)` calls `run`. */
export interface RunEffects {
  run<TRequest>(key: string, request: TRequest, provider: EffectProvider<TRequest>): Promise<EffectResult>;
}

/**
 * The plug-in `defineJob`'s `effects` option takes: builds one run's {@link RunEffects}. The one
 * implementation is `effectRunner` (the root export).
 */
export type JobEffects = (binding: EffectsBinding) => RunEffects;

const byDefinition = new WeakMap<object, JobEffects>();

/** Attach the effect runner `defineJob` was given to the validated definition. @returns `definition` */
export function declareEffects<T extends object>(definition: T, effects: JobEffects): T {
  byDefinition.set(definition, effects);
  return definition;
}

/** The effect runner of a definition made by `defineJob({ effects })`; undefined without one. */
export function effectsOf(definition: object): JobEffects | undefined {
  return byDefinition.get(definition);
}

/** What `ctx.effect` does in a job whose definition names no effect runner: refuses, naming the option. */
export const noEffects: JobEffects = () => ({
  run: () => {
    throw new InvalidJobDefinitionError(
      'effects',
      undefined,
      'ctx.effect needs the effect runner: defineJob({ effects: effectRunner, ... }) with effectRunner from cronfence',
    );
  },
});
