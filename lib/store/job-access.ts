/**
 * What a job's body touches beyond its own lease and run records: the application tables it writes
 * (and with which `ctx` call) and whether it records effects. The CDK stack grants exactly this
 * (cdk/constructs/access.ts); the IAM test (test/iam) checks the grants against the requests the
 * runtime really sends.
 */
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
