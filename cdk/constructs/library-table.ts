import type { RemovalPolicy } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { Keys, libraryTable, PROBLEMS_INDEX, type TableSchema } from '../../lib/store/schema.js';
import {
  JOB_APPLICATION_TABLE_ACTIONS,
  JOB_LIBRARY_ACTIONS,
  READ_RUNS_ACTIONS,
  SWEEPER_LIBRARY_ACTIONS,
} from './defaults.js';
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

/**
 * The `dynamodb:LeadingKeys` patterns of one job's items: its lease and run records
 * (`JOB#<job>`), its shards' leases (`JOB#<job>#<shard>`) and, when `effects` is set, the effect
 * records it owns (`EFFECT#<job>#<key>`: the runtime prefixes idempotency keys with the job name).
 */
export function jobLeadingKeys(job: string, options: { effects: boolean }): string[] {
  const jobKey = Keys.lease(job).pk;
  const keys = [jobKey, `${jobKey}#*`];
  if (options.effects) keys.push(`${Keys.effect(job, '').pk}*`);
  return keys;
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
   * Let a job function touch only its own lease, shard leases, run records and effect records,
   * with only the actions the runtime uses ({@link JOB_LIBRARY_ACTIONS}).
   */
  grantJob(grantee: IGrantable, job: string): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...JOB_LIBRARY_ACTIONS],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': jobLeadingKeys(job, { effects: true }) },
      },
    });
  }

  /**
   * Let the sweeper read and record runs of the given jobs (their `JOB#<job>` items only), with
   * {@link SWEEPER_LIBRARY_ACTIONS}. No effect records: the sweeper never moves an effect.
   */
  grantSweeper(grantee: IGrantable, jobs: readonly string[]): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...SWEEPER_LIBRARY_ACTIONS],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': jobs.flatMap((job) => jobLeadingKeys(job, { effects: false })),
        },
      },
    });
  }

  /** Read-only access for operators and the CLI: every run record and the `problems` index. */
  grantReadRuns(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: [...READ_RUNS_ACTIONS],
      resourceArns: [this.table.tableArn, `${this.table.tableArn}/index/${PROBLEMS_INDEX}`],
    });
  }
}

/**
 * Grant a job function what it needs on an application table (insert-once results and fenced
 * writes, {@link JOB_APPLICATION_TABLE_ACTIONS}). Business keys are not per job, so no key condition.
 */
export function grantApplicationTable(table: Table, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: [...JOB_APPLICATION_TABLE_ACTIONS],
    resourceArns: [table.tableArn],
  });
}
