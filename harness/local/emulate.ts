/**
 * The emulated timeline behind `npm start`: EventBridge Scheduler's deliveries (from the same slot
 * enumeration the sweeper uses, so DST behaves as Scheduler does: no delivery for a nonexistent local
 * time, one for a repeated one) with duplicates, and the sweeper run after every occurrence on an
 * emulated clock, its catch-up invocations delivered in-process.
 */
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { type SweepDecision, sweep } from '../../lib/runtime/sweeper.js';
import { ControlledClock } from '../faults/clock.js';
import { type DeliveryResult, deliver, deliveriesFor } from './scheduler-emulator.js';

/** Options of {@link emulate}. */
export interface EmulateOptions {
  readonly fromMs: number;
  readonly toMs: number;
  /** Cap on Scheduler occurrences per job (undefined = all in range). */
  readonly maxPerJob?: number;
  readonly concurrentCopies: number;
  readonly lateCopies: number;
  /** Sweeper grace, ms. @default 600_000 */
  readonly graceMs?: number;
  /**
   * The handlers' clock (the one in their deps): moved to each occurrence's time before it is
   * delivered, and to each sweep's time, so runs see the emulated time as Lambda would. @default none (real time)
   */
  readonly clock?: ControlledClock;
}

/** What the emulation produced. */
export interface EmulateResult {
  readonly summaries: RunSummary[];
  /** Every slot that ran per job (Scheduler-delivered and caught up). */
  readonly slotsByJob: Map<string, Slot[]>;
  readonly sweepDecisions: SweepDecision[];
}

/** Printers for the emulator's lines. */
export interface EmulatePrinter {
  delivery(r: DeliveryResult): void;
  sweep(d: SweepDecision, atMs: number): void;
}

/** Play the timeline. Handlers must already be bound to `deps` (withDeps). */
export async function emulate(
  handlers: readonly JobHandler[],
  deps: RuntimeDeps,
  o: EmulateOptions,
  print: EmulatePrinter,
): Promise<EmulateResult> {
  const summaries: RunSummary[] = [];
  const slotsByJob = new Map<string, Slot[]>();
  const sweepDecisions: SweepDecision[] = [];
  const plan: { handler: JobHandler; slot: Slot }[] = [];
  for (const h of handlers) {
    const all = enumerateSlots(
      { ...h.job, schedule: h.expression, startMs: o.fromMs },
      o.fromMs,
      o.toMs,
    ).filter((s) => !s.shifted);
    const slots = o.maxPerJob === undefined ? all : all.slice(0, o.maxPerJob);
    slotsByJob.set(h.job.name, [...slots]);
    for (const slot of slots) plan.push({ handler: h, slot });
  }
  plan.sort((a, b) => a.slot.scheduledTimeMs - b.slot.scheduledTimeMs);
  const record = (r: DeliveryResult) => {
    print.delivery(r);
    if (r.summary) summaries.push(r.summary);
  };
  const runSweep = async (atMs: number) => {
    o.clock?.setTo(atMs);
    const clock = new ControlledClock(atMs - Date.now());
    const targets = handlers.map((h) => ({
      definition: h.job,
      expression: h.expression,
      startMs: o.fromMs,
      invoke: async (payload: Record<string, unknown>, slot: Slot) => {
        const r = await deliver(h, {
          job: h.job.name,
          scheduledTimeMs: slot.scheduledTimeMs,
          label: 'sweeper',
          extra: payload,
        });
        record(r);
        const slotsOf = slotsByJob.get(h.job.name) ?? [];
        if (!slotsOf.some((s) => s.id === slot.id)) slotsOf.push(slot);
      },
    }));
    const sweepDeps = {
      leases: deps.leases,
      runs: deps.runs,
      clock,
      log: () => undefined,
    };
    const report = await sweep(sweepDeps, targets, o.graceMs ?? 600_000, o.fromMs);
    for (const d of report.decisions) {
      sweepDecisions.push(d);
      print.sweep(d, atMs);
    }
  };
  for (const { handler, slot } of plan) {
    await runSweep(slot.scheduledTimeMs);
    o.clock?.setTo(slot.scheduledTimeMs + 1_000); // Scheduler delivers at (or just after) the slot
    const d = deliveriesFor(handler.job.name, slot.scheduledTimeMs, o.concurrentCopies, o.lateCopies);
    const round1 = await Promise.all(d.concurrent.map((x) => deliver(handler, x)));
    round1.forEach(record);
    for (const x of d.late) record(await deliver(handler, x));
  }
  await runSweep(o.toMs + (o.graceMs ?? 600_000) + 1);
  return { summaries, slotsByJob, sweepDecisions };
}
