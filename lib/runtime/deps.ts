/**
 * The runtime's dependencies (ports plus the DynamoDB client), built lazily from the environment at
 * the first invocation so importing a handler does no I/O. Tests and drills pass their own.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfigurationError } from '../core/input-errors.js';
import type { OverlapLeaseStore } from '../core/overlap-ports.js';
import {
  type Clock,
  type EffectStore,
  type LeaseStore,
  type ResultStore,
  type RunStore,
  systemClock,
} from '../core/ports.js';
import { createDocumentClient } from '../store/client.js';
import { DynamoLeaseStore } from '../store/lease-store.js';
import { DynamoResultStore } from '../store/result-store.js';
import { DynamoRunStore } from '../store/run-store.js';
import { libraryTable } from '../store/schema.js';
import type { AccessGuard } from './access-guard.js';
import type { Observer } from './events.js';

/** Everything a run touches outside its own memory. */
export interface RuntimeDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Claim, renew, release, and the overlap policies' writes (buffer, replace, unbuffer). */
  readonly leases: LeaseStore & OverlapLeaseStore;
  readonly runs: RunStore;
  readonly results: ResultStore;
  /** Effect records of a job. @default DynamoEffectStore on `doc` and `tableName` */
  readonly effects?: (job: string) => EffectStore;
  readonly clock: Clock;
  /**
   * Pause points for drills and tests (see harness/faults): awaited at `after-claim`, `before-write`
   * (each fenced / insert-once write) and `before-finish`. @default none
   */
  readonly pausePoint?: PausePoint;
  /** Receives every runtime decision (logs, metrics, timelines). @default none */
  readonly observe?: Observer;
  /**
   * Refuses a write to a table (or an effect) the job does not declare, before the request.
   * @default - the job's declared `uses` when it declares one (defineJob), else none
   */
  readonly access?: AccessGuard;
}

/** Where a run can be paused (or killed) by fault injection. */
export type PausePointName = 'after-claim' | 'before-write' | 'before-finish';

/** A pause hook: resolves when the run may go on; never resolving models a killed process. */
export type PausePoint = (
  name: PausePointName,
  info: { job: string; runId: string; fence: number; key?: Record<string, unknown> },
) => Promise<void>;

/**
 * Build deps on one Document client. @param tableName library table; @default `process.env.CRONFENCE_TABLE`
 * @throws ConfigurationError when no table name is configured.
 */
export function createDeps(
  options: {
    doc?: DynamoDBDocumentClient;
    tableName?: string;
    clock?: Clock;
    pausePoint?: PausePoint;
    observe?: Observer;
    access?: AccessGuard;
  } = {},
): RuntimeDeps {
  const tableName = options.tableName ?? process.env[libraryTable.envVar];
  if (!tableName) {
    throw new ConfigurationError(
      libraryTable.envVar,
      tableName,
      'environment variable naming the library table is not set',
    );
  }
  const doc = options.doc ?? createDocumentClient();
  return {
    doc,
    tableName,
    leases: new DynamoLeaseStore(doc, tableName),
    runs: new DynamoRunStore(doc, tableName),
    results: new DynamoResultStore(doc, tableName),
    clock: options.clock ?? systemClock,
    ...(options.pausePoint && { pausePoint: options.pausePoint }),
    ...(options.observe && { observe: options.observe }),
    ...(options.access && { access: options.access }),
  };
}
