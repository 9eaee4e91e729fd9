/**
 * External effects (docs/design.md step 5): the public surface of lib/effects, re-exported by lib/index.ts.
 */

export {
  type EffectItem,
  type EffectProvider,
  type EffectResult,
  EffectSource,
  EffectStatus,
  FINAL_EFFECT_STATUSES,
  type LookupResult,
  type SendResult,
} from '../core/effects.js';
export type { EffectStore } from '../core/ports.js';
export { DynamoEffectStore } from '../store/effect-store.js';
export { type HttpJsonProviderOptions, httpJsonProvider, parseCapabilities } from './http-provider.js';
export { canonicalJson, digestOf, MAX_EFFECT_KEY_BYTES, validateEffectKey } from './keys.js';
