/**
 * Run records as an operator reads them: a job's attempts, newest slot first (`JobHandle.runs`,
 * `cronfence runs <job>`), and the problem records across jobs — failed, stale, abandoned, and skips
 * for a reason in PROBLEM_REASONS such as `not-on-schedule` — from the sparse `problems` index
 * (`Operator.problems`, `cronfence runs --failed`: exactly what `jobs` counts). Never a Scan; no job code.
 */
import { Outcome, PROBLEM_REASONS, RUN_PROBLEM_PARTITIONS } from '../lib/core/outcomes.js';
import type { RunRecord } from '../lib/core/ports.js';
import { usage } from './input.js';
import { publicView, queryJobRuns, queryProblems } from './run-queries.js';
import type { Session } from './session.js';

/** A run record as stored, without its key, TTL and index attributes (what `runs --json` prints). */
export type RunView = RunRecord & { readonly [attribute: string]: unknown };

/** Filters of {@link JobRunsOptions}: one job's run records. */
export interface JobRunsOptions {
  /** Only this slot id, or a prefix of one (`2026-03-28`, `2026-03-28T02:30`). @default every slot */
  readonly slot?: string;
  /** Only attempts started at or after this instant, epoch ms. @default no bound */
  readonly sinceMs?: number;
  /** Only these outcomes (`running`, `succeeded`, `failed`, `skipped`, `stale`, `abandoned`). @default all */
  readonly outcomes?: readonly string[];
  /** At most this many records. @default 20 */
  readonly limit?: number;
}

/** Filters of {@link problemRuns}. */
export interface ProblemRunsOptions {
  /** Only this job's problem records. @default every job */
  readonly job?: string;
  /** Only problems recorded at or after this instant, epoch ms. @default 24 hours before now */
  readonly sinceMs?: number;
  /** Only these problem partitions (`failed`, `stale`, `abandoned`, `skipped`). @default all four */
  readonly outcomes?: readonly string[];
  /** At most this many records. @default 20 */
  readonly limit?: number;
}

const DAY_MS = 86_400_000;
const OUTCOMES: readonly string[] = Object.values(Outcome);

/**
 * A job's run records, newest slot first: one Query on `JOB#<job>`.
 * @throws InvalidArgumentError naming `outcome` for an outcome that does not exist; StoreError
 */
export async function jobRuns(s: Session, job: string, o: JobRunsOptions = {}): Promise<RunView[]> {
  const bad = o.outcomes?.find((x) => !OUTCOMES.includes(x));
  if (bad !== undefined) throw usage('outcome', bad, `is not one of ${OUTCOMES.join(', ')}`);
  const conn = await s.connection();
  const items = await queryJobRuns(conn.doc, conn.tableName, {
    job,
    ...(o.slot !== undefined && { slot: o.slot }),
    ...(o.sinceMs !== undefined && { sinceMs: o.sinceMs }),
    ...(o.outcomes && { outcomes: o.outcomes }),
    limit: o.limit ?? 20,
  });
  return items.map((i) => publicView(i) as RunView);
}

/**
 * Refuse problem filters the `problems` index cannot answer, before anything is read.
 * @throws InvalidArgumentError naming `outcome` for an outcome that is no problem partition.
 */
export function checkProblemOutcomes(outcomes: readonly string[] | undefined): void {
  const bad = outcomes?.find((o) => !RUN_PROBLEM_PARTITIONS.includes(o as Outcome));
  if (bad)
    throw usage(
      'outcome',
      bad,
      `problem runs are listed only as ${RUN_PROBLEM_PARTITIONS.join(', ')} (skipped: ${PROBLEM_REASONS.join(', ')})`,
    );
}

/**
 * Problem run records across jobs (or of one), newest first: one Query per partition of the sparse
 * `problems` index. @throws InvalidArgumentError (see {@link checkProblemOutcomes}); StoreError
 */
export async function problemRuns(s: Session, o: ProblemRunsOptions = {}): Promise<RunView[]> {
  checkProblemOutcomes(o.outcomes);
  const conn = await s.connection();
  const items = await queryProblems(conn.doc, conn.tableName, {
    problems: o.outcomes ?? RUN_PROBLEM_PARTITIONS,
    sinceMs: o.sinceMs ?? s.now() - DAY_MS,
    ...(o.job !== undefined && { job: o.job }),
    limit: o.limit ?? 20,
  });
  return items.map((i) => publicView(i) as RunView);
}
