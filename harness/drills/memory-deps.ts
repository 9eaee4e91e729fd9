/**
 * Runtime dependencies on the in-memory store: the same RunSession, LeaseKeeper and job bodies as on
 * DynamoDB: the same stores on the in-memory protocol backend ({@link memoryStores}).
 */
import type { Clock } from '../../lib/core/ports.js';
import type { PausePoint, RuntimeDeps } from '../../lib/runtime/deps.js';
import type { Observer } from '../../lib/runtime/events.js';
import { libraryTable } from '../../lib/store/schema.js';
import type { FaultInjector } from '../faults/sdk-faults.js';
import { MemoryClient, type MemoryDb, memoryStores, unusedDocumentClient } from '../memory/index.js';

let unused: ReturnType<typeof unusedDocumentClient> | undefined;

/** Options of {@link createMemoryDeps}. */
export interface MemoryDepsOptions {
  readonly db: MemoryDb;
  readonly clock: Clock;
  /** Library table name. @default 'cronfence' */
  readonly tableName?: string;
  readonly faults?: FaultInjector;
  /** Backoff between the client's retries. @default no wait */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly pausePoint?: PausePoint;
  readonly observe?: Observer;
}

/** Build one worker's deps on a shared {@link MemoryDb}. */
export function createMemoryDeps(options: MemoryDepsOptions): RuntimeDeps {
  const client = new MemoryClient(options.db, {
    ...(options.faults && { faults: options.faults }),
    ...(options.sleep && { sleep: options.sleep }),
  });
  const tableName = options.tableName ?? libraryTable.defaultName;
  unused ??= unusedDocumentClient();
  return {
    doc: unused,
    tableName,
    ...memoryStores(client, tableName),
    clock: options.clock,
    ...(options.pausePoint && { pausePoint: options.pausePoint }),
    ...(options.observe && { observe: options.observe }),
  };
}
