/**
 * Overlap policies: what an occurrence does when it arrives while another occurrence of the same job
 * holds the lease (docs/design.md "Overlap policies"). The job option `overlap` names one; this file
 * validates and normalizes it. Pure: the protocol that enforces each policy at the fence lives in
 * lib/store/protocol/ and lib/runtime/.
 */
import { InvalidJobDefinitionError } from './input-errors.js';
import { findUnknownOption, unknownOptionMessage } from './unknown-options.js';

/** The overlap policies a job can choose. */
export const OverlapPolicy = {
  /** The arrival is recorded `skipped / overlap` and left to the catch-up rule. The default. */
  Skip: 'skip',
  /** At most one arrival waits on the lease item (`buffered`) and runs when the holder releases. */
  BufferOne: 'buffer-one',
  /** Up to `maxBuffered` arrivals wait on the lease item and run one after another in slot order. */
  BufferAll: 'buffer-all',
  /** The newest arrival takes the lease from a live holder by raising the fence. */
  Replace: 'replace',
  /** Occurrence N runs only once occurrence N−1 of the same job (and shard) succeeded. */
  AfterPrevious: 'after-previous',
} as const;
/** Union of {@link OverlapPolicy} values. */
export type OverlapPolicyName = (typeof OverlapPolicy)[keyof typeof OverlapPolicy];

/** The policy names, in the order `cronfence check` lists them. */
export const OVERLAP_POLICIES: readonly OverlapPolicyName[] = Object.values(OverlapPolicy);

/** The long form of the `overlap` job option. */
export interface OverlapOptions {
  readonly policy: OverlapPolicyName;
  /**
   * `buffer-*` only: how many occurrences may wait on the lease item at once (1 to {@link MAX_BUFFERED}).
   * Required with `buffer-all`; `buffer-one` is 1.
   */
  readonly maxBuffered?: number;
  /**
   * `replace` only: replace a holder only when it acquired the lease more than this many seconds ago;
   * a younger holder makes the arrival `skipped / overlap`. Must be below the job's `timeoutSeconds`.
   * @default 0 (always replace)
   */
  readonly replaceAfterSeconds?: number;
  /**
   * `after-previous` only: a slot waiting for its predecessor longer than this many seconds is a
   * counted problem (`skipped / waiting-too-long`, the `SlotNotRun` alarm).
   * @default two schedule periods, or {@link DEFAULT_WAITING_PROBLEM_AFTER_SECONDS} without a period
   */
  readonly waitingProblemAfterSeconds?: number;
}

/** The `overlap` job option: a policy name, or {@link OverlapOptions}. @default 'skip' */
export type OverlapOption = OverlapPolicyName | OverlapOptions;

/** A validated overlap policy with every default filled in (what {@link overlapOf} returns). */
export interface Overlap {
  readonly policy: OverlapPolicyName;
  /** Occurrences that may wait on the lease item: 1 for `buffer-one`, the option for `buffer-all`, else 0. */
  readonly maxBuffered: number;
  /** Seconds a holder must have held before `replace` displaces it; 0 otherwise. */
  readonly replaceAfterSeconds: number;
  /** Seconds after its slot instant a waiting `after-previous` slot becomes a counted problem. */
  readonly waitingProblemAfterSeconds: number;
}

/**
 * Largest `maxBuffered`. The buffered slots live on the lease item beside the done set (at most 256
 * bytes); 24 slot ids of at most 25 bytes each keep the item under 1 KB for the longest job name, so
 * every claim and release still costs 1 write unit.
 */
export const MAX_BUFFERED = 24;

/** `waitingProblemAfterSeconds` when the schedule has no period (an `at()` job): one day. */
export const DEFAULT_WAITING_PROBLEM_AFTER_SECONDS = 86_400;

const OPTION_NAMES = ['policy', 'maxBuffered', 'replaceAfterSeconds', 'waitingProblemAfterSeconds'];
/** A stand-in object schema naming the long form's fields, for the unknown-option check. */
const OPTION_SHAPE = { type: 'object', entries: Object.fromEntries(OPTION_NAMES.map((n) => [n, {}])) };

/** The policy `skip` (a job without the option). */
export const SKIP_OVERLAP: Overlap = {
  policy: OverlapPolicy.Skip,
  maxBuffered: 0,
  replaceAfterSeconds: 0,
  waitingProblemAfterSeconds: DEFAULT_WAITING_PROBLEM_AFTER_SECONDS,
};

/** What {@link overlapOf} needs of a job besides its `overlap` option. */
export interface OverlapContext {
  /** The job's deadline, seconds: `replaceAfterSeconds` must be below it (no live holder is older). */
  readonly timeoutSeconds?: number;
  /** The schedule's longest period, ms (`schedulePeriodMs`); `undefined` for `at()`. */
  readonly periodMs?: number;
}

const bad = (field: string, value: unknown, problem: string) =>
  new InvalidJobDefinitionError(field, value, problem);

function isInteger(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

function isSeconds(n: unknown, min: number): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n >= min;
}

function policyOf(value: unknown, field: string): OverlapPolicyName {
  if (typeof value === 'string' && (OVERLAP_POLICIES as readonly string[]).includes(value))
    return value as OverlapPolicyName;
  throw bad(field, value, `must be one of ${OVERLAP_POLICIES.join(', ')}`);
}

/** Refuse an option the chosen policy does not read, naming the policy that reads it. */
function onlyWith(o: Record<string, unknown>, key: string, policies: readonly string[], policy: string) {
  if (o[key] !== undefined && !policies.includes(policy))
    throw bad(
      `overlap.${key}`,
      o[key],
      `applies to policy ${policies.join(' or ')} only; policy is ${policy}`,
    );
}

/**
 * The normalized, validated overlap policy of a job (or of its raw `defineJob` options): `skip` when
 * the option is absent. `overlapOf({ overlap: storedOverlap(o) })` gives `o` again.
 * @param definition an object with an optional `overlap` (a policy name or {@link OverlapOptions}).
 * @param context the job's `timeoutSeconds` and schedule period (for the defaults and bounds).
 * @throws InvalidJobDefinitionError naming `overlap` or `overlap.<field>` and its value: an unknown
 *   policy or option, an option the policy does not read, `buffer-all` without an integer
 *   `maxBuffered` from 1 to {@link MAX_BUFFERED}, `buffer-one` with `maxBuffered` other than 1,
 *   `replaceAfterSeconds` negative or not below `timeoutSeconds`, `waitingProblemAfterSeconds` ≤ 0.
 * @example overlapOf({ overlap: 'buffer-one' }).maxBuffered; // 1
 * @example overlapOf({ overlap: { policy: 'after-previous' } }, { periodMs: 3_600_000 }).waitingProblemAfterSeconds; // 7200
 */
export function overlapOf(definition: { readonly overlap?: unknown }, context: OverlapContext = {}): Overlap {
  const raw = definition.overlap;
  if (raw === undefined) return SKIP_OVERLAP;
  if (typeof raw === 'string') return normalize({ policy: policyOf(raw, 'overlap') }, context);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('overlap', raw, `must be a policy name (${OVERLAP_POLICIES.join(', ')}) or { policy, ... }`);
  const unknown = findUnknownOption(OPTION_SHAPE, raw);
  if (unknown !== undefined)
    throw bad(
      `overlap.${unknown.path.join('.')}`,
      (raw as Record<string, unknown>)[unknown.path[0] ?? ''],
      unknownOptionMessage({ ...unknown, path: ['overlap', ...unknown.path] }),
    );
  const o = raw as Record<string, unknown>;
  return normalize({ ...o, policy: policyOf(o.policy, 'overlap.policy') }, context);
}

function normalize(
  o: Record<string, unknown> & { policy: OverlapPolicyName },
  context: OverlapContext,
): Overlap {
  const { policy } = o;
  onlyWith(o, 'maxBuffered', [OverlapPolicy.BufferOne, OverlapPolicy.BufferAll], policy);
  onlyWith(o, 'replaceAfterSeconds', [OverlapPolicy.Replace], policy);
  onlyWith(o, 'waitingProblemAfterSeconds', [OverlapPolicy.AfterPrevious], policy);
  let maxBuffered = 0;
  if (policy === OverlapPolicy.BufferOne) {
    if (o.maxBuffered !== undefined && o.maxBuffered !== 1)
      throw bad('overlap.maxBuffered', o.maxBuffered, 'buffer-one buffers exactly 1; use policy buffer-all');
    maxBuffered = 1;
  }
  if (policy === OverlapPolicy.BufferAll) {
    if (!isInteger(o.maxBuffered, 1, MAX_BUFFERED))
      throw bad(
        'overlap.maxBuffered',
        o.maxBuffered,
        `buffer-all requires an integer from 1 to ${MAX_BUFFERED} (the buffered slots live on the lease item)`,
      );
    maxBuffered = o.maxBuffered;
  }
  let replaceAfterSeconds = 0;
  if (o.replaceAfterSeconds !== undefined) {
    const timeout = context.timeoutSeconds ?? Number.POSITIVE_INFINITY;
    if (!isSeconds(o.replaceAfterSeconds, 0) || o.replaceAfterSeconds >= timeout)
      throw bad(
        'overlap.replaceAfterSeconds',
        o.replaceAfterSeconds,
        `must be a number of seconds ≥ 0 and < timeoutSeconds (${timeout}): no live holder is older than the job's deadline`,
      );
    replaceAfterSeconds = o.replaceAfterSeconds;
  }
  const twoPeriods =
    context.periodMs === undefined ? DEFAULT_WAITING_PROBLEM_AFTER_SECONDS : (2 * context.periodMs) / 1000;
  let waitingProblemAfterSeconds = twoPeriods;
  if (o.waitingProblemAfterSeconds !== undefined) {
    if (!isSeconds(o.waitingProblemAfterSeconds, 0) || o.waitingProblemAfterSeconds === 0)
      throw bad(
        'overlap.waitingProblemAfterSeconds',
        o.waitingProblemAfterSeconds,
        'must be a number of seconds > 0',
      );
    waitingProblemAfterSeconds = o.waitingProblemAfterSeconds;
  }
  return { policy, maxBuffered, replaceAfterSeconds, waitingProblemAfterSeconds };
}

/**
 * The form a job definition stores: `undefined` for `skip` (a definition without the
 * option is unchanged), else the policy and the fields it reads, defaults filled in.
 * @example storedOverlap(overlapOf({ overlap: 'buffer-one' })); // { policy: 'buffer-one', maxBuffered: 1 }
 */
export function storedOverlap(o: Overlap): OverlapOptions | undefined {
  switch (o.policy) {
    case OverlapPolicy.Skip:
      return undefined;
    case OverlapPolicy.BufferOne:
    case OverlapPolicy.BufferAll:
      return { policy: o.policy, maxBuffered: o.maxBuffered };
    case OverlapPolicy.Replace:
      return { policy: o.policy, replaceAfterSeconds: o.replaceAfterSeconds };
    case OverlapPolicy.AfterPrevious:
      return { policy: o.policy, waitingProblemAfterSeconds: o.waitingProblemAfterSeconds };
  }
}
