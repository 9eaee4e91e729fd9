import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { KeyAttribute, TableSchema } from '../../lib/store/schema.js';

/** Properties of {@link SchemaTable}. */
export interface SchemaTableProps {
  /** The table's shape: keys, indexes, TTL attribute (the same module the runtime uses). */
  readonly schema: TableSchema;
  /**
   * What CloudFormation does with the table when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * DynamoDB deletion protection (a delete call fails until it is turned off).
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * Point-in-time recovery (continuous backups, 35 days).
   * @default true
   */
  readonly pointInTimeRecovery?: boolean;
}

function attribute(key: KeyAttribute): { name: string; type: AttributeType } {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}

/**
 * A DynamoDB table built from a {@link TableSchema}: on-demand billing, TTL when the schema names
 * a TTL attribute, every GSI of the schema (projection ALL), PITR, deletion protection and RETAIN.
 * CloudFormation names the table; Lambdas read the name from `schema.envVar`.
 * @example
 * const reports = new SchemaTable(this, 'Reports', { schema: reportsTable });
 */
export class SchemaTable extends Construct {
  /** The created table. */
  public readonly table: Table;
  /** The schema the table was built from. */
  public readonly schema: TableSchema;

  constructor(scope: Construct, id: string, props: SchemaTableProps) {
    super(scope, id);
    const { schema } = props;
    this.schema = schema;
    this.table = new Table(this, 'Table', {
      partitionKey: attribute(schema.partitionKey),
      ...(schema.sortKey ? { sortKey: attribute(schema.sortKey) } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      ...(schema.timeToLiveAttribute ? { timeToLiveAttribute: schema.timeToLiveAttribute } : {}),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery ?? true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    for (const index of schema.globalSecondaryIndexes ?? []) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
        projectionType: ProjectionType.ALL,
      });
    }
  }

  /** The physical table name (a CloudFormation reference). */
  get tableName(): string {
    return this.table.tableName;
  }

  /** The table ARN (a CloudFormation reference). */
  get tableArn(): string {
    return this.table.tableArn;
  }
}
