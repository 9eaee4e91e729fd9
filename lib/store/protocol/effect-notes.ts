/**
 * What an effect record keeps for a person reading it, beside its transitions: the error of an unknown
 * outcome (`lastError`) and the outcome of a call whose finish was refused (`lateOutcomes`). Declared
 * once like every write of the protocol; neither is on a run's normal path.
 */
import { type EffectItem, EffectStatus, effectItemOf } from '../../core/effects.js';
import { boundText } from '../../core/item-bounds.js';
import type { EffectErrorNote, FenceContext, LateOutcomeUpdate } from '../../core/ports.js';
import { Attr, Keys } from '../schema.js';
import { AppendToList, and, eq, exists } from './expression.js';
import { ProtocolOp, type RequestTag } from './ops.js';
import type { Item, Operation } from './request.js';

/** Which effect: the library table, the job, the idempotency key. */
interface EffectRef {
  readonly table: string;
  readonly job: string;
  readonly key: string;
}

function tag(name: string, ref: EffectRef, fc: FenceContext, op: ProtocolOp): RequestTag {
  return {
    op,
    name,
    table: ref.table,
    key: Keys.effect(ref.job, ref.key),
    runId: fc.runId,
    fence: fc.fence,
  };
}

/** An effect's `lastError`: name, bounded message, when (epoch ms and ISO-8601 UTC). */
export function lastError(name: string, message: string, atMs: number): Item {
  return { name, message: boundText(message), atMs, at: new Date(atMs).toISOString() };
}

/** Record a late outcome. */
export type EffectLateOutcomeInput = EffectRef & {
  readonly fc: FenceContext;
  readonly outcome: LateOutcomeUpdate;
};

/**
 * The outcome of OUR call, after its finish was refused (an operator resolved the effect meanwhile, or
 * a newer holder took it over): appended to `lateOutcomes` whatever the effect's status, fence or run —
 * the call happened, so the record must name its transaction. Changes nothing else. Returns ALL_NEW;
 * refused only when the record is gone (undefined).
 */
export const effectLateOutcome: Operation<EffectLateOutcomeInput, EffectItem | undefined> = {
  name: 'effect-late-outcome',
  request: (e) => {
    const o = e.outcome;
    const entry = {
      runId: e.fc.runId,
      fence: e.fc.fence,
      status: o.status,
      ...(o.status === EffectStatus.Succeeded
        ? { providerRef: boundText(o.providerRef), responseDigest: o.responseDigest }
        : { httpStatus: o.error.httpStatus, message: boundText(o.error.message) }),
      atMs: e.fc.nowMs,
      at: new Date(e.fc.nowMs).toISOString(),
    };
    return {
      // Not a fenced write (it needs no fence and changes no state a run decides on): tagged `other`.
      tag: tag('effect-late-outcome', e, e.fc, ProtocolOp.Other),
      label: `record late outcome of effect ${e.key}`,
      writes: [
        {
          kind: 'update',
          table: e.table,
          key: Keys.effect(e.job, e.key),
          condition: exists(Attr.pk),
          update: { set: { lateOutcomes: new AppendToList('lateOutcomes', [entry]) } },
          returnValues: 'ALL_NEW',
        },
      ],
    };
  },
  accepted: (item) => (item === undefined ? undefined : effectItemOf(item)),
  refused: () => undefined,
};

/** Note an error on an effect. */
export type EffectNoteErrorInput = EffectRef & {
  readonly fc: FenceContext;
  readonly error: EffectErrorNote;
};

/**
 * Keep the error of an unknown outcome as `lastError` on an effect still `sending` under our fence and
 * run (what a person reads in the console). Refused (it moved on meanwhile): nothing to do.
 */
export const effectNoteError: Operation<EffectNoteErrorInput, void> = {
  name: 'effect-note-error',
  request: (e) => ({
    tag: tag('effect-note-error', e, e.fc, ProtocolOp.Effect),
    label: `note error on effect ${e.key}`,
    writes: [
      {
        kind: 'update',
        table: e.table,
        key: Keys.effect(e.job, e.key),
        condition: and(eq('status', EffectStatus.Sending), eq('fence', e.fc.fence), eq('runId', e.fc.runId)),
        update: {
          set: { lastError: lastError(e.error.name, e.error.message, e.fc.nowMs), updatedAtMs: e.fc.nowMs },
        },
      },
    ],
  }),
  accepted: () => undefined,
  refused: () => undefined,
};
