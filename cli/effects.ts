/**
 * `cronfence effects --status needs-review` (effects whose outcome is unknown, from the sparse
 * `problems` index) and `cronfence effects resolve <key> --as succeeded|failed --note TEXT`
 * (the recorded, conditional manual reconciliation).
 */
import type { Command } from 'commander';
import { EffectStatus } from '../lib/core/effects.js';
import { type EffectResolution, NOT_EXECUTED } from '../lib/core/ports.js';
import { DynamoEffectStore } from '../lib/store/effect-store.js';
import { UNSETTLED_PROBLEM } from '../lib/store/protocol/effect-operations.js';
import { choiceArg, intArg, jobNameArg, sinceArg } from './args.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import { action, cell, ExitCode, iso, operatorValue, out, table, toJson, usage } from './output.js';
import { type Item, publicView, queryProblems } from './run-queries.js';

/** Problems the `problems` index holds for effects: awaiting review, and not terminal (`sending`/`pending`). */
const NEEDS_REVIEW = EffectStatus.NeedsReview;
const PROBLEMS = [NEEDS_REVIEW, UNSETTLED_PROBLEM, 'all'] as const;

/**
 * An effect not terminal for longer than this is a problem (docs/operations.md): far above any
 * provider timeout or settle time, below the sweeper's alarm period. ms.
 */
export const UNSETTLED_AFTER_MS = 15 * 60_000;

/** What an operator may resolve an effect to. */
const RESOLUTIONS = [EffectStatus.Succeeded, EffectStatus.Failed, NOT_EXECUTED] as const;

interface ListFlags extends ConnectionFlags {
  readonly status: string;
  readonly since?: number;
  readonly job?: string;
  readonly limit: number;
}

interface ResolveFlags extends ConnectionFlags {
  readonly job: string;
  readonly as: EffectResolution['as'];
  readonly note: string;
  readonly by?: string;
}

/** The idempotency key of an effect item (its `key`, else from `EFFECT#<job>#<key>`). */
function effectKey(item: Item): string {
  return typeof item.key === 'string' ? item.key : String(item.pk ?? '').replace(/^EFFECT#[^#]*#/, '');
}

/** The job of an effect item (its `job`, else from the lease key `JOB#<job>[#<shard>]`). */
function effectJob(item: Item): string {
  return cell(item.job ?? (typeof item.leaseKey === 'string' ? item.leaseKey.split('#')[1] : undefined));
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
      `${NEEDS_REVIEW}, ${UNSETTLED_PROBLEM} (sending or pending for over ${UNSETTLED_AFTER_MS / 60_000} min) or all`,
      choiceArg('--status', PROBLEMS),
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
    action(async (flags: ListFlags) => {
      const conn = await connect(flags);
      try {
        const nowMs = Date.now();
        const found = await queryProblems(conn.doc, conn.tableName, {
          problems: flags.status === 'all' ? [NEEDS_REVIEW, UNSETTLED_PROBLEM] : [flags.status],
          sinceMs: flags.since ?? nowMs - 30 * 86_400_000,
          ...(flags.job !== undefined && { job: flags.job }),
          limit: flags.limit,
        });
        // `unsettled` marks every effect while it is not terminal; a problem only past the bound.
        const items = found.filter(
          (i) => i.problem !== UNSETTLED_PROBLEM || Number(i.problemAtMs) <= nowMs - UNSETTLED_AFTER_MS,
        );
        if (flags.json) out(toJson(items.map((i) => ({ key: effectKey(i), ...publicView(i) }))));
        else if (items.length === 0)
          out(
            `No effects ${flags.status === 'all' ? 'in needs-review or unsettled' : `in ${flags.status}`}.`,
          );
        else {
          out(
            table(items, [
              { header: 'KEY', cell: effectKey },
              { header: 'JOB', cell: effectJob },
              { header: 'STATUS', cell: (i) => cell(i.status) },
              { header: 'FENCE', cell: (i) => cell(i.fence) },
              { header: 'ATTEMPTS', cell: (i) => cell(i.attempts) },
              { header: 'FLAGGED', cell: (i) => iso(i.problemAtMs) },
              { header: 'RUN ID', cell: (i) => cell(i.runId) },
              { header: 'WHY', cell: (i) => cell(i.reviewReason) },
            ]),
          );
          out(
            `Resolve one after checking the provider: cronfence effects resolve <KEY> --job <JOB> --as succeeded|failed|not-executed --note "..."`,
          );
        }
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
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
    );
  withConnectionOptions(resolve).action(
    action(async (key: string, flags: ResolveFlags) => {
      const note = flags.note.trim();
      if (note.length === 0 || note.length > 1024)
        throw usage('--note', flags.note, 'must be 1 to 1024 characters');
      const by = operatorValue('--by', flags.by, 128);
      const conn = await connect(flags);
      try {
        const item = await new DynamoEffectStore(conn.doc, conn.tableName, flags.job).resolve({
          key,
          as: flags.as,
          note,
          by,
          nowMs: Date.now(),
        });
        if (flags.json) out(toJson({ key, ...publicView(item as unknown as Item) }));
        else
          out(
            `Effect ${key}: resolved ${item.status === 'pending' ? 'not-executed (pending: the next run sends it)' : String(item.status)} by ${String(item.reviewedBy)} at ${iso(item.reviewedAtMs)} ("${note}")`,
          );
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );
}
