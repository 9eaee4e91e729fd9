/**
 * The tables and effects a run may touch, as its job declared them (`defineJob({ ..., uses })`): what
 * the job's role in AWS is granted. A run that writes anything else is refused before the request, with
 * a message naming the table and the declaration to add, instead of the AccessDenied AWS would give.
 * `defineJob` enforces it when a job declares `uses`; `cronfence/testing` enforces it always (a job that
 * declares nothing may write no application table), so local tests fail as AWS would.
 */
import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { JobAccess, TableWrite } from '../store/job-access.js';
import { tableName } from '../store/schema.js';

/** Checks a run's writes against its job's declaration. */
export interface AccessGuard {
  /** @throws InvalidJobDefinitionError naming the table and the `uses` entry to add. */
  table(physicalName: string, write: TableWrite): void;
  /** @throws InvalidJobDefinitionError naming `uses.effects`. */
  effects(): void;
}

/**
 * A guard for `job` from its declared `uses` (`{}`: no tables, no effects). Table names are resolved
 * when checked (`tableName(schema)`: the schema's `envVar`, else its `defaultName`).
 */
export function accessGuard(job: string, uses: JobAccess): AccessGuard {
  return {
    table(physicalName, write) {
      const use = (uses.tables ?? []).find((u) => tableName(u.table) === physicalName);
      if (use?.writes.includes(write)) return;
      throw new InvalidJobDefinitionError(
        'uses',
        physicalName,
        use
          ? `job "${job}" calls ${write} on table "${physicalName}" (${use.table.defaultName}), declared for ${use.writes.join(', ')} only: add '${write}' to its writes in defineJob's uses (its role has no grant for it)`
          : `job "${job}" calls ${write} on table "${physicalName}", which it does not declare: add uses: { tables: [{ table: <the table's TableSchema>, writes: ['${write}'] }] } to its defineJob (its role has no grant for it)`,
      );
    },
    effects() {
      if (uses.effects) return;
      throw new InvalidJobDefinitionError(
        'uses.effects',
        uses.effects,
        `job "${job}" calls ctx.effect but does not declare effects: add uses: { effects: true } to its defineJob (its role has no grant for its effect records)`,
      );
    },
  };
}
