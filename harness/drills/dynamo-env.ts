/**
 * Where drills run: the configured DynamoDB (DynamoDB Local started and stopped by PID by default;
 * `DYNAMODB_ENDPOINT` or AWS when configured), with fresh uniquely named tables per drill, deleted
 * afterwards, and one Document client (with its own fault injector) per worker.
 */

import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDeps, type RuntimeDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient, dynamoEndpointFromEnv, scanItems } from '../../lib/store/client.js';
import { libraryTable, type TableSchema } from '../../lib/store/schema.js';
import { sleepingRetryStrategy } from '../faults/retry.js';
import { type DynamoDbLocal, startDynamoDbLocal } from '../local/dynamodb-local.js';
import { ensureTables } from '../local/tables.js';
import { runRecordsOf } from '../local/verify.js';
import type { WorkerParts } from './stage.js';

/** The DynamoDB drills talk to. */
export interface DrillTarget {
  /** `http://127.0.0.1:<port>`, another endpoint, or undefined for AWS. */
  readonly endpoint: string | undefined;
  /** How it was chosen, for the printout. */
  readonly description: string;
  stop(): Promise<void>;
}

/**
 * Choose the target: `aws` → the AWS endpoint of the environment's region and credentials;
 * else `DYNAMODB_ENDPOINT`; else start DynamoDB Local (stopped by PID in `stop()`).
 */
export async function openTarget(options: { aws?: boolean; endpoint?: string } = {}): Promise<DrillTarget> {
  if (options.aws)
    return {
      endpoint: undefined,
      description: `AWS DynamoDB (${process.env.AWS_REGION ?? 'us-east-1'})`,
      stop: async () => undefined,
    };
  const endpoint = options.endpoint ?? dynamoEndpointFromEnv();
  if (endpoint) return { endpoint, description: `DynamoDB at ${endpoint}`, stop: async () => undefined };
  const local: DynamoDbLocal = await startDynamoDbLocal();
  return {
    endpoint: local.endpoint,
    description: `DynamoDB Local at ${local.endpoint} (pid ${local.pid}, in memory)`,
    stop: () => local.stop(),
  };
}

/** Fresh tables for one drill: the library table and the app's tables, env vars pointing at them. */
export interface DrillTables {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Physical name of each app table, by its env var. */
  readonly names: ReadonlyMap<TableSchema, string>;
  /** Run records of a job (consistent read). */
  runRecords(job: string): Promise<Record<string, unknown>[]>;
  /** Every item of a table (consistent read). */
  scan(tableName: string): Promise<Record<string, unknown>[]>;
  /** Deps factory for {@link Stage}: one Document client per worker, its fault injector attached. */
  depsFor(parts: WorkerParts): RuntimeDeps;
  /** Delete the tables, restore env vars, close clients. */
  drop(): Promise<void>;
}

/** Create fresh tables (unique suffix) for the library and `appTables`. */
export async function createDrillTables(
  target: DrillTarget,
  appTables: readonly TableSchema[],
): Promise<DrillTables> {
  const suffix = randomBytes(4).toString('hex');
  const doc = createDocumentClient(target.endpoint ? { endpoint: target.endpoint } : {});
  const tables = [libraryTable, ...appTables].map((schema) => ({
    schema,
    tableName: `drill-${suffix}-${schema.defaultName}`,
  }));
  await ensureTables(doc, tables);
  const saved = tables.map((t) => [t.schema.envVar, process.env[t.schema.envVar]] as const);
  for (const t of tables) process.env[t.schema.envVar] = t.tableName;
  const tableName = tables[0]?.tableName as string;
  const clients: DynamoDBDocumentClient[] = [doc];
  const scan = (t: string) => scanItems(doc, { TableName: t, ConsistentRead: true });
  return {
    doc,
    tableName,
    names: new Map(tables.map((t) => [t.schema, t.tableName])),
    runRecords: (job) => runRecordsOf(doc, tableName, job),
    scan,
    depsFor(parts) {
      const retryStrategy = sleepingRetryStrategy({
        sleep: (ms) => parts.faults.waitOn(parts.clock.sleep(ms)),
      });
      const workerDoc = createDocumentClient({
        ...(target.endpoint && { endpoint: target.endpoint }),
        retryStrategy,
      });
      clients.push(workerDoc);
      parts.faults.attach(workerDoc);
      return createDeps({
        doc: workerDoc,
        tableName,
        clock: parts.clock,
        pausePoint: parts.pausePoint,
        observe: parts.observe,
      });
    },
    async drop() {
      await Promise.all(
        tables.map((t) =>
          doc.send(new DeleteTableCommand({ TableName: t.tableName })).catch(() => undefined),
        ),
      );
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      for (const c of clients) c.destroy();
    },
  };
}
