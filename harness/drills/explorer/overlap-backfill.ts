/**
 * Operator backfills of the settle job under an overlap shape: a range of past slots re-run as manual
 * events, slot by slot in one lane (as `backfillJob` sends them: the next slot once the previous one is
 * done), arriving at a time of the history's choosing — often while the settle job's first holder is
 * live or stuck — and, for a duplicated delivery, the same backfill sent twice (a second lane a little
 * later, on another environment). A range of one slot is an operator's trigger. The backfill's lease
 * check (backfill-guard.ts) is a read before the sends, so a holder that claims right after it is
 * the case modelled here: every event reaches the handler, whose claim decides under the policy.
 */
import fc from 'fast-check';
import type { Worker } from '../stage.js';
import type { HistoryDelivery } from './history.js';
import { SLOT_MINUTES } from './jobs.js';
import type { LambdaEvent } from './lambda-model.js';

const SLOT_MS = SLOT_MINUTES * 60_000;

/** `requestedBy` of the explorer's backfill runs. */
export const BACKFILL_BY = 'explorer-backfill';

/** One backfill of the settle job in a history. */
export interface BackfillSpec {
  /** First slot index of the range (cut to the slots past when it arrives). */
  readonly fromSlot: number;
  /** Slots in the range (1: a trigger). */
  readonly count: number;
  /**
   * When the backfill arrives: `offsetMs` after the history's first settle delivery (`first-settle`: while
   * that run holds the lease, or is stuck), or after the history's start (`start`).
   */
  readonly anchor: 'first-settle' | 'start';
  readonly offsetMs: number;
  /** The environment of the first lane. */
  readonly worker: number;
  /** A duplicated delivery: the same backfill sent again this long after the first, ms. */
  readonly duplicateAfterMs?: number;
}

/** The arbitrary of a history's backfill (about one overlap history in two has one). */
export const backfillArbitrary: fc.Arbitrary<BackfillSpec | undefined> = fc.option(
  fc
    .record({
      fromSlot: fc.nat({ max: 11 }),
      count: fc.integer({ min: 1, max: 4 }),
      anchor: fc.constantFrom<'first-settle' | 'start'>('first-settle', 'first-settle', 'start'),
      offsetMs: fc.integer({ min: 1_000, max: 12 * SLOT_MS }),
      worker: fc.nat({ max: 7 }),
      duplicateAfterMs: fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: undefined, freq: 2 }),
    })
    .map(
      (b): BackfillSpec => ({
        fromSlot: b.fromSlot,
        count: b.count,
        anchor: b.anchor,
        offsetMs: b.anchor === 'first-settle' ? Math.min(b.offsetMs, 2 * SLOT_MS) : b.offsetMs,
        worker: b.worker,
        ...(b.duplicateAfterMs !== undefined && { duplicateAfterMs: b.duplicateAfterMs }),
      }),
    ),
  { nil: undefined, freq: 2 },
);

/** What {@link sendBackfill} needs of the history being run. */
export interface BackfillStage {
  readonly startMs: number;
  /** The history's deliveries (the first settle one anchors a `first-settle` backfill). */
  readonly deliveries: readonly Pick<HistoryDelivery, 'job' | 'slot' | 'delayMs'>[];
  readonly workers: readonly Worker[];
  /** Sends one event and resolves when Lambda is done with it (lambda-model.ts `send`). */
  send(e: Omit<LambdaEvent, 'handler'>, delayMs: number): Promise<void>;
}

/** The slot indexes a backfill runs, in slot order: its range cut to the slots past at `atMs`. */
export function backfillSlots(b: BackfillSpec, atMs: number): number[] {
  const lastPast = Math.floor(atMs / SLOT_MS);
  const from = Math.min(b.fromSlot, lastPast);
  const slots: number[] = [];
  for (let k = from; k < from + b.count && k <= lastPast; k++) slots.push(k);
  return slots;
}

/** When the backfill arrives, ms after the history's start. */
export function backfillAtMs(b: BackfillSpec, firstSettleAtMs: number | undefined): number {
  return b.anchor === 'first-settle' && firstSettleAtMs !== undefined
    ? firstSettleAtMs + b.offsetMs
    : b.offsetMs;
}

/** When the first settle delivery arrives, ms after the start; undefined without one. */
function firstSettleAtMs(deliveries: BackfillStage['deliveries']): number | undefined {
  const at = deliveries.filter((d) => d.job === 'settle').map((d) => d.slot * SLOT_MS + d.delayMs);
  return at.length > 0 ? Math.min(...at) : undefined;
}

/**
 * Send the backfill's lanes (one, or two for a duplicated delivery); they run on their own.
 * @returns when the last lane starts, ms after the history's start (the history runs at least that long).
 */
export function sendBackfill(b: BackfillSpec | undefined, stage: BackfillStage): number {
  if (!b || stage.workers.length === 0) return 0;
  const atMs = backfillAtMs(b, firstSettleAtMs(stage.deliveries));
  const slots = backfillSlots(b, atMs);
  const lanes = [{ copy: 0, atMs, worker: b.worker }];
  if (b.duplicateAfterMs !== undefined)
    lanes.push({ copy: 1, atMs: atMs + b.duplicateAfterMs, worker: b.worker + 1 });
  const kind = slots.length === 1 ? 'trigger' : 'backfill';
  const lane = async (l: (typeof lanes)[number]) => {
    for (const [i, k] of slots.entries()) {
      const scheduledTimeMs = stage.startMs + k * SLOT_MS;
      await stage.send(
        {
          scheduledTimeMs,
          requestId: `bf${l.copy}-settle-${k}`,
          label: `${kind}${l.copy ? ' (duplicate)' : ''} settle#${k}`,
          extra: {
            trigger: 'manual',
            requestedBy: BACKFILL_BY,
            reason: `explorer ${kind}`,
            executionId: 'backfill-explorer',
          },
          worker: () => stage.workers[l.worker % stage.workers.length] as Worker,
        },
        // The first event waits for the backfill's arrival; each next one follows the previous run.
        i === 0 ? l.atMs : 200,
      );
    }
  };
  for (const l of lanes) void lane(l);
  return Math.max(...lanes.map((l) => l.atMs));
}
