/**
 * `cronfence why`, the table's half (pure): for each occurrence the schedule expects in the range, what
 * its run records and the job's lease item say became of it. An occurrence the table holds nothing of is
 * left `not-recorded`; its verdict comes from AWS's evidence (verdict.ts).
 */
import { doneSlotsFor, type LeaseItem } from '../../lib/core/lease.js';
import { Outcome, Reason, Trigger } from '../../lib/core/outcomes.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import { type AttemptView, DST_GAP, SlotClass, type SlotLine, type WhyRecord } from './model.js';
import { describeSkip } from './skips.js';

/** Input of {@link classifySlots}. */
export interface ClassifyInput {
  /**
   * The occurrences in the range, as the sweeper enumerates them (`enumerateSlots`) but with
   * `dstGap: 'shift'`, so a DST-gap occurrence is listed (`shifted`) whatever the job's policy.
   */
  readonly slots: readonly Slot[];
  /** The job's own DST-gap policy: under `skip` a shifted slot is never delivered. */
  readonly dstGap: 'skip' | 'shift';
  readonly timeZone: string;
  /** The job's run records whose slot ids span the range (any order). */
  readonly records: readonly WhyRecord[];
  /** The job's lease item (its done set and current holder), if any. */
  readonly lease?: LeaseItem;
  /** The range, epoch ms, both ends inclusive: off-schedule records inside it get lines too. */
  readonly fromMs: number;
  readonly toMs: number;
  /** Now, epoch ms (the operator's clock). */
  readonly nowMs: number;
  /** The sweeper's grace after an occurrence before it counts as missed, ms. */
  readonly graceMs: number;
  /** The job's shard count: a sharded occurrence is done when every shard succeeded. @default 1 */
  readonly shards?: number;
  /** The job's catch-up floor (`catchUp.since`), epoch ms. @default none */
  readonly floorMs?: number;
}

const isoOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

function attemptOf(r: WhyRecord): AttemptView {
  return {
    runId: r.runId,
    outcome: r.outcome,
    ...(r.reason !== undefined && { reason: r.reason }),
    ...(r.trigger !== undefined && { trigger: r.trigger }),
    ...(r.fence !== undefined && { fence: r.fence }),
    ...(r.durationMs !== undefined && { durationMs: r.durationMs }),
    ...(r.requestedBy !== undefined && { requestedBy: r.requestedBy }),
    ...(r.error && { error: `${r.error.name ?? 'Error'}: ${r.error.message ?? ''}` }),
  };
}

function counts(records: readonly WhyRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) {
    const k = r.reason && r.outcome !== Outcome.Succeeded ? `${r.outcome}/${r.reason}` : r.outcome;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

const ran = (r: WhyRecord) => `run ${r.runId} succeeded in ${r.durationMs ?? '?'}ms, fence ${r.fence ?? '-'}`;

/** The line of an occurrence that has a `succeeded` record. */
function succeededLine(base: Omit<SlotLine, 'class' | 'verdict'>, r: WhyRecord): SlotLine {
  if (r.trigger === Trigger.Manual)
    return {
      ...base,
      class: SlotClass.Backfilled,
      verdict: `backfilled by ${r.requestedBy ?? '(unknown)'}${r.requestReason ? ` ("${r.requestReason}")` : ''}: ${ran(r)}`,
    };
  if (r.trigger === Trigger.CatchUp)
    return {
      ...base,
      class: SlotClass.CaughtUp,
      verdict: `caught up by the sweeper (${r.requestReason ?? 'missed'}): ${ran(r)}`,
    };
  const others = Object.entries(base.attempts)
    .map(([k, v]) => [k, k === Outcome.Succeeded ? v - 1 : v] as const)
    .filter(([, v]) => v > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${v} ${k}`);
  return {
    ...base,
    class: SlotClass.Succeeded,
    verdict: `ran: ${ran(r)} (${r.trigger ?? Trigger.Schedule})${others.length > 0 ? `; also ${others.join(', ')}` : ''}`,
  };
}

/** The line of an occurrence whose records hold no success: the latest record decides. */
function recordedLine(base: Omit<SlotLine, 'class' | 'verdict'>, last: WhyRecord): SlotLine {
  const run = `run ${last.runId}${last.fence !== undefined ? `, fence ${last.fence}` : ''}`;
  const error = last.error ? `${last.error.name ?? 'Error'}: ${last.error.message ?? ''}` : undefined;
  const withReason = { ...base, ...(last.reason !== undefined && { reason: last.reason }) };
  switch (last.outcome) {
    case Outcome.Stale:
      if (last.reason === Reason.Replaced)
        return {
          ...withReason,
          class: SlotClass.Stale,
          verdict: `stale (replaced): a newer occurrence took the lease from ${run} (overlap replace); its later writes and sends were refused; the sweeper re-runs this slot as unfinished once the lease is free (catch-up runs never replace)`,
        };
      return {
        ...withReason,
        class: SlotClass.Stale,
        verdict: `${last.outcome} (${last.reason ?? '-'}): ${error ?? 'no error recorded'} — ${run}`,
      };
    case Outcome.Failed:
      return {
        ...withReason,
        class: SlotClass.Failed,
        verdict: `${last.outcome} (${last.reason ?? '-'}): ${error ?? 'no error recorded'} — ${run}`,
      };
    case Outcome.Abandoned:
      return {
        ...withReason,
        class: SlotClass.Abandoned,
        verdict: `abandoned (${last.reason ?? Reason.NotReleased}): ${run} never released its lease${
          last.details?.detectedBy ? ` (found by ${String(last.details.detectedBy)})` : ''
        }`,
      };
    case Outcome.Running:
      return {
        ...withReason,
        class: SlotClass.Unfinished,
        verdict: `delivered, unfinished: ${run} is running`,
      };
    default: {
      if (last.reason === Reason.NotOnSchedule)
        return {
          ...withReason,
          class: SlotClass.NotOnSchedule,
          verdict: `delivered but not on the current schedule: recorded skipped/not-on-schedule (${run}); never run`,
        };
      return { ...withReason, class: SlotClass.Skipped, verdict: describeSkip(last) };
    }
  }
}

/** What the lease item says of an occurrence with no record: its holder is running it, or died. */
function leaseLine(base: Omit<SlotLine, 'class' | 'verdict'>, lease: LeaseItem, nowMs: number): SlotLine {
  const until = lease.leaseUntilMs ?? 0;
  const who = `run ${lease.owner ?? '?'} (fence ${lease.fence ?? '-'})`;
  return {
    ...base,
    class: SlotClass.Unfinished,
    verdict:
      until > nowMs
        ? `delivered, unfinished: ${who} holds the lease until ${isoOf(until)}`
        : `delivered, unfinished: ${who} claimed it and its lease ended at ${isoOf(until)} without a record (the next claim or sweep marks it abandoned, and the sweeper catches it up)`,
  };
}

/**
 * One line per occurrence, oldest first, then one per off-schedule delivery recorded in the range.
 * @returns lines; `not-recorded` ones carry a placeholder verdict for verdict.ts to replace.
 */
export function classifySlots(input: ClassifyInput): SlotLine[] {
  const bySlot = new Map<string, WhyRecord[]>();
  for (const r of input.records) bySlot.set(r.slot, [...(bySlot.get(r.slot) ?? []), r]);
  const done = input.lease ? doneSlotsFor(input.lease, undefined) : new Set<string>();
  const lines: SlotLine[] = [];
  for (const slot of input.slots) {
    const records = [...(bySlot.get(slot.id) ?? [])].sort(
      (a, b) => (a.finishedAtMs ?? a.startedAtMs ?? 0) - (b.finishedAtMs ?? b.startedAtMs ?? 0),
    );
    bySlot.delete(slot.id);
    const base = { slot: slot.id, scheduledTime: isoOf(slot.scheduledTimeMs), attempts: counts(records) };
    const unfinishedShards = missingShards(records, input.shards ?? 1);
    const success = unfinishedShards ? undefined : records.find((r) => r.outcome === Outcome.Succeeded);
    const last = unfinishedShards?.last ?? records[records.length - 1];
    const held = input.lease?.slot === slot.id && input.lease.holderState === 'running';
    if (success) lines.push({ ...succeededLine(base, success), attempt: attemptOf(success) });
    else if (done.has(slot.id))
      lines.push({
        ...base,
        class: SlotClass.Succeeded,
        verdict: 'ran: the lease item lists it as succeeded (its run record has expired)',
      });
    else if (held && input.lease) lines.push(leaseLine(base, input.lease, input.nowMs));
    else if (last && unfinishedShards) {
      const missing = `shards ${unfinishedShards.missing.join(',')} of ${unfinishedShards.count} not done`;
      if (last.shard === undefined)
        lines.push({
          ...base,
          class: SlotClass.Unfinished,
          verdict: `delivered, unfinished: fanned out by run ${last.runId}; ${missing} (no record of them yet)`,
          attempt: attemptOf(last),
        });
      else {
        const line = recordedLine(base, last);
        lines.push({
          ...line,
          verdict: `${missing}; shard ${last.shard}: ${line.verdict}`,
          attempt: attemptOf(last),
        });
      }
    } else if (last) lines.push({ ...recordedLine(base, last), attempt: attemptOf(last) });
    else if (slot.shifted && input.dstGap === 'skip')
      lines.push({
        ...base,
        class: SlotClass.Skipped,
        reason: DST_GAP,
        verdict: `skipped: DST gap — ${slot.localTime.slice(11)} does not exist in ${input.timeZone} on ${slot.localTime.slice(0, 10)} (dstGap: skip); Scheduler delivers nothing`,
      });
    else if (slot.scheduledTimeMs > input.nowMs)
      lines.push({ ...base, class: SlotClass.NotDue, verdict: 'not due yet' });
    else if (input.floorMs !== undefined && slot.scheduledTimeMs < input.floorMs)
      lines.push({
        ...base,
        class: SlotClass.BeforeStart,
        verdict: `before the job's start (catchUp.since ${isoOf(input.floorMs)}): not this job's to run`,
      });
    else
      lines.push({
        ...base,
        class: SlotClass.NotRecorded,
        verdict: slot.shifted
          ? `DST gap: ${slot.localTime.slice(11)} does not exist in ${input.timeZone} on ${slot.localTime.slice(0, 10)}; shifted to ${base.scheduledTime}, run by the sweeper (no run recorded yet)`
          : slot.scheduledTimeMs > input.nowMs - input.graceMs
            ? `due at ${base.scheduledTime}, no record yet (within the sweeper's ${Math.round(input.graceMs / 60_000)} min grace)`
            : 'no record',
      });
  }
  // Deliveries the current schedule does not have (a retry of a removed occurrence), inside the range.
  for (const [slot, records] of bySlot) {
    const at = records.map((r) => Date.parse(r.scheduledTime ?? '')).find(Number.isFinite);
    if (at === undefined || at < input.fromMs || at > input.toMs) continue;
    const sorted = [...records].sort((a, b) => (a.startedAtMs ?? 0) - (b.startedAtMs ?? 0));
    const last = sorted[sorted.length - 1] as WhyRecord;
    const base = { slot, scheduledTime: isoOf(at), attempts: counts(sorted) };
    // Without a schedule to enumerate (no job code, no deployed schedule) every recorded slot lands here.
    const success = sorted.find((r) => r.outcome === Outcome.Succeeded);
    if (success) lines.push({ ...succeededLine(base, success), attempt: attemptOf(success) });
    else lines.push({ ...recordedLine(base, last), attempt: attemptOf(last) });
  }
  return lines.sort((a, b) => Date.parse(a.scheduledTime) - Date.parse(b.scheduledTime));
}

/**
 * A sharded occurrence whose shards did not all succeed (under the largest shard count its records were
 * cut for, or the job's): the missing indexes and the latest record of a missing shard.
 */
function missingShards(
  records: readonly WhyRecord[],
  shards: number,
): { missing: number[]; count: number; last: WhyRecord | undefined } | undefined {
  const shardRecords = records.filter((r) => r.shard !== undefined);
  if (shardRecords.length === 0 && shards <= 1) return undefined;
  const count = Math.max(shards, ...shardRecords.map((r) => r.shards ?? 0));
  const done = new Set(shardRecords.filter((r) => r.outcome === Outcome.Succeeded).map((r) => r.shard));
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !done.has(i));
  if (missing.length === 0) return undefined;
  const last = [...shardRecords].reverse().find((r) => missing.includes(r.shard as number));
  return { missing, count, last: last ?? records[records.length - 1] };
}

/** Whether a `not-recorded` line needs AWS's evidence (a DST-shifted or in-grace one does not). */
export function needsEvidence(line: SlotLine): boolean {
  return line.class === SlotClass.NotRecorded && line.verdict === 'no record';
}
