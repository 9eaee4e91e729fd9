/**
 * The benchmark's DynamoDB: its own DynamoDB Local (started here, stopped by the PID we started) or
 * the endpoint in `DYNAMODB_ENDPOINT`, with freshly named tables from the shared schemas.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reportsTable, settlementsTable } from '../../functions/tables.js';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../harness/local/dynamodb-local.js';
import { ensureTables } from '../../harness/local/tables.js';
import { scanAll } from '../../harness/local/verify.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { libraryTable, type TableSchema } from '../../lib/store/schema.js';

/** A key-value table the baselines write to (`pk` string partition key). */
export const rawTable: TableSchema = {
  defaultName: 'cronfence-bench-raw',
  envVar: 'BENCH_RAW_TABLE',
  partitionKey: { name: 'pk', type: 'S' },
};

/** A running endpoint with the library, example and raw tables. */
export interface BenchDynamo {
  readonly endpoint: string;
  /** PID of the DynamoDB Local we started, or undefined when `DYNAMODB_ENDPOINT` was given. */
  readonly pid: number | undefined;
  readonly tableName: string;
  readonly settlements: string;
  readonly reports: string;
  readonly raw: string;
  /** Progress checkpoints of the settlement benchmarks (`pk` string key). */
  readonly progress: string;
  /** A new Document client on the endpoint (each worker gets its own, like a Lambda instance). */
  client(): DynamoDBDocumentClient;
  /** Count the items of a table (consistent scan, on a client of its own). */
  count(tableName: string, filter?: (item: Record<string, unknown>) => boolean): Promise<number>;
  /** All items of a table. */
  scan(tableName: string): Promise<Record<string, unknown>[]>;
  /** Stop DynamoDB Local if we started it. */
  stop(): Promise<void>;
}

/** Start (or connect to) DynamoDB and create uniquely named tables; the example jobs point at them. */
export async function benchDynamo(): Promise<BenchDynamo> {
  const local: DynamoDbLocal | undefined = process.env.DYNAMODB_ENDPOINT
    ? undefined
    : await startDynamoDbLocal();
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? (local as DynamoDbLocal).endpoint;
  const stop = async () => {
    await local?.stop();
  };
  const onSignal = () => {
    void stop().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const suffix = randomBytes(3).toString('hex');
  const names = {
    tableName: `bench-lib-${suffix}`,
    settlements: `bench-settle-${suffix}`,
    reports: `bench-reports-${suffix}`,
    raw: `bench-raw-${suffix}`,
    progress: `bench-progress-${suffix}`,
  };
  const admin = createDocumentClient({ endpoint });
  await ensureTables(admin, [
    { schema: libraryTable, tableName: names.tableName },
    { schema: settlementsTable, tableName: names.settlements },
    { schema: reportsTable, tableName: names.reports },
    { schema: rawTable, tableName: names.raw },
    { schema: rawTable, tableName: names.progress },
  ]);
  process.env[libraryTable.envVar] = names.tableName;
  process.env[settlementsTable.envVar] = names.settlements;
  process.env[reportsTable.envVar] = names.reports;
  const scan = (t: string) => scanAll(admin, t);
  return {
    endpoint,
    pid: local?.pid,
    ...names,
    client: () => createDocumentClient({ endpoint }),
    scan,
    async count(t, filter) {
      const items = await scan(t);
      return filter ? items.filter(filter).length : items.length;
    },
    stop,
  };
}
