/**
 * What a drill is: a named failure rehearsal with the real handlers against the configured DynamoDB —
 * what it injects, what it expects, and checks whose details (and the run records cited as evidence)
 * prove what was observed.
 */
import type { Slot } from '../../lib/core/schedule/slot.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import type { LocalApp } from '../local/run-local.js';
import type { DeliveryResult } from '../local/scheduler-emulator.js';
import type { Recording } from '../report/recording.js';
import type { Check, Evidence } from './checks.js';
import type { DrillTables } from './dynamo-env.js';
import type { Stage, Worker } from './stage.js';

/** One delivery a drill asks for. */
export interface DrillDelivery {
  readonly label: string;
  /** Scheduler attempt number (2+ = retry). @default 1 */
  readonly attempt?: number;
  /** Lambda request id (concurrent copies of one async event share it). @default new */
  readonly requestId?: string;
  /** Deliver after this much true time, ms. @default 0 */
  readonly delayMs?: number;
  /** Extra payload fields (manual trigger, requestedBy, ...). */
  readonly extra?: Record<string, unknown>;
}

/** What a drill runs with. */
export interface DrillContext {
  readonly app: LocalApp;
  /** The job that writes a protected item with `ctx.fencedPut` (the example: daily-report). */
  readonly fenced: JobHandler;
  /** The job that writes insert-once rows with `ctx.insertOnce` (the example: merchant-settlement). */
  readonly insertOnce: JobHandler;
  readonly stage: Stage;
  readonly tables: DrillTables;
  /** The slot the drill runs for a job (its latest occurrence before the stage starts). */
  slot(handler: JobHandler): Slot;
  /** Deliver the job's slot on a worker. */
  send(worker: Worker, handler: JobHandler, d: DrillDelivery): Promise<DeliveryResult>;
  /** The run ids a worker's runs claimed or were refused under (from runtime events). */
  runIdsOf(worker: Worker): string[];
  /** Every item of the app's business tables (consistent scans). */
  businessItems(): Promise<Record<string, unknown>[]>;
  /** Business checks of the app (one result per key), given the runs that happened. */
  verifyApp(handlers: readonly JobHandler[]): Promise<Check[]>;
}

/** A drill's result before formatting. */
export interface DrillObservation {
  /** One line: what actually happened. */
  readonly observed: string;
  readonly checks: readonly Check[];
  /** Jobs whose run records prove the line. */
  readonly jobs: readonly JobHandler[];
}

/** A named failure rehearsal. */
export interface Drill {
  readonly name: string;
  readonly injected: string;
  readonly expected: string;
  run(ctx: DrillContext): Promise<DrillObservation>;
}

/** A finished drill. */
export interface DrillReport {
  readonly name: string;
  readonly injected: string;
  readonly expected: string;
  readonly observed: string;
  readonly pass: boolean;
  readonly checks: readonly Check[];
  readonly evidence: readonly Evidence[];
  /** Every run record of the drill's jobs (the evidence condenses them). */
  readonly records: readonly Record<string, unknown>[];
  /** Injected faults by kind. */
  readonly faults: Readonly<Record<string, number>>;
  readonly recording: Recording;
  readonly durationMs: number;
}
