/**
 * What a job's body touches beyond its own lease and run records: the application tables it writes
 * (and with which `ctx` call) and whether it records effects. Declared where the job is defined
 * (`defineJob({ ..., uses })`); the CDK grants exactly this (cdk/constructs/scheduled-job.ts, library-table.ts), the test
 * runtime allows exactly this, and the IAM test (test/integ/iam.test.ts) checks the grants against the requests the
 * runtime really sends.
 */
import * as v from 'valibot';
import { InvalidJobDefinitionError } from '../core/input-errors.js';
import type { TableSchema } from './schema.js';

/**
 * The `ctx` writes a job makes on an application table, and the one DynamoDB action each sends:
 * `fencedPut` is one conditional UpdateItem; `insertOnce` is one conditional PutItem (a refused
 * insert gets the row back with `ALL_OLD`, no read).
 */
export const TableWrite = { fencedPut: 'fencedPut', insertOnce: 'insertOnce' } as const;
/** One of {@link TableWrite}. */
export type TableWrite = (typeof TableWrite)[keyof typeof TableWrite];

/** An application table a job writes, and how. */
export interface TableUse {
  /** The table's schema (its `defaultName` identifies it in the stack). */
  readonly table: TableSchema;
  /** The `ctx` calls the job makes on it (at least one). */
  readonly writes: readonly TableWrite[];
}

/** Everything a job's body needs besides its lease and run records. */
export interface JobAccess {
  /** Application tables the job writes. @default [] */
  readonly tables?: readonly TableUse[];
  /** True when the body calls `ctx.effect` (effect records `EFFECT#<job>#*`). @default false */
  readonly effects?: boolean;
}

const KeySchema = v.object({
  name: v.pipe(v.string('must be an attribute name'), v.minLength(1, 'must not be empty')),
  type: v.picklist(['S', 'N'], 'must be "S" or "N"'),
});

const UsesSchema = v.strictObject(
  {
    tables: v.optional(
      v.array(
        v.strictObject(
          {
            table: v.object(
              {
                defaultName: v.pipe(
                  v.string('must be a table name'),
                  v.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name'),
                ),
                envVar: v.pipe(
                  v.string('must be an environment variable name'),
                  v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
                ),
                partitionKey: KeySchema,
              },
              'must be a TableSchema { defaultName, envVar, partitionKey, ... }',
            ),
            writes: v.pipe(
              v.array(v.picklist(Object.values(TableWrite), 'must be "fencedPut" or "insertOnce"')),
              v.minLength(1, 'must name at least one write ("fencedPut", "insertOnce")'),
            ),
          },
          'must be { table, writes }',
        ),
      ),
    ),
    effects: v.optional(v.boolean('must be true or false')),
  },
  'must be { tables?, effects? }',
);

/**
 * Validate a job's `uses`.
 * @throws InvalidJobDefinitionError naming the field (`uses.tables.0.writes.0`) and its value.
 */
export function parseJobAccess(uses: unknown): JobAccess {
  const result = v.safeParse(UsesSchema, uses, { abortPipeEarly: true });
  if (result.success) return uses as JobAccess;
  const issue = result.issues[0];
  const path = ['uses', ...(issue.path ?? []).map((p) => String(p.key))];
  const value = issue.path?.length ? issue.path[issue.path.length - 1]?.value : uses;
  throw new InvalidJobDefinitionError(path.join('.'), value, issue.message);
}

/** Where `defineJob` keeps a job's `uses` on its definition: not enumerable, so no schema or JSON sees it. */
const USES = Symbol.for('cronfence.job.uses');

/** Attach a job's declared `uses` to its definition (`defineJob` does this). */
export function declareUses<T extends object>(definition: T, uses: JobAccess): T {
  Object.defineProperty(definition, USES, { value: uses, enumerable: false });
  return definition;
}

/**
 * The `uses` declared with a job's definition (`defineJob({ ..., uses })`), or `undefined` when it
 * declares none. The CDK reads it from `handler.job`.
 */
export function declaredUses(definition: object): JobAccess | undefined {
  return (definition as { [USES]?: JobAccess })[USES];
}
