import type { RemovalPolicy } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TableWrite } from '../../lib/store/job-access.js';
import {
  Keys,
  libraryTable,
  PROBLEMS_BY_TIME_INDEX,
  PROBLEMS_INDEX,
  type TableSchema,
} from '../../lib/store/schema.js';
import {
  JOB_EFFECT_ACTIONS,
  JOB_LEASE_ACTIONS,
  JOB_LEASE_CHECK_ACTION,
  JOB_RUN_ACTIONS,
  READ_RUNS_ACTIONS,
  SWEEPER_READ_ACTIONS,
  SWEEPER_WRITE_ACTIONS,
} from './defaults.js';
import { CronfenceValidationError } from './errors.js';
import { SchemaTable } from './schema-table.js';

/** Properties of {@link LibraryTable}. */
export interface LibraryTableProps {
  /**
   * The schema to build from. Override only for tests or a renamed environment variable.
   * @default libraryTable (lib/store/schema.ts)
   */
  readonly schema?: TableSchema;
  /**
   * What CloudFormation does with the table when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * DynamoDB deletion protection.
   * @default true
   */
  readonly deletionProtection?: boolean;
}

/** What a job uses of the library table beyond its lease and run records. */
export interface JobLibraryUse {
  /** The job fans out to shards (leases `JOB#<job>#<shard>`). */
  readonly shards: boolean;
  /** The job records effects (`EFFECT#<job>#<key>`). */
  readonly effects: boolean;
  /**
   * The job's `uses` declare `fencedPut` writes: reconciling an item last written under another lease
   * of the job (a reshard: `JOB#<job>` ↔ `JOB#<job>#<shard>`) checks both leases inside one
   * TransactWriteItems (ConditionCheckItem; lib/store/protocol/operations.ts `crossLeaseWrite`).
   * @default false
   */
  readonly fencedWrites?: boolean;
}

/**
 * The `dynamodb:LeadingKeys` patterns of one job's items: its lease and run records
 * (`JOB#<job>`), its shards' leases (`JOB#<job>#*`, sharded jobs only) and its effect records
 * (`EFFECT#<job>#*`, jobs with effects only: the runtime prefixes idempotency keys with the job name).
 */
export function jobLeadingKeys(job: string, use: JobLibraryUse): string[] {
  const jobKey = Keys.lease(job).pk;
  return [
    jobKey,
    ...(use.shards ? [`${jobKey}#*`] : []),
    ...(use.effects ? [`${Keys.effect(job, '').pk}*`] : []),
  ];
}

/**
 * The library table (leases, run records, effect records) with grants scoped per caller: a job
 * reaches only its own items through an IAM `dynamodb:LeadingKeys` condition. TTL on `expiresAt`
 * (the runtime sets it on run and effect records only, never on leases), PITR, deletion
 * protection, RETAIN, and the sparse `problems` GSI.
 * @example
 * const library = new LibraryTable(this, 'Library');
 * library.grantJob(fn, 'daily-report');
 */
export class LibraryTable extends Construct {
  /** The table built from the schema. */
  public readonly schemaTable: SchemaTable;
  /** The created DynamoDB table. */
  public readonly table: Table;
  /** The schema the table was built from. */
  public readonly schema: TableSchema;

  constructor(scope: Construct, id: string, props: LibraryTableProps = {}) {
    super(scope, id);
    this.schema = props.schema ?? libraryTable;
    this.schemaTable = new SchemaTable(this, 'Schema', {
      schema: this.schema,
      ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
      ...(props.deletionProtection === undefined ? {} : { deletionProtection: props.deletionProtection }),
    });
    this.table = this.schemaTable.table;
  }

  /** Environment variable name and value a Lambda reads the table name from. */
  get environment(): Record<string, string> {
    return { [this.schema.envVar]: this.table.tableName };
  }

  /**
   * Let a job function touch only its own items, each with only the actions the runtime sends for
   * it: UpdateItem on its lease(s) (+ ConditionCheckItem on `JOB#<job>` and `JOB#<job>#*` with
   * effects or fencedPut writes: the cross-lease check after a reshard), PutItem on its run records,
   * PutItem/UpdateItem on its effect records. Every statement carries a `dynamodb:LeadingKeys`
   * condition, so a job can never reach another job's lease, runs or effects.
   * @returns the grants, one per statement.
   */
  grantJob(grantee: IGrantable, job: string, use: JobLibraryUse): Grant[] {
    const jobKey = Keys.lease(job).pk;
    const leaseKeys = use.shards ? [jobKey, `${jobKey}#*`] : [jobKey];
    const grant = (actions: readonly string[], keys: readonly string[]) =>
      this.grantOnKeys(grantee, actions, keys);
    // ConditionCheckItem: the lease check of effect transactions (the job's own leases) and the
    // cross-lease reconciliation of a fencedPut item or an effect last written under another lease of
    // the same job (a reshard), which checks that other lease too: `JOB#<job>` and its shard leases
    // `JOB#<job>#*` whatever the current shard count.
    const checkKeys = use.fencedWrites || use.effects ? [jobKey, `${jobKey}#*`] : [];
    const sameKeys = checkKeys.join() === leaseKeys.join();
    return [
      grant([...JOB_LEASE_ACTIONS, ...(sameKeys ? [JOB_LEASE_CHECK_ACTION] : [])], leaseKeys),
      ...(checkKeys.length > 0 && !sameKeys ? [grant([JOB_LEASE_CHECK_ACTION], checkKeys)] : []),
      grant(JOB_RUN_ACTIONS, [jobKey]),
      ...(use.effects ? [grant(JOB_EFFECT_ACTIONS, [`${Keys.effect(job, '').pk}*`])] : []),
    ];
  }

  /**
   * Let the sweeper read leases and query run records of the given jobs (their `JOB#<job>` items:
   * GetItem, Query; for sharded jobs also GetItem on the shard leases `JOB#<job>#*`) and put run records on
   * `JOB#<job>` (PutItem: the `abandoned` mark of an expired open claim, the `catch-up-limit` skip
   * record). No UpdateItem, no effect records: the sweeper sends none of those.
   * @returns the grants (two statements, three with a sharded job)
   */
  grantSweeper(grantee: IGrantable, jobs: readonly { name: string; shards: boolean }[]): Grant[] {
    const grant = (actions: readonly string[], keys: readonly string[]) =>
      this.grantOnKeys(grantee, actions, keys);
    const jobKeys = jobs.map((j) => Keys.lease(j.name).pk);
    const shardKeys = jobs.filter((j) => j.shards).map((j) => `${Keys.lease(j.name).pk}#*`);
    return [
      grant(SWEEPER_READ_ACTIONS, jobKeys),
      // Shard leases are read (GetItem) but never queried: run records of every shard live on `JOB#<job>`.
      ...(shardKeys.length > 0 ? [grant(['dynamodb:GetItem'], shardKeys)] : []),
      grant(SWEEPER_WRITE_ACTIONS, jobKeys),
    ];
  }

  /** `actions` on the table's items whose partition key matches one of `keys` (`dynamodb:LeadingKeys`). */
  private grantOnKeys(grantee: IGrantable, actions: readonly string[], keys: readonly string[]): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...actions],
      resourceArns: [this.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...keys] } },
    });
  }

  /** Read-only access for operators and the CLI: every run record and both problem indexes. */
  grantReadRuns(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...READ_RUNS_ACTIONS],
      resourceArns: [
        this.table.tableArn,
        `${this.table.tableArn}/index/${PROBLEMS_INDEX}`,
        `${this.table.tableArn}/index/${PROBLEMS_BY_TIME_INDEX}`,
      ],
    });
  }
}

/** The DynamoDB action each `ctx` write sends (see {@link TableWrite}). */
const WRITE_ACTIONS: Readonly<Record<TableWrite, string>> = {
  fencedPut: 'dynamodb:UpdateItem',
  insertOnce: 'dynamodb:PutItem',
};

/**
 * Grant a job function the actions its `ctx` writes send to an application table (fencedPut ->
 * UpdateItem, insertOnce -> PutItem), and nothing else. Business keys are not per job, so no key condition.
 * @throws CronfenceValidationError when `writes` is empty (a declared table the job never writes).
 */
export function grantApplicationTable(
  table: Table,
  grantee: IGrantable,
  writes: readonly TableWrite[],
): Grant {
  const actions = [...new Set(writes.map((w) => WRITE_ACTIONS[w]))].sort();
  if (actions.length === 0) {
    throw new CronfenceValidationError(
      `table ${table.node.path}: declare at least one write (fencedPut, insertOnce)`,
      table,
    );
  }
  return Grant.addToPrincipal({ grantee, actions, resourceArns: [table.tableArn] });
}
