/**
 * The timeline of REAL runs (`cronfence report`): a {@link Recording} rebuilt from what the table
 * keeps — run records (claims, fences, outcomes, skips with reasons, refused stale writes, abandon
 * marks, pauses named on `skipped / paused` records and `pauseOnFailure` records, errors), the job's
 * lease item (the pause in force, the latest resume) and its effect records (born `sending`, taken
 * over, final; each transition in the lane of the run that made it) — so the drills' renderer
 * (timeline.ts) draws it, on the job's zone. Times are the records' own (each run's clock). Pure.
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
  /** When each run held the lease, by its own record: effect transitions are drawn in that run's lane. */
  const held: { runId: string; fromMs: number; toMs: number }[] = [];
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
      // The mark is written by whoever found the dead holder, when it found it (`detectedAtMs`; older
      // marks: their start). Its `startedAtMs` is the holder's claim when the lease item kept it (then
      // before the detection); else the claim is estimated as one lease before the lease's end.
      const detectedAtMs = Number(details.detectedAtMs ?? startedAtMs);
      const untilMs = Number(details.leaseUntilMs ?? detectedAtMs);
      const claimedAtMs =
        startedAtMs < detectedAtMs ? startedAtMs : Math.min(untilMs - leaseMs, detectedAtMs);
      held.push({ runId: String(r.runId), fromMs: claimedAtMs, toMs: untilMs });
      runtime(claimedAtMs, worker, {
        ...base,
        type: 'claim-won',
        atMs: claimedAtMs,
        leaseUntilMs: untilMs,
        ownWrite: false,
      });
      runtime(detectedAtMs, String(details.detectedBy ?? 'sweeper').slice(-12), {
        ...base,
        type: 'abandoned-marked',
        atMs: detectedAtMs,
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
        ...(errorOf(r.error) && { error: errorOf(r.error) }),
      },
    });
    if (r.fence !== undefined && outcome !== 'skipped')
      held.push({ runId: String(r.runId), fromMs: startedAtMs, toMs: finishedAtMs });
  }
  for (const e of input.effects)
    for (const t of effectTransitions(e, held))
      runtime(t.atMs, 'effect', {
        job,
        slot: '',
        runId: t.runId,
        trigger: 'effect',
        fence: Number(e.fence),
        atMs: t.atMs,
        type: 'effect-transition',
        key: String(e.key ?? ''),
        from: t.from,
        to: t.to,
        ...(t.note !== undefined && { note: t.note }),
      });
  if (input.lease?.pausedAtMs !== undefined) {
    const l = input.lease;
    pauses.set(`${l.pausedAtMs}`, {
      atMs: Number(l.pausedAtMs),
      text: `paused by ${String(l.pausedBy)}: ${String(l.pauseNote)} (in force on the lease now${l.pausedUntilMs ? `, until ${new Date(l.pausedUntilMs).toISOString()}` : ''})`,
    });
  }
  const l = input.lease;
  if (l?.resumedAtMs !== undefined) {
    // The latest resume (the lease keeps it until the next pause) and the pause it ended.
    const from = Number(l.resumedPauseAtMs ?? l.resumedAtMs);
    if (![...pauses.values()].some((p) => p.atMs === from))
      pauses.set(`${from}`, { atMs: from, text: 'paused (who and why: not kept after the resume)' });
    entries.push({
      kind: 'process',
      atMs: Number(l.resumedAtMs),
      worker: 'operator',
      what: 'resume',
      detail: `resumed by ${String(l.resumedBy)}`,
    });
  }
  for (const p of pauses.values())
    entries.push({ kind: 'process', atMs: p.atMs, worker: 'operator', what: 'pause', detail: p.text });
  entries.sort((a, b) => a.atMs - b.atMs);
  return {
    title: input.title,
    meta: input.meta,
    entries,
    ...(input.definition.timeZone !== undefined && { timeZone: input.definition.timeZone }),
  };
}

/** A run record's stored error summary as `name: message`-ready parts, if it has one. */
function errorOf(error: unknown): { name: string; message: string } | undefined {
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (e?.message === undefined) return undefined;
  return { name: String(e.name ?? 'Error'), message: String(e.message) };
}

/** One transition of an effect record, with the run that made it. */
interface EffectTransition {
  readonly atMs: number;
  readonly runId: string;
  readonly from: string;
  readonly to: string;
  readonly note?: string;
}

/**
 * The transitions an effect record shows, each attributed to the run that made it. The record keeps
 * only its LAST mover (`runId`, `sendingAtMs`): its creation (`createdAtMs`, born `sending`) belongs to
 * the run that held the lease then — by the run records' start and finish — which is another run when
 * the effect was taken over later (a retry or a backfill after a failed run). The error the provider
 * gave (`error`, or `lastError` on an effect not settled) goes with the latest transition.
 */
export function effectTransitions(
  e: Item,
  held: readonly { runId: string; fromMs: number; toMs: number }[],
): EffectTransition[] {
  const last = String(e.runId);
  const runAt = (atMs: number) =>
    held.filter((h) => h.fromMs <= atMs && atMs <= h.toMs).sort((a, b) => b.fromMs - a.fromMs)[0]?.runId ??
    last;
  const createdAtMs = Number(e.createdAtMs);
  const sendingAtMs = e.sendingAtMs === undefined ? createdAtMs : Number(e.sendingAtMs);
  const status = String(e.status);
  const err = (e.error ?? e.lastError) as { httpStatus?: unknown; message?: unknown } | undefined;
  const why =
    err?.message === undefined
      ? undefined
      : `${err.httpStatus !== undefined ? `HTTP ${String(err.httpStatus)}: ` : ''}${String(err.message)}`;
  const out: EffectTransition[] = [];
  if (!Number.isNaN(createdAtMs))
    out.push({ atMs: createdAtMs, runId: runAt(createdAtMs), from: '-', to: 'sending' });
  if (sendingAtMs > createdAtMs)
    out.push({
      atMs: sendingAtMs,
      runId: last,
      from: 'sending',
      to: 'sending',
      note: `taken over, attempt ${String(e.attempts ?? '?')}`,
    });
  if (e.finishedAtMs !== undefined && status !== 'sending') {
    const atMs = Number(e.finishedAtMs);
    out.push({ atMs, runId: runAt(atMs), from: 'sending', to: status, ...(why && { note: why }) });
  } else if (why) {
    const t = out[out.length - 1];
    if (t) out[out.length - 1] = { ...t, note: t.note ? `${t.note}; ${why}` : why };
  }
  return out;
}
