/**
 * What `cronfence check`, `cronfence jobs`, the operator API's describe and the CDK construct say about
 * a job's overlap policy: a short label (`buffer-all(4)`, `replace(>300s)`), one line of what the
 * policy does to an occurrence that meets a holder, and the warnings about risky combinations (a
 * policy with a catch-up, a timeout or a provider that undo what it promises). Pure.
 */
import type { JobDefinition } from './job-definition.js';
import { type Overlap, OverlapPolicy, overlapOf } from './overlap.js';
import type { ScheduleExpression } from './schedule/expression.js';
import { schedulePeriodMs } from './schedule/validate.js';

/** A warning about a job's overlap policy, with a stable code (`overlap-*`). */
export interface OverlapFinding {
  readonly code: string;
  readonly message: string;
}

/** What a check knows about an effect provider the job's module exports (its name and reconciliation means). */
export interface ProviderTraits {
  readonly name: string;
  readonly idempotencyKeys: boolean;
  /** True when the provider offers a lookup. */
  readonly lookup: boolean;
}

/** What {@link overlapFindings} needs besides the policy. */
export interface OverlapCheckContext {
  /** The schedule's longest period, ms (`schedulePeriodMs`); `undefined` for `at()`. */
  readonly periodMs?: number;
  /** The effect providers the job's module exports (unknown: no provider warning). @default [] */
  readonly providers?: readonly ProviderTraits[];
}

/**
 * The policy as one token: `skip`, `buffer-one`, `buffer-all(4)`, `replace`, `replace(>300s)`,
 * `after-previous`, `after-previous(problem >600s)`.
 * @example overlapLabel(overlapOf({ overlap: { policy: 'buffer-all', maxBuffered: 4 } })); // 'buffer-all(4)'
 */
export function overlapLabel(o: Overlap): string {
  switch (o.policy) {
    case OverlapPolicy.BufferAll:
      return `buffer-all(${o.maxBuffered})`;
    case OverlapPolicy.Replace:
      return o.replaceAfterSeconds > 0 ? `replace(>${o.replaceAfterSeconds}s)` : 'replace';
    case OverlapPolicy.AfterPrevious:
      return `after-previous(problem >${o.waitingProblemAfterSeconds}s)`;
    default:
      return o.policy;
  }
}

/**
 * A validated job's overlap policy with its defaults (the schedule's period as of `nowMs`).
 * @param nowMs epoch ms the schedule's period is measured from.
 * @throws InvalidJobDefinitionError for an `overlap` option `defineJob` would have refused.
 */
export function overlapOfJob(
  definition: Pick<JobDefinition, 'timeoutSeconds'> & { readonly overlap?: unknown },
  expression: ScheduleExpression,
  nowMs: number,
): Overlap {
  const periodMs = schedulePeriodMs(expression, nowMs);
  return overlapOf(definition, {
    timeoutSeconds: definition.timeoutSeconds,
    ...(periodMs !== undefined && { periodMs }),
  });
}

const catchUpModeOf = (d: Pick<JobDefinition, 'catchUp'>) => d.catchUp?.mode ?? 'none';

/**
 * One line: what the policy does to an occurrence that arrives while another occurrence holds the lease.
 * @example overlapConsequence(overlapOf({ overlap: 'buffer-one' }), definition);
 */
export function overlapConsequence(o: Overlap, d: Pick<JobDefinition, 'catchUp'>): string {
  const label = overlapLabel(o);
  switch (o.policy) {
    case OverlapPolicy.Skip:
      return catchUpModeOf(d) === 'none'
        ? `${label}: an occurrence arriving while another holds the lease is recorded skipped / overlap and never runs (catchUp.mode = none)`
        : `${label}: an occurrence arriving while another holds the lease is recorded skipped / overlap; the sweeper's catch-up (mode ${catchUpModeOf(d)}) runs it later`;
    case OverlapPolicy.BufferOne:
      return `${label}: an occurrence arriving while another holds the lease is recorded buffered and runs when the holder releases; a second arrival meanwhile is skipped / buffer-full (a problem: SlotNotRun alarm)`;
    case OverlapPolicy.BufferAll:
      return `${label}: up to ${o.maxBuffered} occurrences arriving while another holds the lease are recorded buffered and run one after another in slot order; one more is skipped / buffer-full (a problem: SlotNotRun alarm)`;
    case OverlapPolicy.Replace:
      return `${label}: the newest occurrence takes the lease from ${o.replaceAfterSeconds > 0 ? `a holder that acquired it more than ${o.replaceAfterSeconds} s ago` : 'any live holder'} by raising the fence; the displaced run is recorded stale / replaced (RunStale alarm), its later writes and sends are refused (each fencedPut and insertOnce checks the lease in the same transaction: 4 WCU for a row under 1 KB instead of 1), and an effect it left sending is reconciled by lookup or idempotency key, else needs review${o.replaceAfterSeconds > 0 ? '; an arrival meeting a younger holder is skipped / overlap' : ''}`;
    case OverlapPolicy.AfterPrevious:
      return `${label}: an occurrence runs only after the previous one succeeded; until then it is recorded skipped / waiting-for-previous and the sweeper starts it once its predecessor succeeds; waiting more than ${o.waitingProblemAfterSeconds} s is a problem (skipped / waiting-too-long: SlotNotRun alarm); ${chainStart(d)}`;
  }
}

/** Where an `after-previous` job's chain starts (lib/core/overlap-previous.ts `predecessorOf`). */
function chainStart(d: Pick<JobDefinition, 'catchUp'>): string {
  return d.catchUp?.sinceMs !== undefined
    ? `the chain starts at the first slot at or after catchUp.since (${new Date(d.catchUp.sinceMs).toISOString()})`
    : 'the chain starts at the first occurrence that succeeds: an earlier one never runs after it (set catchUp.since to start it at a known slot)';
}

const minutes = (ms: number) =>
  ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.round(ms / 60_000)} min`;

/**
 * The warnings about risky combinations of the policy with the job's catch-up, timeout, period and the
 * module's providers: `overlap-replace-provider` (replace with a provider that has neither
 * idempotency keys nor a lookup), `overlap-replace-period` (replace at any age with a timeout above
 * the period: a run longer than the period never finishes), `overlap-buffer-backlog` (buffer-all with
 * more buffered runs than a stuck holder can need and a backlog longer than two periods),
 * `overlap-after-previous-catch-up` (after-previous without catch-up `all`: a failed occurrence is
 * never re-run, every later one waits behind it).
 */
export function overlapFindings(
  o: Overlap,
  d: Pick<JobDefinition, 'catchUp' | 'timeoutSeconds'>,
  context: OverlapCheckContext = {},
): OverlapFinding[] {
  const out: OverlapFinding[] = [];
  const label = overlapLabel(o);
  const timeoutMs = d.timeoutSeconds * 1000;
  const period = context.periodMs;
  if (o.policy === OverlapPolicy.Replace) {
    for (const p of context.providers ?? [])
      if (!p.idempotencyKeys && !p.lookup)
        out.push({
          code: 'overlap-replace-provider',
          message:
            `overlap = ${label} with provider ${p.name}, which has neither idempotency keys nor a lookup: an effect a ` +
            'displaced run left sending cannot be reconciled and goes to needs-review (an operator decides, ' +
            'nothing is resent); give the provider idempotency keys or a lookup, or use buffer-one',
        });
    if (o.replaceAfterSeconds === 0 && period !== undefined && timeoutMs > period)
      out.push({
        code: 'overlap-replace-period',
        message:
          `overlap = ${label} with timeoutSeconds = ${d.timeoutSeconds} above the ${minutes(period)} period: a run ` +
          'still going when the next occurrence arrives is displaced (stale / replaced), so a run longer than the ' +
          'period never succeeds; set overlap.replaceAfterSeconds to the longest run you accept',
      });
  }
  if (o.policy === OverlapPolicy.BufferAll && period !== undefined) {
    const stuck = Math.ceil(timeoutMs / period);
    const backlogMs = o.maxBuffered * timeoutMs;
    if (o.maxBuffered > stuck && backlogMs > 2 * period)
      out.push({
        code: 'overlap-buffer-backlog',
        message:
          `overlap = ${label} with timeoutSeconds = ${d.timeoutSeconds} and a ${minutes(period)} period: the last ` +
          `buffered occurrence may start ${minutes(backlogMs)} after its slot (${o.maxBuffered} × ${d.timeoutSeconds} s); ` +
          `a holder stuck for its whole timeout meets ${stuck} arrival${stuck === 1 ? '' : 's'}, so a larger buffer only ` +
          'keeps every run behind schedule while runs overrun the period; lower maxBuffered or use buffer-one',
      });
  }
  if (o.policy === OverlapPolicy.AfterPrevious && catchUpModeOf(d) !== 'all')
    out.push({
      code: 'overlap-after-previous-catch-up',
      message:
        `overlap = ${label} with catchUp.mode = ${catchUpModeOf(d)}: a failed or missed occurrence is never re-run, ` +
        'so every later occurrence waits behind it (skipped / waiting-for-previous, then waiting-too-long) until ' +
        'an operator triggers it; use catchUp.mode = all',
    });
  return out;
}
