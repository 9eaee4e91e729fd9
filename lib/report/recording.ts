/**
 * A recording of one drill or history: every runtime decision (RuntimeEvents from the Observer hook),
 * every store request attempt the fault layer saw, and every injected process fault (kill, pause,
 * skew), stamped with TRUE time (virtual time in drills), which the timeline report renders.
 */

import { requestMeta } from '../faults/protocol-ops.js';
import type { FaultRequest, FaultTrace, ProtocolOp } from '../faults/sdk-faults.js';
import type { Observer, RuntimeEvent } from '../runtime/events.js';

/** One recorded entry. */
export type Recorded =
  | { readonly kind: 'runtime'; readonly atMs: number; readonly worker: string; readonly event: RuntimeEvent }
  | {
      readonly kind: 'request';
      readonly atMs: number;
      readonly worker: string;
      readonly op: ProtocolOp;
      readonly table?: string;
      readonly runId?: string;
      readonly fence?: number;
      /** The injected fault that fired on this attempt (rule name and action kind). */
      readonly fault?: { readonly rule: string; readonly action: string };
    }
  | {
      readonly kind: 'process';
      readonly atMs: number;
      readonly worker: string;
      readonly what: 'kill' | 'suspend' | 'skew' | 'deliver' | 'provider-fault';
      readonly detail: string;
    };

/** Everything the timeline needs about one drill or history. */
export interface Recording {
  readonly title: string;
  /** Seed, drill name, budget, ... shown in the header. */
  readonly meta: Record<string, string | number>;
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
      const meta = requestMeta(req.input);
      const table = req.input.TableName;
      this.entries.push({
        kind: 'request',
        atMs: this.now(),
        worker,
        op: req.op,
        ...(typeof table === 'string' && { table }),
        ...meta,
        ...(trace.rule !== undefined && { fault: { rule: trace.rule, action: String(trace.action) } }),
      });
    };
  }

  /** Note a process-level fault or a delivery. */
  process(
    worker: string,
    what: 'kill' | 'suspend' | 'skew' | 'deliver' | 'provider-fault',
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
