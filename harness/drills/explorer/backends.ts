/**
 * Where a history runs: the in-memory store (fast; passes the same contract suite as the DynamoDB
 * stores) or DynamoDB (a sample of histories on DynamoDB Local), behind one small interface.
 */
import type { RuntimeDeps } from '../../../lib/runtime/deps.js';
import { DynamoPauseStore, TablePauseStore } from '../../../lib/store/pause-store.js';
import { libraryTable } from '../../../lib/store/schema.js';
import { MemoryClient, MemoryDb } from '../../memory/index.js';
import { MemoryBackend } from '../../memory/memory-backend.js';
import { createDrillTables, type DrillTarget } from '../dynamo-env.js';
import { createMemoryDeps } from '../memory-deps.js';
import type { Worker, WorkerParts } from '../stage.js';
import { explorerReports, explorerRows } from './jobs.js';

/** A store a history runs against. */
export interface HistoryBackend {
  readonly name: 'memory' | 'dynamodb';
  /**
   * True time the history starts at, epoch ms. DynamoDB (Local too) reaps items whose TTL attribute
   * (`expiresAt`, run records) is in the past, so histories there start near the real time.
   * @default HISTORY_START_MS (a fixed instant)
   */
  readonly startMs?: number;
  depsFor(parts: WorkerParts): RuntimeDeps;
  /** The pause store an operator on `worker` writes through (its requests pass its fault injector). */
  pausesFor(worker: Worker): TablePauseStore;
  /** Every run record of a job. */
  runRecords(job: string): Promise<Record<string, unknown>[]>;
  /**
   * Take a backup of the library table now; the returned function restores it (the items as of now,
   * as DynamoDB's restore into a new table gives them) and applies the restore procedure to `leases`
   * (`markRestored`: fence + `fenceHeadroom`, `restoredAtMs`). The in-memory store only.
   */
  backupLibrary?(): (mark: {
    restoredAtMs: number;
    fenceHeadroom: number;
    leases: readonly string[];
  }) => void;
  drop(): Promise<void>;
}

/** Build a backend once the history's true-time source exists. */
export type BackendFactory = (now: () => number) => Promise<HistoryBackend>;

/** The in-memory store. */
export const memoryBackend: BackendFactory = memoryBackendWith((deps) => deps);

/**
 * The in-memory store with each worker's deps changed by `alter` (tests: a deliberately broken
 * protocol must be caught). `alter` gets the worker's deps, its parts and the shared db.
 */
export function memoryBackendWith(
  alter: (deps: RuntimeDeps, parts: WorkerParts, db: MemoryDb) => RuntimeDeps,
): BackendFactory {
  return async (now) => memoryOn(new MemoryDb(now), alter);
}

function memoryOn(
  db: MemoryDb,
  alter: (deps: RuntimeDeps, parts: WorkerParts, db: MemoryDb) => RuntimeDeps,
): HistoryBackend {
  return {
    name: 'memory',
    depsFor: (p) =>
      alter(
        createMemoryDeps({
          db,
          clock: p.clock,
          faults: p.faults,
          pausePoint: p.pausePoint,
          observe: p.observe,
          sleep: (ms) => p.faults.waitOn(p.clock.sleep(ms)),
        }),
        p,
        db,
      ),
    pausesFor: (w) =>
      new TablePauseStore(new MemoryBackend(new MemoryClient(db, { faults: w.faults })), w.deps.tableName),
    runRecords: async (job) =>
      db
        .scan(libraryTable.defaultName)
        .filter((i) => i.pk === `JOB#${job}` && String(i.sk).startsWith('RUN#')),
    backupLibrary: () => {
      const table = libraryTable.defaultName;
      const backup = db.scan(table);
      return (mark) => {
        const items = new Map(backup.map((i) => [`${i.pk}|${i.sk}`, { ...i }]));
        for (const pk of mark.leases) {
          const lease = items.get(`${pk}|LEASE`) ?? { pk, sk: 'LEASE' };
          items.set(`${pk}|LEASE`, {
            ...lease,
            fence: Number(lease.fence ?? 0) + mark.fenceHeadroom,
            restoredAtMs: mark.restoredAtMs,
          });
        }
        db.replaceTable(
          table,
          [...items.values()].map((item) => ({ key: { pk: item.pk, sk: item.sk }, item })),
        );
      };
    },
    drop: async () => undefined,
  };
}

/** DynamoDB (Local or another endpoint): fresh tables per history, deleted afterwards. */
export function dynamoBackend(target: DrillTarget): BackendFactory {
  return async () => {
    const tables = await createDrillTables(target, [explorerReports, explorerRows]);
    return {
      name: 'dynamodb',
      startMs: Math.floor(Date.now() / 300_000) * 300_000,
      depsFor: (p) => tables.depsFor(p),
      pausesFor: (w) => new DynamoPauseStore(w.deps.doc, w.deps.tableName),
      runRecords: (job) => tables.runRecords(job),
      drop: () => tables.drop(),
    };
  };
}
