/**
 * The app's job registry: ONE list of jobs that the CDK app (one function + schedule each), the
 * `cronfence` CLI (which jobs exist), `npm start` (which jobs the emulator fires) and the sweeper read.
 * Adding a job is one job file plus one entry here; nothing else restates it.
 */

import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { JobDefinition } from '../core/job-definition.js';
import { declaredUses, type JobAccess } from '../store/job-access.js';
import type { TableSchema } from '../store/schema.js';
import type { JobHandler } from './define-job.js';

/** One registry entry as written in the app's registry module (e.g. `functions/index.ts`). */
export interface JobEntryInput {
  /** The job's `defineJob` handler (the job file's `handler` export). */
  readonly handler: JobHandler;
  /** The file exporting `handler`, relative to the repository root (bundled by the CDK app). @default `functions/<job name>.ts` */
  readonly entry?: string;
  /**
   * What the job's body uses, for a job whose `defineJob` does not declare it (declare it there, beside
   * the code): the application tables it writes (and with which `ctx` calls) and whether it records
   * effects. `npm start` and the CDK app create those tables and pass each to the function as
   * `<schema.envVar>`; the job's role gets exactly these grants (least privilege).
   * @default - the definition's `uses`, else {} (no application tables, no effects)
   */
  readonly uses?: JobAccess;
  /** Scheduler StartDate; pin it for rate jobs so the sweeper can count their slots. @default none */
  readonly start?: Date;
}

/** A registry entry with its definition (the shape the CDK stack's `jobs` prop takes). */
export interface RegisteredJob extends JobEntryInput {
  readonly definition: JobDefinition;
  readonly entry: string;
}

/**
 * Build the registry from its entries: fills in `definition` and the default `entry`, and refuses two
 * entries with one job name (names are schedule names and `JOB#<name>` key prefixes).
 * @throws InvalidJobDefinitionError naming `name` and both entries for a duplicate.
 * @example
 * export const jobs = defineRegistry([
 *   { handler: dailyReport, entry: 'functions/daily-report.ts',
 *     uses: { tables: [{ table: reportsTable, writes: ['fencedPut'] }] } },
 * ]);
 */
export function defineRegistry(entries: readonly JobEntryInput[]): readonly RegisteredJob[] {
  const seen = new Map<string, string>();
  return entries.map((e) => {
    const name = e.handler.job.name;
    const entry = e.entry ?? `functions/${name}.ts`;
    const previous = seen.get(name);
    if (previous !== undefined) {
      throw new InvalidJobDefinitionError(
        'name',
        name,
        `is registered twice (${previous} and ${entry}); job names must be unique`,
      );
    }
    seen.set(name, entry);
    return { ...e, definition: e.handler.job, entry };
  });
}

/** Every application table the registry's jobs use, once each (by `defaultName`), in first-use order. */
export function registryTables(jobs: readonly RegisteredJob[]): TableSchema[] {
  const byName = new Map<string, TableSchema>();
  for (const j of jobs)
    for (const { table: t } of (j.uses ?? declaredUses(j.definition))?.tables ?? [])
      if (!byName.has(t.defaultName)) byName.set(t.defaultName, t);
  return [...byName.values()];
}
