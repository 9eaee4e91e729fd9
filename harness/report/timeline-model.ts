/**
 * From a recording to what the timeline shows: per job, one lane per run that held (or tried to
 * take) the lease, with its slot, fence, outcome, error and marks (renewals, refused stale writes,
 * effect transitions in the lane of the run that made them, injected faults), the pauses with their
 * resumes, plus a chronological event list. Pure.
 */
import type { Recorded, Recording } from './recording.js';

/** A mark on a run's lane. */
export interface LaneMark {
  readonly atMs: number;
  readonly kind: 'renew-ok' | 'renew-failed' | 'stale-write-rejected' | 'effect' | 'fault' | 'write';
  readonly label: string;
}

/** One run on the timeline. */
export interface Lane {
  readonly job: string;
  readonly runId: string;
  readonly worker: string;
  readonly slot: string;
  readonly fence?: number;
  /** When it claimed the lease (or was refused), true time. */
  readonly startMs: number;
  /** When it recorded its outcome; undefined when it never did (killed). */
  readonly endMs?: number;
  /** Held the lease (claim won). */
  readonly holder: boolean;
  /** The last lease expiry the run wrote (claim or renewal), converted to true time. */
  readonly leaseUntilMs?: number;
  readonly outcome: string;
  /** The run's error summary (`name: message`), when it recorded one. */
  readonly error?: string;
  readonly marks: readonly LaneMark[];
}

/** A pause of the job: from when it was written to its resume (open: still in force at the end). */
export interface PauseSpan {
  readonly startMs: number;
  readonly endMs?: number;
  /** Who paused and why, as the pause entry said. */
  readonly text: string;
  /** Who resumed, as the resume entry said. */
  readonly endText?: string;
}

/** One line of the event list. */
export interface TimelineEvent {
  readonly atMs: number;
  readonly worker: string;
  readonly runId?: string;
  readonly text: string;
  readonly kind: 'decision' | 'fault' | 'process' | 'effect' | 'stale';
}

/** The timeline's model. */
export interface TimelineModel {
  readonly title: string;
  readonly meta: Readonly<Record<string, string | number>>;
  readonly startMs: number;
  readonly endMs: number;
  readonly jobs: readonly string[];
  readonly lanes: readonly Lane[];
  readonly events: readonly TimelineEvent[];
  /** Pauses, oldest first, each ended by the next resume after it. */
  readonly pauses: readonly PauseSpan[];
  /** The job's IANA zone, shown beside UTC. @default UTC only */
  readonly timeZone?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const short = (runId: string) => runId.slice(-6);

/** Build the model. */
export function timelineModel(rec: Recording): TimelineModel {
  const lanes = new Map<string, Mutable<Lane> & { marks: LaneMark[] }>();
  const events: TimelineEvent[] = [];
  const times = rec.entries.map((e) => e.atMs);
  const startMs = times.length ? Math.min(...times) : 0;
  const endMs = times.length ? Math.max(...times) : 0;
  const pauses: (Mutable<PauseSpan> & { endMs?: number })[] = [];
  const laneOf = (e: Extract<Recorded, { kind: 'runtime' }>) => {
    const ev = e.event;
    let lane = lanes.get(ev.runId);
    if (!lane) {
      lane = {
        job: ev.job,
        runId: ev.runId,
        worker: e.worker,
        slot: ev.slot,
        startMs: e.atMs,
        holder: false,
        outcome: 'running',
        marks: [],
      };
      lanes.set(ev.runId, lane);
    }
    return lane;
  };
  for (const e of rec.entries) {
    if (e.kind === 'runtime' && e.event.type === 'effect-transition') {
      // An effect transition belongs to the lane of the run that made it; it never opens a lane.
      const ev = e.event;
      lanes.get(ev.runId)?.marks.push({
        atMs: e.atMs,
        kind: 'effect',
        label: `${ev.key}: ${ev.from} → ${ev.to}${ev.note ? ` (${ev.note})` : ''}`,
      });
      events.push({
        atMs: e.atMs,
        worker: e.worker,
        runId: ev.runId,
        kind: 'effect',
        text: `effect ${ev.key}: ${ev.from} → ${ev.to}${ev.note ? ` (${ev.note})` : ''}`,
      });
    } else if (e.kind === 'runtime') {
      const ev = e.event;
      const lane = laneOf(e);
      if (ev.fence !== undefined) lane.fence = ev.fence;
      switch (ev.type) {
        case 'claim-won':
          lane.holder = true;
          lane.startMs = e.atMs;
          lane.leaseUntilMs = ev.leaseUntilMs - (ev.atMs - e.atMs); // the run's clock → true time
          events.push({
            atMs: e.atMs,
            worker: e.worker,
            runId: ev.runId,
            kind: 'decision',
            text: `claimed ${ev.job} slot ${ev.slot}: fence ${ev.fence}${ev.ownWrite ? ' (own write after a lost response)' : ''}${ev.previousRunId ? `, took over from ${short(ev.previousRunId)}` : ''}`,
          });
          break;
        case 'claim-lost':
          lane.outcome = `skipped/${ev.reason}`;
          events.push({
            atMs: e.atMs,
            worker: e.worker,
            runId: ev.runId,
            kind: 'decision',
            text: `claim refused: ${ev.reason}${ev.holderRunId ? ` (holder ${short(ev.holderRunId)})` : ''}`,
          });
          break;
        case 'abandoned-marked':
          events.push({
            atMs: e.atMs,
            worker: e.worker,
            runId: ev.runId,
            kind: 'decision',
            text: `marked ${short(ev.abandonedRunId)} abandoned (slot ${ev.abandonedSlot})`,
          });
          break;
        case 'renew':
          if (ev.ok) lane.leaseUntilMs = ev.leaseUntilMs - (ev.atMs - e.atMs);
          lane.marks.push({
            atMs: e.atMs,
            kind: ev.ok ? 'renew-ok' : 'renew-failed',
            label: ev.ok ? 'renewed' : `renewal failed: ${ev.error ?? ''}`,
          });
          break;
        case 'stale-write-rejected':
          lane.marks.push({
            atMs: e.atMs,
            kind: 'stale-write-rejected',
            label: `stale write refused (stored fence ${ev.storedFence})`,
          });
          events.push({
            atMs: e.atMs,
            worker: e.worker,
            runId: ev.runId,
            kind: 'stale',
            text: `stale write refused: fence ${ev.fence} < stored ${ev.storedFence}`,
          });
          break;
        case 'finish':
          lane.endMs = e.atMs;
          lane.outcome = `${ev.summary.outcome}${ev.summary.reason ? `/${ev.summary.reason}` : ''}`;
          if (ev.summary.error) lane.error = `${ev.summary.error.name}: ${ev.summary.error.message}`;
          events.push({
            atMs: e.atMs,
            worker: e.worker,
            runId: ev.runId,
            kind: 'decision',
            text: `recorded ${lane.outcome}${lane.error ? ` — ${lane.error}` : ''}`,
          });
          break;
      }
    } else if (e.kind === 'request' && e.fault) {
      const lane = e.runId ? lanes.get(e.runId) : undefined;
      lane?.marks.push({ atMs: e.atMs, kind: 'fault', label: `${e.fault.action} on ${e.op}` });
      events.push({
        atMs: e.atMs,
        worker: e.worker,
        ...(e.runId && { runId: e.runId }),
        kind: 'fault',
        text: `injected ${e.fault.action} on ${e.op} (${e.fault.rule})`,
      });
    } else if (e.kind === 'request' && ['fenced-write', 'insert-once'].includes(e.op) && e.runId) {
      lanes.get(e.runId)?.marks.push({ atMs: e.atMs, kind: 'write', label: `${e.op} fence ${e.fence}` });
    } else if (e.kind === 'process' && e.what !== 'deliver') {
      events.push({ atMs: e.atMs, worker: e.worker, kind: 'process', text: `${e.what}: ${e.detail}` });
      if (e.what === 'pause') pauses.push({ startMs: e.atMs, text: e.detail });
      const open = pauses.find((p) => p.endMs === undefined && p.startMs <= e.atMs);
      if (e.what === 'resume' && open) {
        open.endMs = e.atMs;
        open.endText = e.detail;
      }
    }
  }
  const all = [...lanes.values()].sort((a, b) => a.job.localeCompare(b.job) || a.startMs - b.startMs);
  return {
    title: rec.title,
    meta: rec.meta,
    startMs,
    endMs: Math.max(endMs, startMs + 1),
    jobs: [...new Set(all.map((l) => l.job))],
    lanes: all,
    events: events.sort((a, b) => a.atMs - b.atMs),
    pauses,
    ...(rec.timeZone !== undefined && { timeZone: rec.timeZone }),
  };
}
