/**
 * External effects (docs/design.md step 5): the public surface of lib/effects, re-exported by lib/index.ts.
 */

export {
  EFFECT_UNSETTLED_AFTER_MS,
  type EffectError,
  type EffectItem,
  type EffectProvider,
  type EffectResult,
  EffectSource,
  EffectStatus,
  effectVersion,
  FINAL_EFFECT_STATUSES,
  type LateOutcome,
  type LookupResult,
  type SendResult,
} from '../core/effects.js';
export type { EffectStore } from '../core/ports.js';
export { DynamoEffectStore } from '../store/effect-store.js';
export { type HttpJsonProviderOptions, httpJsonProvider, parseCapabilities } from './http-provider.js';
export { canonicalJson, digestOf, MAX_EFFECT_KEY_BYTES, validateEffectKey } from './keys.js';
