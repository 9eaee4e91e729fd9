/**
 * Decisions the runtime reports as they happen (one per protocol step), for structured logs and
 * metrics (lib/runtime/observability.ts) and for drills' timelines. Every event names job, slot and runId.
 */
import type { RunSummary } from './run-summary.js';

/** Fields every runtime event carries. */
export interface EventBase {
  readonly job: string;
  readonly slot: string;
  readonly runId: string;
  readonly trigger: string;
  readonly fence?: number;
  readonly shard?: number;
  /** When it happened by the run's clock, epoch ms. */
  readonly atMs: number;
}

/** A runtime decision. */
export type RuntimeEvent =
  | (EventBase & {
      readonly type: 'claim-won';
      readonly leaseUntilMs: number;
      readonly ownWrite: boolean;
      readonly previousRunId?: string;
    })
  | (EventBase & {
      readonly type: 'claim-lost';
      readonly reason: string;
      readonly holderRunId?: string;
      readonly leaseUntilMs?: number;
      /** Set when the claimer waits for a quiet holder's lease to end and claims again, ms. */
      readonly waitMs?: number;
    })
  | (EventBase & {
      readonly type: 'abandoned-marked';
      readonly abandonedRunId: string;
      readonly abandonedSlot: string;
    })
  | (EventBase & {
      readonly type: 'renew';
      readonly ok: boolean;
      readonly leaseUntilMs: number;
      readonly error?: string;
    })
  | (EventBase & {
      readonly type: 'stale-write-rejected';
      readonly storedFence?: number;
      readonly target: string;
    })
  | (EventBase & {
      readonly type: 'effect-transition';
      readonly key: string;
      readonly from: string;
      readonly to: string;
      readonly note?: string;
    })
  /**
   * The run is about to write its record with this outcome: the observer publishes a problem's metric
   * here, before the write, so a Lambda timeout between the record and the `finish` cannot leave a
   * problem record no alarm counted.
   */
  | (EventBase & { readonly type: 'recording'; readonly outcome: string; readonly reason?: string })
  | (EventBase & { readonly type: 'finish'; readonly summary: RunSummary });

/** A subscriber to runtime events. Must not throw (errors are swallowed). */
export type Observer = (event: RuntimeEvent) => void;

/** Omit over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event without the common fields (the session adds them). */
export type RuntimeEventBody = DistributiveOmit<RuntimeEvent, keyof EventBase>;

/** Deliver an event to an observer, if any; an observer's error never breaks a run. */
export function notify(observe: Observer | undefined, event: RuntimeEventBody, base: EventBase): void {
  if (!observe) return;
  try {
    observe({ ...base, ...event } as RuntimeEvent);
  } catch {
    // observers must not break runs
  }
}
