/**
 * The named drills, in the order `cronfence drill` runs them.
 */
import type { Drill } from '../types.js';
import { duplicates, manualRerun, uncertain } from './deliveries.js';
import { uncertainEffect } from './effects.js';
import { deadlineMidRun, holderKilled, pausePastLease, renewalTimeout } from './holder.js';
import { LIVENESS_DRILLS } from './liveness.js';
import { fastClaimsOverSlow, slowWaitsForFast } from './skew.js';
import { throttlingAbsorbed, throttlingPerStep } from './throttling.js';

/** Every drill. */
export const DRILLS: readonly Drill[] = [
  holderKilled,
  renewalTimeout,
  pausePastLease({ clockFrozen: false }),
  pausePastLease({ clockFrozen: true }),
  duplicates,
  manualRerun,
  uncertain('claim'),
  uncertain('insert-once'),
  uncertain('fenced-write'),
  uncertainEffect('provider'),
  uncertainEffect('effect-sending'),
  uncertainEffect('effect-finish'),
  throttlingAbsorbed,
  ...throttlingPerStep,
  fastClaimsOverSlow,
  slowWaitsForFast,
  deadlineMidRun,
  ...LIVENESS_DRILLS,
];

/** Drills whose name contains any of `filters` (all when empty). */
export function selectDrills(filters: readonly string[]): Drill[] {
  return DRILLS.filter((d) => filters.length === 0 || filters.some((f) => d.name.includes(f)));
}
