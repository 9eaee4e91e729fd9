/**
 * The runtime's decisions as span events on their attempt (lib/runtime/events.ts): skips and waits
 * for a quiet holder (`cronfence.skip`), refusals (`cronfence.refusal`: a stale fence, an event not on
 * the schedule), lease renewals, abandoned marks, and effect transitions on the effect's own span.
 */
import type { Attributes } from '@opentelemetry/api';
import type { Observer, RuntimeEvent } from '../events.js';
import { Attr, defined, EventName } from './attributes.js';
import type { OccurrenceTracing } from './occurrence-tracing.js';

/** Reasons of a `claim-lost` that are refusals of the event itself, not skips of a held lease. */
const REFUSALS: readonly string[] = ['not-on-schedule'];

/** The span event of a decision, or none (the claim, record and finish have spans of their own). */
function eventOf(e: RuntimeEvent): { name: string; attributes: Attributes } | undefined {
  switch (e.type) {
    case 'claim-lost':
      return {
        name: REFUSALS.includes(e.reason) ? EventName.Refusal : EventName.Skip,
        attributes: defined({
          [Attr.Reason]: e.reason,
          [Attr.HolderRunId]: e.holderRunId,
          [Attr.LeaseUntilMs]: e.leaseUntilMs,
          [Attr.WaitMs]: e.waitMs,
        }),
      };
    case 'stale-write-rejected':
      return {
        name: EventName.Refusal,
        attributes: defined({
          [Attr.Reason]: 'stale-fence',
          [Attr.Target]: e.target,
          [Attr.StoredFence]: e.storedFence,
        }),
      };
    case 'renew':
      return {
        name: EventName.Renew,
        attributes: defined({ ok: e.ok, [Attr.LeaseUntilMs]: e.leaseUntilMs, [Attr.Note]: e.error }),
      };
    case 'abandoned-marked':
      return {
        name: EventName.AbandonedMarked,
        attributes: { [Attr.HolderRunId]: e.abandonedRunId, [Attr.Slot]: e.abandonedSlot },
      };
    default:
      return undefined;
  }
}

/** An observer that passes every event on to `next` and adds it to its attempt's spans. Never throws. */
export function tracedObserver(t: OccurrenceTracing, next: Observer | undefined): Observer {
  return (e) => {
    next?.(e);
    try {
      const a = t.attempt({ runId: e.runId, slot: e.slot, trigger: e.trigger });
      if (!a || a.ended) return;
      if (e.type === 'effect-transition') {
        const span = a.effects.get(e.key) ?? a.span;
        span.addEvent(
          EventName.EffectTransition,
          defined({
            [Attr.EffectKey]: e.key,
            [Attr.EffectFrom]: e.from,
            [Attr.EffectTo]: e.to,
            [Attr.Note]: e.note,
          }),
          e.atMs,
        );
        return;
      }
      const ev = eventOf(e);
      if (ev) a.span.addEvent(ev.name, ev.attributes, e.atMs);
    } catch {
      // tracing must never break a run
    }
  };
}
