/**
 * `cronfence effects --status needs-review` (effects whose outcome is unknown, from the sparse
 * `problems` index: `Operator.effects`, `JobHandle.effects`) and `cronfence effects resolve <key> --as succeeded|failed|not-executed --note TEXT
 * [--expect VERSION]` (the recorded manual reconciliation, conditioned on the state the operator was
 * shown: the list prints each effect's VERSION, resolve takes it back, refuses a changed record and a
 * `sending` one whose holder's lease is live: `JobHandle.resolveEffect`).
 */
import type { Command } from 'commander';
import { EffectStatus } from '../lib/core/effects.js';
import {
  EFFECT_LISTINGS,
  type EffectListing,
  type EffectView,
  effectJob,
  RESOLUTIONS,
  type ResolvedEffectView,
  type ResolveOptions,
  UNSETTLED_AFTER_MS,
  UNSETTLED_PROBLEM,
} from '../operate/effects.js';
import { iso } from '../operate/input.js';
import { choiceArg, intArg, jobNameArg, sinceArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions } from './command.js';
import { cell, table } from './output.js';

const NEEDS_REVIEW = EffectStatus.NeedsReview;

interface ListFlags extends OperatorFlags {
  readonly status: EffectListing;
  readonly since?: number;
  readonly job?: string;
  readonly limit: number;
}

interface ResolveFlags extends OperatorFlags {
  readonly job: string;
  readonly as: ResolveOptions['as'];
  readonly note: string;
  readonly by?: string;
  readonly expect?: string;
}

/**
 * How long an effect has been flagged, e.g. `3m`, `2h05m`; `stuck` past the alarm's period for one
 * that is not terminal (every listed effect but a needs-review one).
 */
function ageOf(item: EffectView, nowMs: number): string {
  const ms = nowMs - Number(item.problemAtMs);
  if (!Number.isFinite(ms)) return '-';
  const min = Math.max(0, Math.floor(ms / 60_000));
  const text = min < 60 ? `${min}m` : `${Math.floor(min / 60)}h${String(min % 60).padStart(2, '0')}m`;
  return item.status !== NEEDS_REVIEW && ms >= UNSETTLED_AFTER_MS ? `${text} stuck` : text;
}

/** The `lastError` of an effect as one cell: `Name: message` (cut to 60 characters). */
function lastErrorOf(item: EffectView): string {
  const e = item.lastError as { name?: unknown; message?: unknown } | undefined;
  if (!e) return '-';
  const text = `${String(e.name)}: ${String(e.message)}`;
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** A listing as `cronfence effects` prints it: one row per effect, then how to resolve one. */
export function effectsText(items: readonly EffectView[], status: EffectListing, nowMs: number): string {
  if (items.length === 0)
    return `No effects ${status === 'all' ? 'in needs-review or unsettled' : `in ${status}`}.`;
  return `${table(items, [
    { header: 'KEY', cell: (i) => i.key },
    { header: 'JOB', cell: effectJob },
    { header: 'STATUS', cell: (i) => cell(i.status) },
    { header: 'FENCE', cell: (i) => cell(i.fence) },
    { header: 'ATTEMPTS', cell: (i) => cell(i.attempts) },
    { header: 'FLAGGED', cell: (i) => iso(i.problemAtMs) },
    { header: 'AGE', cell: (i) => ageOf(i, nowMs) },
    { header: 'RUN ID', cell: (i) => cell(i.runId) },
    { header: 'VERSION', cell: (i) => i.version },
    { header: 'LAST ERROR', cell: lastErrorOf },
    { header: 'WHY', cell: (i) => cell(i.reviewReason) },
  ])}\nResolve one after checking the provider: cronfence effects resolve <KEY> --job <JOB> --expect <VERSION> --as succeeded|failed|not-executed --note "..."`;
}

/** A resolved effect as `cronfence effects resolve` prints it. */
export function resolvedText(item: ResolvedEffectView): string {
  return `Effect ${item.key}: resolved ${item.status === 'pending' ? 'not-executed (pending: the next run sends it)' : String(item.status)} by ${String(item.reviewedBy)} at ${iso(item.reviewedAtMs)} ("${String(item.reviewNote)}"); version ${String(item.previousVersion)} -> ${item.version}`;
}

/**
 * Register `effects` on the program: `effects [list]` (the default subcommand) and `effects resolve`.
 * The parent has no options of its own, so every flag reaches the subcommand. Both read and write the
 * table only: no job code is imported (`--job` is a job name, checked for its form).
 */
export function registerEffects(program: Command): void {
  const effects = program
    .command('effects')
    .description('List effects awaiting manual review (`effects [list]`); `effects resolve` settles one');
  const list = effects
    .command('list', { isDefault: true })
    .description('List effects in needs-review, newest first (sparse index `problems`)')
    .option(
      '--status <status>',
      `${NEEDS_REVIEW}, ${UNSETTLED_PROBLEM} (sending or pending for over ${UNSETTLED_AFTER_MS / 60_000} min, the EffectUnsettled alarm's period) or all (every needs-review and every not-terminal effect, whatever its age)`,
      choiceArg('--status', EFFECT_LISTINGS),
      'all',
    )
    .option(
      '--since <age|date>',
      'only effects flagged since: 30m, 24h, 7d, a UTC date or an ISO instant (default: 30d)',
      sinceArg('--since'),
    )
    .option('--job <name>', "only this job's effects", jobNameArg('--job'))
    .option('--limit <n>', 'at most this many', intArg('--limit', 1, 10_000), 50);
  withConnectionOptions(list).action(
    operatorAction(undefined, async (ops, flags: ListFlags) => {
      const filters = {
        status: flags.status,
        ...(flags.since !== undefined && { sinceMs: flags.since }),
        limit: flags.limit,
      };
      const items = await (flags.job !== undefined
        ? ops.job(flags.job).effects(filters)
        : ops.effects(filters));
      const nowMs = ops.now();
      return { json: items, text: () => effectsText(items, flags.status, nowMs) };
    }),
  );

  const resolve = effects
    .command('resolve')
    .argument('<key>', "the effect's idempotency key")
    .description(
      'Settle an effect that is not terminal (sending, pending) or in needs-review: succeeded, failed, or not-executed (back to pending: the next run of the slot sends it under the same key). Conditional write; records who, when, why',
    )
    .requiredOption(
      '--job <name>',
      'the job the effect belongs to (the JOB column of `effects`)',
      jobNameArg('--job'),
    )
    .requiredOption('--as <status>', 'succeeded, failed or not-executed', choiceArg('--as', RESOLUTIONS))
    .requiredOption('--note <text>', 'what the provider said (recorded on the effect)')
    .option(
      '--by <name>',
      'who resolves it, 1-128 characters (default: CRONFENCE_OPERATOR, then the OS user)',
    )
    .option(
      '--expect <version>',
      'the VERSION `cronfence effects` showed: refused (nothing changed) if the effect changed since (default: the version resolve reads and prints)',
    );
  withConnectionOptions(resolve).action(
    operatorAction(undefined, async (ops, flags: ResolveFlags, key: string) => {
      const item = await ops.job(flags.job).resolveEffect(key, {
        as: flags.as,
        note: flags.note,
        ...(flags.by !== undefined && { by: flags.by }),
        ...(flags.expect !== undefined && { expect: flags.expect }),
      });
      return { json: item, text: () => resolvedText(item) };
    }),
  );
}
