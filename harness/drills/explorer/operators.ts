/**
 * The `operator-race` shape: operators act on the settle job while its runs are live and while other
 * operators act — `resolve` (an effect, as `cronfence effects resolve` does: read the record, check the
 * provider, think, write conditioned on what was read; a `not-executed` resolution is followed by a
 * manual re-run), `pause` then `resume`, `trigger` (one manual run) and `backfill` (manual runs of two
 * slots, one after the other), each refused while a live run holds the lease, and for a slot before the
 * job's start (`catchUp.since`: the scheduler the job replaced may have paid it), as the CLI refuses them
 * (`beforeStartRefusal`; operators here never pass `--before-start`).
 * Operators are honest: they resolve `succeeded` what the provider executed, `not-executed` only what it
 * did not, and never touch a `sending` effect whose holder's lease ended (the runs reconcile it).
 */
import fc from 'fast-check';
import { EffectStatus } from '../../../lib/core/effects.js';
import type { EffectStore } from '../../../lib/core/ports.js';
import { beforeStartRefusal } from '../../../lib/core/schedule/catch-up.js';
import { instantSlotId } from '../../../lib/core/schedule/slot.js';
import type { JobHandler } from '../../../lib/runtime/define-job.js';
import type { TablePauseStore } from '../../../lib/store/pause-store.js';
import { leaseVersion, liveHolder } from '../../../lib/store/protocol/pause-operations.js';
import type { Stage, Worker } from '../stage.js';
import { ROWS_PER_SLOT, SLOT_MINUTES } from './jobs.js';
import type { SimProvider } from './provider.js';

/** One operator action. */
export interface OperatorAction {
  readonly kind: 'resolve' | 'pause' | 'trigger' | 'backfill';
  /** True time after the history's start, ms. */
  readonly atMs: number;
  /** Settle slot index. */
  readonly slot: number;
  /** Row of the slot whose effect a resolve settles. */
  readonly row: number;
  /** Between the read the operator is shown and the write, ms. */
  readonly thinkMs: number;
  /** A pause lasts this long before its resume, ms. */
  readonly pauseMs: number;
}

/** The shape's parameters. */
export interface OperatorRace {
  readonly actions: readonly OperatorAction[];
  /** The provider's latency in these histories (a call stays in flight this long), ms. */
  readonly latencyMs: number;
  /** These provider calls (1-based) execute and lose their response, besides the history's own. */
  readonly dropResponses: readonly number[];
  /** These provider calls fail before executing (outcome unknown to the run). */
  readonly failBeforeExecution: readonly number[];
}

/** The arbitrary of {@link OperatorRace} over `maxSlots` slots. */
export function operatorRaceArbitrary(maxSlots: number): fc.Arbitrary<OperatorRace> {
  const kind = fc.constantFrom(
    'resolve' as const,
    'resolve' as const,
    'resolve' as const,
    'pause' as const,
    'trigger' as const,
    'backfill' as const,
  );
  const action = fc.record({
    kind,
    slot: fc.nat({ max: maxSlots - 1 }),
    // after the slot is due (operators re-run due slots only), while its runs may still be live
    afterSlotMs: fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 1_200_000 })),
    row: fc.nat({ max: ROWS_PER_SLOT - 1 }),
    thinkMs: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 0, max: 5_000 }),
      fc.integer({ min: 20_000, max: 120_000 }),
    ),
    pauseMs: fc.integer({ min: 1_000, max: 600_000 }),
    // a second operator, paged for the same alert, does the same a little later
    twinMs: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined, freq: 2 }),
  });
  return fc
    .record({
      actions: fc.array(action, { minLength: 1, maxLength: 5 }),
      latencyMs: fc.oneof(fc.constant(40), fc.integer({ min: 500, max: 3_000 })),
      dropResponses: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
      failBeforeExecution: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }),
    })
    .map(({ actions, latencyMs, dropResponses, failBeforeExecution }) => ({
      latencyMs,
      dropResponses,
      failBeforeExecution: failBeforeExecution.filter((n) => !dropResponses.includes(n)),
      actions: actions.flatMap(({ afterSlotMs, twinMs, ...a }) => {
        const one = { ...a, atMs: a.slot * SLOT_MINUTES * 60_000 + afterSlotMs };
        return twinMs === undefined ? [one] : [one, { ...one, atMs: one.atMs + twinMs }];
      }),
    }));
}

/** What an operator did, for the invariants and the report. */
export interface OperatorEntry {
  readonly kind: OperatorAction['kind'] | 'resume';
  readonly key?: string;
  readonly as?: string;
  /** True time the write was sent and answered, ms. */
  readonly sentAtMs: number;
  readonly doneAtMs: number;
  /** `accepted`, `refused <ErrorName>` or `skipped <why>`. */
  readonly result: string;
}

/** The time span of the latest operator action (its think time, pause and re-runs included), ms. */
export function operatorSpanMs(race: OperatorRace, maxSlot: number): number {
  const slotMs = SLOT_MINUTES * 60_000;
  return Math.max(0, ...race.actions.map((a) => a.atMs + (maxSlot + 2) * slotMs + 2 * a.thinkMs + a.pauseMs));
}

/** Where operators act. */
export interface OperatorDesk {
  readonly stage: Stage;
  readonly worker: Worker;
  readonly effects: EffectStore;
  readonly pauses: TablePauseStore;
  readonly provider: SimProvider;
  readonly settle: JobHandler;
  readonly startMs: number;
  /** The settle slots the history delivers: operators act on these (an alert names a real slot). */
  readonly slots: readonly number[];
  /** The deployed settle job's catch-up (its `sinceMs` is the start manual runs may not reach before). */
  readonly catchUp?: { readonly sinceMs?: number };
  readonly log: OperatorEntry[];
}

const errorName = (err: unknown) => `refused ${(err as Error)?.name ?? 'error'}`;

/** Schedule every action of `race` on the stage (each runs on the operator worker's clock). */
export function scheduleOperators(race: OperatorRace, d: OperatorDesk): void {
  const job = d.settle.job.name;
  const now = () => d.stage.time.nowMs;
  const think = (ms: number) => d.worker.clock.sleep(ms);
  const entry = (e: Omit<OperatorEntry, 'doneAtMs'>) => d.log.push({ ...e, doneAtMs: now() });
  /** A manual run of `slot`, unless it is before the job's start or a live run holds the lease (the CLI's refusals). */
  const manualRun = async (slot: number, label: string): Promise<void> => {
    const scheduledTimeMs = d.startMs + slot * SLOT_MINUTES * 60_000;
    if (beforeStartRefusal(d.catchUp, [{ id: instantSlotId(scheduledTimeMs), scheduledTimeMs }])) {
      entry({ kind: 'trigger', sentAtMs: now(), result: 'refused BeforeStart' });
      return;
    }
    const lease = await d.pauses.lease(job).catch(() => undefined);
    const sentAtMs = now();
    if (liveHolder(lease, d.worker.clock.now())) {
      entry({ kind: 'trigger', sentAtMs, result: 'refused LeaseBusyError' });
      return;
    }
    entry({ kind: 'trigger', sentAtMs, result: 'accepted' });
    await d.stage.deliver({
      worker: d.worker,
      handler: d.settle,
      job,
      scheduledTimeMs,
      label: `operator ${label} settle#${slot}`,
      extra: { trigger: 'manual', requestedBy: 'operator', reason: label },
    });
  };
  const keyOf = (a: OperatorAction) =>
    `pay#${instantSlotId(d.startMs + a.slot * SLOT_MINUTES * 60_000)}#${a.row}`;
  /** `cronfence effects resolve`: read, check the provider, think, write conditioned on the read. */
  const resolve = async (a: OperatorAction, { rerunFirst }: { rerunFirst: boolean }): Promise<void> => {
    const key = keyOf(a);
    const item = await d.effects.get(key).catch(() => undefined);
    if (item?.status !== EffectStatus.NeedsReview && item?.status !== EffectStatus.Sending) return;
    // What the operator is shown (`:in-flight` while the run holds a live lease), then the provider.
    const { version, lease } = await d.effects.shown(item, d.worker.clock.now());
    const executed = d.provider.executions.some((e) => e.key === key);
    // A stuck `sending` effect whose run's lease ended: a re-run reconciles it (marks it
    // needs-review), then the operator resolves that.
    if (item.status === EffectStatus.Sending && !executed && lease === undefined) {
      if (rerunFirst) {
        await manualRun(a.slot, 're-run of a stuck effect');
        await resolve(a, { rerunFirst: false });
      }
      return;
    }
    const as = executed ? EffectStatus.Succeeded : 'not-executed';
    await think(a.thinkMs);
    const sentAtMs = now();
    try {
      await d.effects.resolve({
        key,
        as: as as 'not-executed',
        note: 'checked the provider',
        by: 'operator',
        nowMs: d.worker.clock.now(),
        expect: version,
      });
      entry({ kind: 'resolve', key, as, sentAtMs, result: 'accepted' });
      if (as === 'not-executed') await manualRun(a.slot, 're-run after review');
    } catch (err) {
      entry({ kind: 'resolve', key, as, sentAtMs, result: errorName(err) });
    }
  };
  const pauseThenResume = async (a: OperatorAction): Promise<void> => {
    const shown = leaseVersion(await d.pauses.lease(job).catch(() => undefined));
    await think(a.thinkMs);
    const sentAtMs = now();
    try {
      await d.pauses.pause({
        job,
        shards: 1,
        by: 'operator',
        note: 'explorer',
        nowMs: d.worker.clock.now(),
        expect: shown,
      });
      entry({ kind: 'pause', sentAtMs, result: 'accepted' });
    } catch (err) {
      entry({ kind: 'pause', sentAtMs, result: errorName(err) });
      return;
    }
    await think(a.pauseMs);
    const item = await d.pauses.lease(job);
    const resumedAtMs = now();
    try {
      if (item?.pausedAtMs === undefined) throw new Error('not paused');
      await d.pauses.resume({
        job,
        shards: 1,
        pausedAtMs: item.pausedAtMs,
        ...(item.fence !== undefined && { fence: item.fence }),
      });
      entry({ kind: 'resume', sentAtMs: resumedAtMs, result: 'accepted' });
    } catch (err) {
      entry({ kind: 'resume', sentAtMs: resumedAtMs, result: errorName(err) });
    }
  };
  for (const generated of race.actions) {
    const slot = d.slots.length ? (d.slots[generated.slot % d.slots.length] as number) : generated.slot;
    const a = { ...generated, slot, atMs: generated.atMs + (slot - generated.slot) * SLOT_MINUTES * 60_000 };
    d.stage.time.schedule(a.atMs, () => {
      const act =
        a.kind === 'resolve'
          ? resolve(a, { rerunFirst: true })
          : a.kind === 'pause'
            ? pauseThenResume(a)
            : a.kind === 'trigger'
              ? manualRun(a.slot, 'trigger')
              : manualRun(Math.max(0, a.slot - 1), 'backfill').then(() => manualRun(a.slot, 'backfill'));
      void act.catch(() => undefined);
    });
  }
}
