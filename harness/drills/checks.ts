/**
 * Checks shared by drills and the history explorer, computed from what the store holds (run records)
 * and what the recorder saw (runtime events, request attempts with true time).
 */
import type { Check } from '../local/verify.js';
import type { Recorded } from '../report/recording.js';

export type { Check } from '../local/verify.js';

/** A run record line that proves a drill's result. */
export interface Evidence {
  readonly runId: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly fence?: number;
  readonly trigger?: string;
  /** How many records share outcome + reason (condensed duplicates). @default 1 */
  readonly count?: number;
}

/** Build a check. */
export function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}

/** Evidence from run records, oldest first; more than 3 records with one outcome + reason are condensed. */
export function evidenceOf(records: readonly Record<string, unknown>[]): Evidence[] {
  const sorted = [...records].sort(
    (a, b) => Number(a.startedAtMs) - Number(b.startedAtMs) || String(a.runId).localeCompare(String(b.runId)),
  );
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const r of sorted) {
    const k = `${r.outcome}|${r.reason ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const out: Evidence[] = [];
  for (const r of sorted) {
    const g = groups.get(`${r.outcome}|${r.reason ?? ''}`) ?? [];
    if (g.length > 3 && g[0] !== r) continue;
    out.push({
      runId: String(r.runId),
      outcome: String(r.outcome),
      ...(r.reason !== undefined && { reason: String(r.reason) }),
      ...(r.fence !== undefined && { fence: Number(r.fence) }),
      ...(r.trigger !== undefined && { trigger: String(r.trigger) }),
      ...(g.length > 3 && { count: g.length }),
    });
  }
  return out;
}

/** Format evidence as `runId outcome/reason fence=n`. */
export function formatEvidence(e: Evidence): string {
  const what = `${e.outcome}${e.reason ? `/${e.reason}` : ''}`;
  return `${e.count ? `${e.count}x ` : ''}runId=${e.runId}${e.count ? ' (first)' : ''} ${what}${e.fence !== undefined ? ` fence=${e.fence}` : ''}${e.trigger && e.trigger !== 'schedule' ? ` trigger=${e.trigger}` : ''}`;
}

const BUSINESS = new Set(['fenced-write', 'insert-once', 'effect']);

/** True for a business write (fenced write, insert-once, effect). */
export function isBusinessWrite(op: string): boolean {
  return BUSINESS.has(op);
}

/**
 * True for a write that starts work: a business write, except an effect's outcome update (recording
 * what an already-made provider call returned is finishing work, and must happen even late).
 */
export function startsWork(e: { op: string; command?: string }): boolean {
  return isBusinessWrite(e.op) && !(e.op === 'effect' && e.command === 'UpdateItemCommand');
}

/**
 * No run starts a business write after its terminal run record was written (a run that recorded
 * `failed`, `stale` or `succeeded` must have stopped starting work). Not counted: the SDK's retries of
 * a write sent before (in flight when the run stopped; the fence decides), and an effect call already
 * made recording its outcome.
 */
export function noWriteAfterFinish(entries: readonly Recorded[]): Check {
  const finishedAt = new Map<string, number>();
  const started = new Set<string>();
  const late: string[] = [];
  for (const e of entries) {
    if (e.kind === 'runtime' && e.event.type === 'finish') finishedAt.set(e.event.runId, e.atMs);
    if (e.kind === 'request' && startsWork(e) && e.runId !== undefined) {
      const id = `${e.runId}|${e.op}|${e.key}`;
      if (started.has(id)) continue; // an SDK retry of a write decided before: not new work
      started.add(id);
      const done = finishedAt.get(e.runId); // entries are in order: any write after the finish counts
      if (done !== undefined)
        late.push(`${e.runId} ${e.op} ${((e.atMs - done) / 1000).toFixed(1)} s after its record`);
    }
  }
  return check(
    'no business write after the run recorded its outcome',
    late.length === 0,
    late.length ? late.slice(0, 3).join('; ') : 'every business write preceded its run record',
  );
}

/**
 * No live run holds its lease past `leaseUntilMs + skewBudgetMs` (true time): every business write is
 * sent before the last lease expiry the run itself wrote (claim or renewal) plus the skew budget.
 */
export function noWritePastLease(entries: readonly Recorded[], skewBudgetMs: number): Check {
  const until = new Map<string, number>();
  const late: string[] = [];
  for (const e of entries) {
    if (e.kind === 'runtime' && e.event.type === 'claim-won') until.set(e.event.runId, e.event.leaseUntilMs);
    if (e.kind === 'runtime' && e.event.type === 'renew' && e.event.ok)
      until.set(e.event.runId, e.event.leaseUntilMs);
    if (e.kind === 'request' && isBusinessWrite(e.op) && e.runId !== undefined) {
      const u = until.get(e.runId);
      if (u !== undefined && e.atMs > u + skewBudgetMs)
        late.push(`${e.runId} ${e.op} ${((e.atMs - u) / 1000).toFixed(1)} s past its lease`);
    }
  }
  return check(
    `no live run acts past leaseUntil + skew budget (${skewBudgetMs / 1000} s)`,
    late.length === 0,
    late.length ? late.slice(0, 3).join('; ') : 'every business write inside its lease',
  );
}

/** Injected faults by kind: request actions (`fail`, `apply-then-fail`, ...) and process faults. */
export function faultsByKind(entries: readonly Recorded[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) {
    const k =
      e.kind === 'request' && e.fault
        ? `${e.fault.action}:${e.op}`
        : e.kind === 'process' && e.what !== 'deliver'
          ? e.what
          : undefined;
    if (k) out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
