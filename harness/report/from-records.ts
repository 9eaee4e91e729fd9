/**
 * The timeline of REAL runs (`cronfence report`): a {@link Recording} rebuilt from what the table
 * keeps — run records (claims, fences, outcomes, skips with reasons, refused stale writes, abandon
 * marks, pauses named on `skipped / paused` records and `pauseOnFailure` records), the job's lease item
 * (the pause in force) and its effect records (pending → sending → final) — so the drills' renderer
 * (timeline.ts) draws it. Times are the records' own (each run's clock). Pure.
 */
import type { JobDefinition } from '../../lib/core/job-definition.js';
import type { LeaseItem } from '../../lib/core/lease.js';
import type { Outcome, Reason, Trigger } from '../../lib/core/outcomes.js';
import type { RuntimeEvent } from '../../lib/runtime/events.js';
import type { Recorded, Recording } from './recording.js';

type Item = Record<string, unknown>;

/** Who delivered a run, as the lane's worker label: trigger, attempt, requester. */
function workerOf(r: Item): string {
  const t = String(r.trigger ?? 'schedule');
  if (t === 'manual') return `manual:${String(r.requestedBy ?? '?')}`.slice(0, 24);
  if (r.shard !== undefined) return `${t}#s${String(r.shard)}`;
  return r.attemptNumber !== undefined && Number(r.attemptNumber) > 1 ? `${t}#${String(r.attemptNumber)}` : t;
}

/**
 * Build the recording of `job` from its records.
 * @param runs the job's run records in the range; @param effects its effect records; @param lease its lease item.
 */
export function recordingFromRecords(input: {
  readonly definition: JobDefinition;
  readonly runs: readonly Item[];
  readonly effects: readonly Item[];
  readonly lease: LeaseItem | undefined;
  readonly title: string;
  readonly meta: Record<string, string | number>;
}): Recording {
  const job = input.definition.name;
  const leaseMs = input.definition.lease.durationSeconds * 1000;
  const entries: Recorded[] = [];
  const runtime = (atMs: number, worker: string, event: RuntimeEvent) =>
    entries.push({ kind: 'runtime', atMs, worker, event });
  const pauses = new Map<string, { atMs: number; text: string }>();
  for (const r of input.runs) {
    const worker = workerOf(r);
    const base = {
      job,
      slot: String(r.slot),
      runId: String(r.runId),
      trigger: String(r.trigger ?? 'schedule'),
      ...(r.fence !== undefined && { fence: Number(r.fence) }),
      ...(r.shard !== undefined && { shard: Number(r.shard) }),
    };
    const outcome = String(r.outcome) as Outcome;
    const reason = r.reason === undefined ? undefined : (String(r.reason) as Reason);
    const details = (r.details ?? {}) as Item;
    const startedAtMs = Number(r.startedAtMs ?? r.finishedAtMs ?? 0);
    const finishedAtMs = Number(r.finishedAtMs ?? startedAtMs);
    if (outcome === 'abandoned') {
      // The mark is written by whoever found the dead holder; the holder's own claim is before its lease end.
      const untilMs = Number(details.leaseUntilMs ?? startedAtMs);
      const claimedAtMs = Math.min(untilMs - leaseMs, startedAtMs);
      runtime(claimedAtMs, worker, {
        ...base,
        type: 'claim-won',
        atMs: claimedAtMs,
        leaseUntilMs: untilMs,
        ownWrite: false,
      });
      runtime(startedAtMs, String(details.detectedBy ?? 'sweeper').slice(-12), {
        ...base,
        type: 'abandoned-marked',
        atMs: startedAtMs,
        abandonedRunId: String(r.runId),
        abandonedSlot: String(r.slot),
      });
      continue;
    }
    if (outcome === 'skipped' || r.fence === undefined) {
      runtime(startedAtMs, worker, {
        ...base,
        type: 'claim-lost',
        atMs: startedAtMs,
        reason: String(reason ?? outcome),
      });
    } else {
      runtime(startedAtMs, worker, {
        ...base,
        type: 'claim-won',
        atMs: startedAtMs,
        leaseUntilMs: Math.max(finishedAtMs, startedAtMs + 1),
        ownWrite: false,
      });
    }
    if (reason === 'stale-fence')
      runtime(finishedAtMs, worker, {
        ...base,
        type: 'stale-write-rejected',
        atMs: finishedAtMs,
        target: String((r.error as Item | undefined)?.message ?? 'protected write'),
      });
    const pause = details.pause as { by?: string; atMs?: number; note?: string } | undefined;
    if (pause?.atMs !== undefined)
      pauses.set(`${pause.atMs}`, {
        atMs: Number(pause.atMs),
        text: `paused by ${String(pause.by)}: ${String(pause.note)}`,
      });
    const pausedJob = details.pausedJob as { note?: string } | undefined;
    if (pausedJob)
      pauses.set(`${finishedAtMs}`, {
        atMs: finishedAtMs,
        text: `paused by pauseOnFailure: ${String(pausedJob.note)}`,
      });
    runtime(finishedAtMs, worker, {
      ...base,
      type: 'finish',
      atMs: finishedAtMs,
      summary: {
        job,
        slot: String(r.slot),
        scheduledTime: String(r.scheduledTime ?? ''),
        trigger: String(r.trigger ?? 'schedule') as Trigger,
        runId: String(r.runId),
        outcome,
        ...(reason && { reason }),
        ...(r.fence !== undefined && { fence: Number(r.fence) }),
        durationMs: finishedAtMs - startedAtMs,
      },
    });
  }
  for (const e of input.effects) {
    const steps: [number | undefined, string, string][] = [
      [Number(e.createdAtMs), '-', 'pending'],
      [e.sendingAtMs === undefined ? undefined : Number(e.sendingAtMs), 'pending', 'sending'],
      [e.finishedAtMs === undefined ? undefined : Number(e.finishedAtMs), 'sending', String(e.status)],
    ];
    for (const [atMs, from, to] of steps) {
      if (atMs === undefined || Number.isNaN(atMs)) continue;
      runtime(atMs, 'effect', {
        job,
        slot: '',
        runId: String(e.runId),
        trigger: 'effect',
        fence: Number(e.fence),
        atMs,
        type: 'effect-transition',
        key: String(e.key ?? ''),
        from,
        to,
      });
    }
  }
  if (input.lease?.pausedAtMs !== undefined) {
    const l = input.lease;
    pauses.set(`${l.pausedAtMs}`, {
      atMs: Number(l.pausedAtMs),
      text: `paused by ${String(l.pausedBy)}: ${String(l.pauseNote)} (in force on the lease now${l.pausedUntilMs ? `, until ${new Date(l.pausedUntilMs).toISOString()}` : ''})`,
    });
  }
  for (const p of pauses.values())
    entries.push({ kind: 'process', atMs: p.atMs, worker: 'operator', what: 'pause', detail: p.text });
  entries.sort((a, b) => a.atMs - b.atMs);
  return { title: input.title, meta: input.meta, entries };
}
