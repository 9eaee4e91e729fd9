/**
 * The invariants checked after every history, from what the store accepted (the recorder's result
 * entries: `ok`, or `lost` = applied with the response lost), the run records, the handlers' summaries
 * and the provider's executions. None depends on clocks except I4, which is about liveness of the
 * lease itself and is checked against the skew budget.
 */
import type { Recorded } from '../../report/recording.js';
import { type Check, check, isBusinessWrite, noWriteAfterFinish } from '../checks.js';
import { checkProblemsCounted, PROBLEMS_COUNTED } from './alarm-invariant.js';
import { explorerRows } from './jobs.js';
import { checkLiveness, LIVENESS } from './liveness.js';
import { checkOverlap, OVERLAP_INVARIANTS } from './overlap-invariants.js';
import type { HistoryOutcome } from './run-history.js';

/** Names of the invariants, in report order. */
export const INVARIANTS = [
  'I1 at most one business result per key',
  'I2 no write accepted with a fence lower than one already stored',
  'I3 exactly one terminal run record per invocation',
  'I4 no live run holds a lease past leaseUntil + skew budget',
  'I5 every effect executed by the provider at most once',
  'I6 no business write after the run recorded its outcome',
  'I7 no provider call after the run recorded its outcome',
  'I8 no lease revived after its release',
  'I9 no operator resolve accepted while a call under its key was in flight',
  LIVENESS,
  PROBLEMS_COUNTED,
  ...OVERLAP_INVARIANTS,
] as const;

type Result = Extract<Recorded, { kind: 'result' }>;

const accepted = (entries: readonly Recorded[]): Result[] =>
  entries.filter((e): e is Result => e.kind === 'result' && (e.result === 'ok' || e.result === 'lost'));

function oneResultPerKey(entries: readonly Recorded[]): Check {
  const inserts = new Map<string, string[]>();
  for (const e of accepted(entries)) {
    if (e.op !== 'insert-once' || !String(e.table).includes(explorerRows.defaultName)) continue;
    const k = String(e.key);
    inserts.set(k, [...(inserts.get(k) ?? []), `${e.runId}@${e.fence}`]);
  }
  const twice = [...inserts].filter(([, w]) => new Set(w).size > 1);
  return check(
    INVARIANTS[0],
    twice.length === 0,
    twice.length
      ? twice
          .slice(0, 3)
          .map(([k, w]) => `${k} inserted by ${w.join(', ')}`)
          .join('; ')
      : `${inserts.size} row keys, each inserted once`,
  );
}

/** Each run's lease (`JOB#<job>[#<shard>]`), from its runtime events. */
function leaseOfRun(entries: readonly Recorded[]): Map<string, string> {
  const lease = new Map<string, string>();
  for (const e of entries)
    if (e.kind === 'runtime' && !lease.has(e.event.runId))
      lease.set(e.event.runId, `JOB#${e.event.job}${e.event.shard !== undefined ? `#${e.event.shard}` : ''}`);
  return lease;
}

/** Fences are compared only within one lease (a resharded job's shard leases start again at 1). */
function noLowerFence(entries: readonly Recorded[]): Check {
  const stored = new Map<string, number>();
  const leases = leaseOfRun(entries);
  const bad: string[] = [];
  let writes = 0;
  const seen = new Set<string>();
  for (const e of accepted(entries)) {
    if (!isBusinessWrite(e.op) || e.fence === undefined || e.key === undefined) continue;
    // The SDK's retry of a write already applied (a lost response; a transaction's token replays its
    // first answer, even much later) is that same write, not a new one.
    const id = `${e.runId}|${e.op}|${e.key}|${e.fence}`;
    if (seen.has(id) && e.op === 'effect') continue;
    seen.add(id);
    writes++;
    const k = `${e.table}|${e.key}|${leases.get(String(e.runId)) ?? '?'}`;
    const max = stored.get(k) ?? Number.NEGATIVE_INFINITY;
    if (e.fence < max) bad.push(`${e.op} ${e.key} fence ${e.fence} < stored ${max} (run ${e.runId})`);
    stored.set(k, Math.max(max, e.fence));
  }
  return check(
    INVARIANTS[1],
    bad.length === 0,
    bad.length ? bad.slice(0, 3).join('; ') : `${writes} accepted fenced writes, fences never went down`,
  );
}

function oneRecordPerInvocation(o: HistoryOutcome): Check {
  const bad: string[] = [];
  const byRun = new Map<string, Record<string, unknown>[]>();
  for (const r of o.records) byRun.set(String(r.runId), [...(byRun.get(String(r.runId)) ?? []), r]);
  // The sweeper's own records (not-on-schedule, catch-up-limit, waiting-too-long) are no invocation: one
  // fixed run id per kind, written at most once per slot (the slot is part of the record's key).
  const perInvocation = [...byRun].flatMap(([runId, rs]): [string, Record<string, unknown>[]][] =>
    runId.startsWith('sweeper-') && rs.every((r) => r.requestedBy === 'sweeper')
      ? [...new Set(rs.map((r) => String(r.slot)))].map((slot) => [
          `${runId}@${slot}`,
          rs.filter((r) => String(r.slot) === slot),
        ])
      : [[runId, rs]],
  );
  for (const [runId, rs] of perInvocation) {
    if (rs.length !== 1) bad.push(`${runId}: ${rs.length} records`);
    else if (rs[0]?.outcome === 'running') bad.push(`${runId}: record still running`);
  }
  // The `restore` shape: the records of runs that claimed between the backup and the restore are gone
  // with the table the restore replaced (what a restore does); every other claim still needs its record.
  const lost = o.lostWithRestore ?? new Set<string>();
  for (const r of o.results) {
    const s = r.summary;
    if (!s) continue;
    const rec = byRun.get(s.runId)?.[0];
    // (a lost record may be replaced by the `abandoned` mark a later claimer writes for the restored holder)
    if (lost.has(s.runId) && (!rec || rec.outcome === 'abandoned')) continue;
    if (!rec) bad.push(`${s.runId} (${r.delivery.label}): handler reported ${s.outcome}, no record`);
    else if (rec.outcome !== s.outcome)
      bad.push(`${s.runId}: handler reported ${s.outcome}, record says ${rec.outcome}`);
  }
  const claimed = new Set(accepted(o.entries).flatMap((e) => (e.op === 'claim' && e.runId ? [e.runId] : [])));
  for (const runId of claimed)
    if (!byRun.has(runId) && !lost.has(runId)) bad.push(`${runId} claimed the lease and has no record`);
  return check(
    INVARIANTS[2],
    bad.length === 0,
    bad.length
      ? bad.slice(0, 3).join('; ')
      : `${o.records.length} records for ${claimed.size} claiming runs and ${o.results.length} settled invocations`,
  );
}

function noWritePastLease(
  entries: readonly Recorded[],
  skewBudgetMs: number,
  offBudget: ReadonlySet<string> = new Set(),
): Check {
  const until = new Map<string, number>();
  const first = new Set<string>();
  const late: string[] = [];
  for (const e of entries) {
    // A worker whose clock left the budget (frozen with its clock, skewed far) cannot keep this one:
    // safety then rests on the fences and the running-state conditions (I1, I2, I5-I8).
    if (offBudget.has(e.worker)) continue;
    if (e.kind === 'runtime' && (e.event.type === 'claim-won' || (e.event.type === 'renew' && e.event.ok)))
      until.set(e.event.runId, e.event.leaseUntilMs);
    if (e.kind !== 'request' || !isBusinessWrite(e.op) || e.runId === undefined) continue;
    const id = `${e.runId}|${e.op}|${e.key}`;
    if (first.has(id)) continue; // an SDK retry of a write the run decided to send while it held the lease
    first.add(id);
    const u = until.get(e.runId);
    if (u !== undefined && e.atMs > u + skewBudgetMs)
      late.push(`${e.runId} ${e.op} ${e.key} ${e.atMs - u} ms past its lease`);
  }
  return check(
    INVARIANTS[3],
    late.length === 0,
    late.length
      ? late.slice(0, 3).join('; ')
      : `${first.size} business writes started inside their run's lease (+${skewBudgetMs} ms)`,
  );
}

/** No provider call of a run after its first record (the run's authority ended there). */
function noSendAfterRecord(o: HistoryOutcome): Check {
  const finishedAt = new Map<string, number>();
  for (const e of o.entries)
    if (e.kind === 'runtime' && e.event.type === 'finish' && !finishedAt.has(e.event.runId))
      finishedAt.set(e.event.runId, e.atMs);
  const late = o.sends.filter((c) => {
    const done = finishedAt.get(c.runId);
    return done !== undefined && c.atMs > done;
  });
  return check(
    INVARIANTS[6],
    late.length === 0,
    late.length
      ? late
          .slice(0, 3)
          .map(
            (c) =>
              `${c.runId} sent ${c.key} ${((c.atMs - Number(finishedAt.get(c.runId))) / 1000).toFixed(1)} s after its record`,
          )
          .join('; ')
      : `${o.sends.length} provider calls, each before its run's record`,
  );
}

/** No renewal accepted after the same owner's release was accepted (release is terminal). */
function noRevivedLease(entries: readonly Recorded[]): Check {
  const released = new Set<string>();
  const revived: string[] = [];
  for (const e of accepted(entries)) {
    const id = `${e.runId}|${e.fence}`;
    if (e.op === 'release') released.add(id);
    else if (e.op === 'renew' && released.has(id))
      revived.push(`${e.runId} (fence ${e.fence}) renewed after its release`);
  }
  return check(
    INVARIANTS[7],
    revived.length === 0,
    revived.length ? revived.slice(0, 3).join('; ') : `${released.size} releases, none revived`,
  );
}

/**
 * No operator resolution was accepted while a provider call under its key had started and not yet
 * returned (operator-race): such a resolve releases or settles an effect whose outcome is still
 * coming, and a re-run could have it executed twice.
 */
function noResolveDuringCall(o: HistoryOutcome): Check {
  const accepted = (o.operators ?? []).filter((e) => e.kind === 'resolve' && e.result === 'accepted');
  const bad = accepted.flatMap((e) =>
    o.sends
      .filter(
        (c) => c.key === e.key && c.atMs < e.sentAtMs && (c.endMs === undefined || c.endMs > e.doneAtMs),
      )
      .map(
        (c) =>
          `resolve ${e.as} of ${e.key} accepted at +${e.doneAtMs - c.atMs} ms of ${c.runId}'s call (returned ${c.endMs === undefined ? 'never' : `+${c.endMs - c.atMs} ms`})`,
      ),
  );
  return check(
    INVARIANTS[8],
    bad.length === 0,
    bad.length
      ? bad.slice(0, 3).join('; ')
      : `${accepted.length} accepted resolves of ${(o.operators ?? []).length} operator actions, none during a call`,
  );
}

/** Check every invariant on one history. */
export function checkInvariants(o: HistoryOutcome, skewBudgetMs: number): Check[] {
  const twice = o.provider.executedTwice();
  const finish = noWriteAfterFinish(o.entries);
  return [
    oneResultPerKey(o.entries),
    noLowerFence(o.entries),
    oneRecordPerInvocation(o),
    noWritePastLease(o.entries, skewBudgetMs, o.offBudgetWorkers),
    check(
      INVARIANTS[4],
      twice.length === 0,
      twice.length
        ? `executed twice: ${twice.join(', ')}`
        : `${o.provider.executions.length} executions, each key once`,
    ),
    { ...finish, name: INVARIANTS[5] },
    noSendAfterRecord(o),
    noRevivedLease(o.entries),
    noResolveDuringCall(o),
    checkLiveness(o),
    checkProblemsCounted(o),
    ...checkOverlap(o, skewBudgetMs),
  ];
}
