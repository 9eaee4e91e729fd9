/**
 * `cronfence local [--hold] [--jobs <module>]`: DynamoDB Local for a project's own jobs — the library
 * table and every application table the jobs declare — so the CLI can be tried against it. With
 * `--hold` it stays up and writes `.cronfence/local.json` (the file `npm start -- --hold` writes), so
 * `npx cronfence runs <job>`, `trigger <job> --local`, `backfill ... --local`, ... use it without
 * flags, until Ctrl-C or `kill <pid>`; without it, it checks the set-up (Java, tables) and stops.
 */
import type { Command } from 'commander';
import { libraryTable } from '../lib/store/schema.js';
import {
  type HandlerList,
  type HandlerSource,
  handlerListOf,
  importJobsFile,
  loadOrExplain,
  sourceOf,
} from '../operate/registry.js';
import { withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { action, out } from './output.js';

interface LocalFlags {
  readonly hold?: boolean;
  readonly jobs?: string;
}

/** The jobs module's export as written (registry entries keep their `uses`). */
async function jobsList(
  flags: LocalFlags,
  defaults: HandlerSource,
): Promise<{ list: HandlerList; source: string }> {
  const source = flags.jobs ?? sourceOf(defaults);
  const list = await loadOrExplain(source, async () => {
    if (flags.jobs !== undefined) return handlerListOf(await importJobsFile(flags.jobs), flags.jobs);
    return typeof defaults === 'function' ? defaults() : defaults;
  });
  return { list, source };
}

/** Register `cronfence local`. */
export function registerLocal(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('local')
    .description(
      'start DynamoDB Local with the library table and the tables your jobs declare; with --hold keep it up for the CLI (.cronfence/local.json) until Ctrl-C',
    )
    .option('--hold', 'keep it running and write .cronfence/local.json so the CLI finds it without flags');
  withJobsOption(cmd).action(
    action(async (flags: LocalFlags) => {
      const { list, source } = await jobsList(flags, defaults);
      // The test helpers load only for this command, never with the rest of the CLI.
      const { startLocalCronfence } = await import('../testing/index.js');
      const local = await startLocalCronfence({
        jobs: list,
        ...(process.env[libraryTable.envVar] && { tableName: process.env[libraryTable.envVar] }),
        ...(flags.hold && { hold: true }),
      });
      out(`DynamoDB Local at ${local.endpoint} (pid ${local.pid ?? '?'}, in memory), jobs from ${source}`);
      out(
        `Tables: ${Object.entries(local.tables)
          .map(([env, name]) => `${name} (${env})`)
          .join(', ')}`,
      );
      if (!flags.hold) {
        await local.stop();
        out('Stopped (pass --hold to keep it up for the CLI).');
        return ExitCode.Ok;
      }
      out(`Wrote ${local.statePath}: the cronfence CLI in this directory uses this endpoint without flags.`);
      out(`Holding until Ctrl-C or kill ${process.pid}.`);
      const keepAlive = setInterval(() => undefined, 3_600_000);
      await local.stopped;
      clearInterval(keepAlive);
      out('DynamoDB Local stopped; .cronfence/local.json removed.');
      return ExitCode.Ok;
    }),
  );
}
