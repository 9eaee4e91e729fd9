/**
 * A recording of one drill or history: every runtime decision (RuntimeEvents from the Observer hook),
 * every store request attempt the fault layer saw, and every injected process fault (kill, pause,
 * skew), stamped with TRUE time (virtual time in drills), which the timeline report renders.
 */

import type { Observer, RuntimeEvent } from '../../lib/runtime/events.js';
import type { FaultRequest, FaultTrace, ProtocolOp } from '../faults/sdk-faults.js';

/** One recorded entry. */
export type Recorded =
  | { readonly kind: 'runtime'; readonly atMs: number; readonly worker: string; readonly event: RuntimeEvent }
  | {
      readonly kind: 'request';
      readonly atMs: number;
      readonly worker: string;
      readonly op: ProtocolOp;
      /** Low-level command, e.g. `UpdateItemCommand`. */
      readonly command: string;
      readonly table?: string;
      /** The item's key, JSON. */
      readonly key?: string;
      readonly runId?: string;
      readonly fence?: number;
      /** The injected fault that fired on this attempt (rule name and action kind). */
      readonly fault?: { readonly rule: string; readonly action: string };
    }
  | {
      /** A store attempt came back: `ok`, `lost` (applied, response lost) or the error name. */
      readonly kind: 'result';
      readonly atMs: number;
      readonly worker: string;
      readonly op: ProtocolOp;
      readonly table?: string;
      /** The item's key, JSON. */
      readonly key?: string;
      readonly runId?: string;
      readonly fence?: number;
      readonly result: string;
    }
  | {
      readonly kind: 'process';
      readonly atMs: number;
      readonly worker: string;
      readonly what:
        | 'kill'
        | 'suspend'
        | 'skew'
        | 'deliver'
        | 'provider-fault'
        | 'pause'
        | 'resume'
        | 'sigterm';
      readonly detail: string;
    };

/** Everything the timeline needs about one drill or history. */
export interface Recording {
  readonly title: string;
  /** Seed, drill name, budget, ... shown in the header. */
  readonly meta: Record<string, string | number>;
  /**
   * The job's IANA zone: the axis and the event list show each instant in it beside UTC.
   * @default UTC only
   */
  readonly timeZone?: string;
  readonly entries: readonly Recorded[];
}

/** Collects entries; hand its `observer(worker)` and `onRequest(worker)` to a worker's deps and injector. */
export class Recorder {
  readonly entries: Recorded[] = [];

  /** @param now true time, epoch ms */
  constructor(private readonly now: () => number) {}

  /** An Observer for a worker's RuntimeDeps. */
  observer(worker: string): Observer {
    return (event) => {
      this.entries.push({ kind: 'runtime', atMs: this.now(), worker, event });
    };
  }

  /** A FaultInjector `onRequest` hook for a worker. */
  onRequest(worker: string): (req: FaultRequest & { op: ProtocolOp }, trace: FaultTrace) => void {
    return (req, trace) => {
      this.entries.push({
        kind: 'request',
        atMs: this.now(),
        worker,
        op: req.op,
        command: req.command,
        ...requestTarget(req),
        ...(trace.rule !== undefined && { fault: { rule: trace.rule, action: String(trace.action) } }),
      });
    };
  }

  /** A FaultInjector `onResult` hook for a worker. */
  onResult(worker: string): (req: FaultRequest & { op: ProtocolOp }, result: string) => void {
    return (req, result) => {
      this.entries.push({
        kind: 'result',
        atMs: this.now(),
        worker,
        op: req.op,
        ...requestTarget(req),
        result,
      });
    };
  }

  /** Note a process-level fault or a delivery. */
  process(
    worker: string,
    what: 'kill' | 'suspend' | 'skew' | 'deliver' | 'provider-fault' | 'sigterm',
    detail: string,
  ): void {
    this.entries.push({ kind: 'process', atMs: this.now(), worker, what, detail });
  }

  /** The recording so far. */
  recording(title: string, meta: Record<string, string | number> = {}): Recording {
    return { title, meta, entries: [...this.entries] };
  }

  /** Runtime events of one type. */
  events<T extends RuntimeEvent['type']>(type: T): Extract<RuntimeEvent, { type: T }>[] {
    return this.entries.flatMap((e) =>
      e.kind === 'runtime' && e.event.type === type ? [e.event as Extract<RuntimeEvent, { type: T }>] : [],
    );
  }
}

/**
 * Table, key (canonical JSON), run id and fence of a request: from its declared tag, else (requests
 * the protocol did not send) the input's `TableName` and `Key`.
 */
function requestTarget(req: FaultRequest): { table?: string; key?: string; runId?: string; fence?: number } {
  const t = req.tag;
  if (t) {
    return {
      table: t.table,
      key: canonicalKey(t.key),
      ...(t.runId !== undefined && { runId: t.runId }),
      ...(t.fence !== undefined && { fence: t.fence }),
    };
  }
  const { TableName, Key } = req.input as { TableName?: unknown; Key?: Record<string, unknown> };
  return {
    ...(typeof TableName === 'string' && { table: TableName }),
    ...(Key && { key: canonicalKey(Key) }),
  };
}

function canonicalKey(key: Record<string, unknown>): string {
  const plain = Object.entries(key).map(([k, v]) => {
    const a = v as { S?: string; N?: string };
    return [k, typeof v === 'object' && v !== null ? (a.S ?? (a.N !== undefined ? Number(a.N) : v)) : v];
  });
  return JSON.stringify(plain.sort(([a], [b]) => String(a).localeCompare(String(b))));
}
