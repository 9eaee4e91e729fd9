/**
 * Overlap-policy shapes of Lambda-model histories: the settle job runs under one overlap policy
 * (`overlap-skip`, `overlap-buffer-one`, `overlap-buffer-all`, `overlap-replace`, `overlap-after-previous`)
 * with a deadline long enough for a holder to be stuck past several 5-minute periods (Lambda's 900 s
 * maximum), while the history's deliveries bring the next slots, duplicates, manual triggers and late
 * copies, and often an operator's backfill or trigger of past slots arriving while a holder is live or
 * stuck, sometimes delivered twice (overlap-backfill.ts). A stuck holder keeps renewing (its body waits, its lease keeper does not), so under `replace`
 * it is displaced while it believes it holds the lease, and wakes later to try an insert-once, an effect
 * and a fenced write (the invariants in overlap-invariants.ts say none may land).
 */
import fc from 'fast-check';
import type { OverlapOption, OverlapPolicyName } from '../../../lib/core/overlap.js';
import type { Worker } from '../stage.js';
import { SLOT_MINUTES } from './jobs.js';
import { BACKFILL_BY, type BackfillSpec, backfillArbitrary } from './overlap-backfill.js';

/** The overlap shape names (the policies', then the operator backfills'), in report order. */
export const OVERLAP_SHAPES = [
  'overlap-skip',
  'overlap-buffer-one',
  'overlap-buffer-all',
  'overlap-replace',
  'overlap-after-previous',
  'overlap-backfill',
  'overlap-trigger',
  'overlap-backfill-duplicate',
  'overlap-backfill-under-holder',
] as const;
/** One of {@link OVERLAP_SHAPES}. */
export type OverlapShape = (typeof OVERLAP_SHAPES)[number];

/** The settle job's deadline under an overlap shape, seconds (Lambda's maximum). */
export const OVERLAP_TIMEOUT_SECONDS = 900;

const SLOT_MS = SLOT_MINUTES * 60_000;

/** The overlap shape of one history. */
export interface OverlapSpec {
  readonly policy: OverlapPolicyName;
  /** `buffer-all`: how many occurrences may wait. */
  readonly maxBuffered?: number;
  /** `replace`: replace only a holder older than this, seconds. */
  readonly replaceAfterSeconds?: number;
  /**
   * The settle job's first holder on worker `worker` is stuck before its first write for `ms` (its lease
   * kept renewed), past one or more periods.
   */
  readonly stuck?: { readonly worker: number; readonly ms: number };
  /** Catch-up mode of the settle job (after-previous needs `all` to re-run a failed predecessor). */
  readonly catchUp: 'all' | 'latest';
  /**
   * The settle job declares `catchUp.since` (its schedule's start): under `after-previous` its chain
   * starts at its first slot; without, at its first success.
   */
  readonly since?: true;
  /** An operator's backfill (or trigger) of the settle job's past slots (overlap-backfill.ts). */
  readonly backfill?: BackfillSpec;
}

/** Every policy, in shape order. */
const ALL_POLICIES: readonly OverlapPolicyName[] = [
  'skip',
  'buffer-one',
  'buffer-all',
  'replace',
  'after-previous',
];

/**
 * The arbitrary of a history's overlap shape (in about one Lambda-model history of three).
 * @param policies the policies drawn from. @default every policy
 */
export const overlapArbitrary = (
  policies: readonly OverlapPolicyName[] = ALL_POLICIES,
): fc.Arbitrary<OverlapSpec | undefined> =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    {
      weight: 1,
      arbitrary: fc
        .record({
          policy: fc.constantFrom<OverlapPolicyName>(...policies),
          maxBuffered: fc.integer({ min: 1, max: 4 }),
          replaceAfterSeconds: fc.option(fc.integer({ min: 30, max: 600 }), { nil: undefined, freq: 2 }),
          stuck: fc.option(
            fc.record({
              worker: fc.nat({ max: 7 }),
              // from just past one period to Lambda's limit: a holder stuck past up to ~3 periods
              ms: fc.integer({ min: SLOT_MS + 10_000, max: OVERLAP_TIMEOUT_SECONDS * 1000 - 30_000 }),
            }),
            { nil: undefined, freq: 4 },
          ),
          catchUp: fc.constantFrom<'all' | 'latest'>('all', 'all', 'latest'),
          // After the keys above, so they draw the same values as before these existed.
          backfill: backfillArbitrary,
          since: fc.boolean(),
        })
        .map(
          (o): OverlapSpec => ({
            policy: o.policy,
            ...(o.policy === 'buffer-all' && { maxBuffered: o.maxBuffered }),
            ...(o.policy === 'replace' &&
              o.replaceAfterSeconds !== undefined && { replaceAfterSeconds: o.replaceAfterSeconds }),
            ...(o.stuck && { stuck: o.stuck }),
            catchUp: o.policy === 'after-previous' ? 'all' : o.catchUp,
            ...(o.since && { since: true }),
            ...(o.backfill && { backfill: o.backfill }),
          }),
        ),
    },
  );

/**
 * The shape names of a history's overlap spec: its policy's, its backfill's, and
 * `overlap-backfill-under-holder` when a backfill run found another run holding the lease (its record
 * names the holder, it was buffered, or it displaced the holder).
 */
export function overlapShapesOf(
  o: OverlapSpec | undefined,
  records: readonly Record<string, unknown>[] = [],
): OverlapShape[] {
  if (!o) return [];
  const out: OverlapShape[] = [`overlap-${o.policy}` as OverlapShape];
  if (o.backfill) out.push(o.backfill.count === 1 ? 'overlap-trigger' : 'overlap-backfill');
  if (o.backfill?.duplicateAfterMs !== undefined) out.push('overlap-backfill-duplicate');
  const underHolder = records.some(
    (r) =>
      r.requestedBy === BACKFILL_BY &&
      (r.holderSeen !== undefined ||
        r.outcome === 'buffered' ||
        (r.details as Record<string, unknown> | undefined)?.replaced !== undefined),
  );
  if (underHolder) out.push('overlap-backfill-under-holder');
  return out;
}

/** The settle job's `overlap` option under `o`. */
export function overlapOption(o: OverlapSpec): OverlapOption {
  if (o.policy === 'buffer-all') return { policy: 'buffer-all', maxBuffered: o.maxBuffered ?? 1 };
  if (o.policy === 'replace' && o.replaceAfterSeconds !== undefined)
    return { policy: 'replace', replaceAfterSeconds: o.replaceAfterSeconds };
  // The bound stated as two periods of the schedule: defineJob measures periods from today, and this
  // schedule's slots (one day in the history's past) have none after today (its default would be a day,
  // longer than any history).
  if (o.policy === 'after-previous')
    return { policy: 'after-previous', waitingProblemAfterSeconds: (2 * SLOT_MS) / 1000 };
  return o.policy;
}

/**
 * The settle job's schedule under an overlap shape: every 5 minutes in the history's first two UTC hours
 * only (from `startMs`, aligned to 5 minutes), so that catch-up `all` has a finite set of slots to run
 * and the history ends.
 */
export function overlapSchedule(startMs: number): string {
  const d = new Date(startMs);
  const h = d.getUTCHours();
  const hours = h === 23 ? '23' : `${h}-${h + 1}`;
  return `cron(0/${SLOT_MINUTES} ${hours} ${d.getUTCDate()} ${d.getUTCMonth() + 1} ? ${d.getUTCFullYear()})`;
}

/**
 * What the settle job's definition gets under `o`: the policy, the long deadline, the catch-up and the
 * bounded schedule ({@link overlapSchedule}); without `enforced`, no policy (a broken variant).
 */
export function overlapJobFields(o: OverlapSpec, startMs: number, enforced = true) {
  return {
    schedule: overlapSchedule(startMs),
    ...(enforced && { overlap: overlapOption(o) }),
    timeoutSeconds: OVERLAP_TIMEOUT_SECONDS,
    catchUp: {
      mode: o.catchUp,
      windowHours: 24,
      maxSlotsPerSweep: 50,
      ...(o.since && { sinceMs: startMs }),
    },
  };
}

/**
 * Make the stuck holder: the first settle run that reaches `before-write` on the chosen worker waits
 * `ms` on that worker's clock (its lease keeper renews meanwhile), then goes on.
 */
export function addStuckHolder(o: OverlapSpec | undefined, workers: readonly Worker[]): void {
  if (!o?.stuck || workers.length === 0) return;
  const w = workers[o.stuck.worker % workers.length] as Worker;
  const ms = o.stuck.ms;
  w.pauses.add({
    name: `settle holder stuck ${ms} ms before its first write`,
    at: 'before-write',
    when: (info) => info.job === 'ex-settle',
    action: () => w.clock.sleep(ms),
  });
}
