/**
 * What a store contract needs from an implementation: the three stores, table names, a way to read
 * items back, and the fault injector every request of the stores passes through.
 */

import type { FaultInjector } from '../../../harness/faults/sdk-faults.js';
import type { EffectStore, LeaseStore, ResultStore, RunStore } from '../../../lib/core/ports.js';
import type { TablePauseStore } from '../../../lib/store/pause-store.js';

/** One implementation's stores on fresh tables. */
export interface StoreFixture {
  readonly leases: LeaseStore;
  readonly runs: RunStore;
  readonly results: ResultStore;
  /** Effect records of job `contract-job` (the library table). */
  readonly effects: EffectStore;
  /** Pause and resume (docs/design.md "Pause") on the library table. */
  readonly pauses: TablePauseStore;
  /** Library table (leases, run records). */
  readonly tableName: string;
  /** A business table keyed by `reportDate` (S): fenced writes. */
  readonly reports: string;
  /** A business table keyed by `merchantId` (S) + `settlementDate` (S): insert-once rows. */
  readonly settlements: string;
  /** The injector every request of the stores above passes through. */
  readonly faults: FaultInjector;
  /** Read an item back (consistent), plain JS values (string sets as Set). */
  read(table: string, key: Record<string, string>): Promise<Record<string, unknown> | undefined>;
  /** Write an item directly, as the application or other tooling would (no cronfence attributes). */
  putRaw(table: string, item: Record<string, unknown>): Promise<void>;
}
