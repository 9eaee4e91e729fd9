/**
 * Table schemas shared by the runtime, DynamoDB Local setup (`npm start`, tests) and the CDK app,
 * so a key name is written once. docs/design.md "Items in the library table".
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** A key attribute: name and DynamoDB scalar type. */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

/** A global secondary index (projection ALL). */
export interface IndexSchema {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
}

/** The shape of a table, independent of CloudFormation or the SDK. */
export interface TableSchema {
  /** Default physical name (local runs); CDK lets CloudFormation name it. */
  readonly defaultName: string;
  /** Environment variable a Lambda reads the physical table name from. */
  readonly envVar: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalSecondaryIndexes?: readonly IndexSchema[];
  /** TTL attribute (epoch seconds), if the table expires items. */
  readonly timeToLiveAttribute?: string;
}

/**
 * A table's physical name: its `envVar` (the CDK sets it on every function that declares the table; `npm
 * start` and the test helpers set or leave it) or, without one, its `defaultName`.
 * @example await ctx.fencedPut(tableName(reportsTable), { reportDate: ctx.businessDate }, { body });
 */
export function tableName(schema: TableSchema, env: NodeJS.ProcessEnv = process.env): string {
  return env[schema.envVar] ?? schema.defaultName;
}

/** Attribute names of the library table. */
export const Attr = {
  pk: 'pk',
  sk: 'sk',
  expiresAt: 'expiresAt',
  /** Sparse index partition key: the problem outcome (`failed`, `stale`, `abandoned`) or effect status `needs-review`. */
  problem: 'problem',
  /** Sort key of the `problems` index: when the problem was recorded, epoch ms (what the CLI queries). */
  problemAtMs: 'problemAtMs',
  /**
   * Sort key of the `problemsByTime` index: the same instant as ISO 8601 UTC
   * (`2026-03-10T08:00:05.000Z`), which sorts as it reads, for a person querying in the console.
   */
  problemAt: 'problemAt',
} as const;

/**
 * Name of the sparse GSI over failed, stale and abandoned runs and unsettled or needs-review effects,
 * sorted by `problemAtMs` (epoch ms): the one the CLI and the sweeper query; it holds every problem item,
 * also those written before {@link PROBLEMS_BY_TIME_INDEX} existed.
 */
export const PROBLEMS_INDEX = 'problems';

/**
 * The same sparse GSI sorted by `problemAt` (an ISO instant string), for the console: "problems since
 * 2026-03-09T08:00" reads and sorts as written. A second index rather than a new sort key for
 * `problems`: DynamoDB cannot change an index's key schema, and a table update creates or deletes at most
 * one index, so a deployed table gains this one in one deploy and keeps the other. Items written before
 * it existed carry no `problemAt` and are only in `problems`.
 */
export const PROBLEMS_BY_TIME_INDEX = 'problemsByTime';

/** The sparse-index attributes of a problem item recorded at `atMs` (epoch ms): both sort keys. */
export function problemKeys(problem: string, atMs: number): Record<string, string | number> {
  return {
    [Attr.problem]: problem,
    [Attr.problemAtMs]: atMs,
    [Attr.problemAt]: new Date(atMs).toISOString(),
  };
}

/** What a write removes to take an item out of both problem indexes. */
export const PROBLEM_ATTRIBUTES: readonly string[] = [Attr.problem, Attr.problemAtMs, Attr.problemAt];

/**
 * The library table: leases, run records and effect records in one table (`pk`/`sk`).
 * TTL on `expiresAt` applies only to run records; lease and effect items never get it (a reaped
 * lease would reset the fence, a reaped effect would let a backfill pay again).
 */
export const libraryTable: TableSchema = {
  defaultName: 'cronfence',
  envVar: 'CRONFENCE_TABLE',
  partitionKey: { name: Attr.pk, type: 'S' },
  sortKey: { name: Attr.sk, type: 'S' },
  globalSecondaryIndexes: [
    {
      indexName: PROBLEMS_INDEX,
      partitionKey: { name: Attr.problem, type: 'S' },
      sortKey: { name: Attr.problemAtMs, type: 'N' },
    },
    {
      indexName: PROBLEMS_BY_TIME_INDEX,
      partitionKey: { name: Attr.problem, type: 'S' },
      sortKey: { name: Attr.problemAt, type: 'S' },
    },
  ],
  timeToLiveAttribute: Attr.expiresAt,
};

/** Key builders for the library table (docs/design.md "Items in the library table"). */
export const Keys = {
  /** Lease item of a job (and shard): `JOB#<job>[#<shard>]` / `LEASE`. Never deleted, never TTL'd. */
  lease(job: string, shard?: number): { pk: string; sk: string } {
    return { pk: shard === undefined ? `JOB#${job}` : `JOB#${job}#${shard}`, sk: 'LEASE' };
  },
  /** Run record: `JOB#<job>` / `RUN#<slot>#<runId>`; all attempts of a slot share the prefix. */
  run(job: string, slotId: string, runId: string): { pk: string; sk: string } {
    return { pk: `JOB#${job}`, sk: `RUN#${slotId}#${runId}` };
  },
  /**
   * Effect record: `EFFECT#<job>#<idempotencyKey>` / `EFFECT`. The job prefix lets IAM scope a job's
   * role to the effects it owns (`dynamodb:LeadingKeys` on `EFFECT#<job>#*`).
   */
  effect(job: string, idempotencyKey: string): { pk: string; sk: string } {
    return { pk: `EFFECT#${job}#${idempotencyKey}`, sk: 'EFFECT' };
  },
} as const;

/**
 * Build the `CreateTable` input for a schema (on-demand billing), used by DynamoDB Local setup.
 * TTL is set separately (`UpdateTimeToLive`); DynamoDB Local honours it and reaps expired items too.
 */
export function createTableInput(schema: TableSchema, tableName: string): CreateTableCommandInput {
  const attrs = new Map<string, 'S' | 'N'>();
  const keyOf = (pk: KeyAttribute, sk?: KeyAttribute) => {
    attrs.set(pk.name, pk.type);
    if (sk) attrs.set(sk.name, sk.type);
    return [
      { AttributeName: pk.name, KeyType: 'HASH' as const },
      ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
    ];
  };
  const KeySchema = keyOf(schema.partitionKey, schema.sortKey);
  const GlobalSecondaryIndexes = schema.globalSecondaryIndexes?.map((gsi) => ({
    IndexName: gsi.indexName,
    KeySchema: keyOf(gsi.partitionKey, gsi.sortKey),
    Projection: { ProjectionType: 'ALL' as const },
  }));
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema,
    AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    ...(GlobalSecondaryIndexes?.length ? { GlobalSecondaryIndexes } : {}),
  };
}
