/**
 * Per-test-file fixture for integration tests: fresh, uniquely named tables on the shared DynamoDB
 * Local (from the globalSetup), Document clients with fault injection, and handler builders.
 */
import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { reportsTable, settlementsTable } from '../../functions/tables.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { FaultInjector } from '../../harness/faults/sdk-faults.js';
import { ensureTables } from '../../harness/local/tables.js';
import { runRecordsOf, scanAll } from '../../harness/local/verify.js';
import { createDeps, type PausePoint, type RuntimeDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { libraryTable, type TableSchema } from '../../lib/store/schema.js';

/** A fresh set of tables and a way to make deps for a "worker" (its own client, clock and faults). */
export interface LocalStack {
  readonly endpoint: string;
  readonly tableName: string;
  readonly reports: string;
  readonly settlements: string;
  /** A plain client for assertions. */
  readonly doc: DynamoDBDocumentClient;
  /** A worker: its own Document client (with a fault injector), clock and pause hook. */
  worker(options?: { clock?: ControlledClock; pausePoint?: PausePoint }): {
    deps: RuntimeDeps;
    faults: FaultInjector;
    clock: ControlledClock;
  };
  /** All run records of a job. */
  runRecords(job: string): Promise<Record<string, unknown>[]>;
  /** All items of a table. */
  scan(tableName: string): Promise<Record<string, unknown>[]>;
}

/** Create the tables (library + example) with a unique suffix and point the example jobs at them. */
export async function localStack(): Promise<LocalStack> {
  const endpoint = inject('dynamoEndpoint');
  const suffix = randomBytes(4).toString('hex');
  const tableName = `cf-lib-${suffix}`;
  const reports = `cf-reports-${suffix}`;
  const settlements = `cf-settle-${suffix}`;
  const doc = createDocumentClient({ endpoint });
  const tables: { schema: TableSchema; tableName: string }[] = [
    { schema: libraryTable, tableName },
    { schema: reportsTable, tableName: reports },
    { schema: settlementsTable, tableName: settlements },
  ];
  await ensureTables(doc, tables);
  process.env[reportsTable.envVar] = reports;
  process.env[settlementsTable.envVar] = settlements;
  process.env[libraryTable.envVar] = tableName;
  const scan = (t: string) => scanAll(doc, t);
  return {
    endpoint,
    tableName,
    reports,
    settlements,
    doc,
    worker(options = {}) {
      const clock = options.clock ?? new ControlledClock();
      const workerDoc = createDocumentClient({ endpoint });
      const faults = new FaultInjector().attach(workerDoc);
      const deps = createDeps({
        doc: workerDoc,
        tableName,
        clock,
        ...(options.pausePoint && { pausePoint: options.pausePoint }),
      });
      return { deps, faults, clock };
    },
    runRecords: (job) => runRecordsOf(doc, tableName, job),
    scan,
  };
}

/** A promise with its resolver, for pause points. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}
