/**
 * `cronfence effects --status needs-review` (effects whose outcome is unknown, from the sparse
 * `problems` index) and `cronfence effects resolve <key> --as succeeded|failed|not-executed --note TEXT
 * [--expect VERSION]` (the recorded manual reconciliation, conditioned on the state the operator was
 * shown: the list prints each effect's VERSION, resolve takes it back, refuses a changed record and a
 * `sending` one whose holder's lease is live).
 */
import type { Command } from 'commander';
import {
  EFFECT_UNSETTLED_AFTER_MS,
  type EffectItem,
  EffectStatus,
  effectVersion,
} from '../lib/core/effects.js';
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

/** An effect not terminal for longer than this is stuck: the `EffectUnsettled` alarm's period. ms. */
export const UNSETTLED_AFTER_MS = EFFECT_UNSETTLED_AFTER_MS;

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
  readonly expect?: string;
}

/** The idempotency key of an effect item (its `key`, else from `EFFECT#<job>#<key>`). */
function effectKey(item: Item): string {
  return typeof item.key === 'string' ? item.key : String(item.pk ?? '').replace(/^EFFECT#[^#]*#/, '');
}

/** The job of an effect item (its `job`, else from the lease key `JOB#<job>[#<shard>]`). */
function effectJob(item: Item): string {
  return cell(item.job ?? (typeof item.leaseKey === 'string' ? item.leaseKey.split('#')[1] : undefined));
}

/** How long an effect has been flagged, e.g. `3m`, `2h05m`; `stuck` past the alarm's period. */
function ageOf(item: Item, nowMs: number): string {
  const ms = nowMs - Number(item.problemAtMs);
  if (!Number.isFinite(ms)) return '-';
  const min = Math.max(0, Math.floor(ms / 60_000));
  const text = min < 60 ? `${min}m` : `${Math.floor(min / 60)}h${String(min % 60).padStart(2, '0')}m`;
  return item.problem === UNSETTLED_PROBLEM && ms >= UNSETTLED_AFTER_MS ? `${text} stuck` : text;
}

/** The `lastError` of an effect as one cell: `Name: message` (cut to 60 characters). */
function lastErrorOf(item: Item): string {
  const e = item.lastError as { name?: unknown; message?: unknown } | undefined;
  if (!e) return '-';
  const text = `${String(e.name)}: ${String(e.message)}`;
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
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
        // `unsettled` marks every effect while it is not terminal; `--status unsettled` lists the stuck
        // ones (past the alarm's period), `all` lists every one, whatever its age.
        const stuck = (i: Item) => Number(i.problemAtMs) <= nowMs - UNSETTLED_AFTER_MS;
        const items = found.filter(
          (i) => flags.status !== UNSETTLED_PROBLEM || i.problem !== UNSETTLED_PROBLEM || stuck(i),
        );
        // The version an operator hands back (`--expect`): a sending effect under a live lease is `:in-flight`.
        const versions = new Map<Item, string>();
        for (const i of items) {
          const store = new DynamoEffectStore(conn.doc, conn.tableName, effectJob(i));
          versions.set(i, (await store.shown(i as unknown as EffectItem, nowMs)).version);
        }
        const versionOf = (i: Item) => versions.get(i) ?? effectVersion(i);
        if (flags.json)
          out(toJson(items.map((i) => ({ key: effectKey(i), version: versionOf(i), ...publicView(i) }))));
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
              { header: 'AGE', cell: (i) => ageOf(i, nowMs) },
              { header: 'RUN ID', cell: (i) => cell(i.runId) },
              { header: 'VERSION', cell: versionOf },
              { header: 'LAST ERROR', cell: lastErrorOf },
              { header: 'WHY', cell: (i) => cell(i.reviewReason) },
            ]),
          );
          out(
            `Resolve one after checking the provider: cronfence effects resolve <KEY> --job <JOB> --expect <VERSION> --as succeeded|failed|not-executed --note "..."`,
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
    )
    .option(
      '--expect <version>',
      'the VERSION `cronfence effects` showed: refused (nothing changed) if the effect changed since (default: the version resolve reads and prints)',
    );
  withConnectionOptions(resolve).action(
    action(async (key: string, flags: ResolveFlags) => {
      const note = flags.note.trim();
      if (note.length === 0 || note.length > 1024)
        throw usage('--note', flags.note, 'must be 1 to 1024 characters');
      const by = operatorValue('--by', flags.by, 128);
      const conn = await connect(flags);
      try {
        const store = new DynamoEffectStore(conn.doc, conn.tableName, flags.job);
        // The safe path: read, show, and condition the write on what was read (or on --expect).
        const read = await store.get(key);
        const shown = flags.expect ?? (read ? (await store.shown(read, Date.now())).version : undefined);
        const item = await store.resolve({
          key,
          as: flags.as,
          note,
          by,
          nowMs: Date.now(),
          ...(shown !== undefined && { expect: shown }),
        });
        if (flags.json)
          out(toJson({ key, version: effectVersion(item), ...publicView(item as unknown as Item) }));
        else
          out(
            `Effect ${key}: resolved ${item.status === 'pending' ? 'not-executed (pending: the next run sends it)' : String(item.status)} by ${String(item.reviewedBy)} at ${iso(item.reviewedAtMs)} ("${note}"); version ${String(shown)} -> ${effectVersion(item)}`,
          );
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );
}
