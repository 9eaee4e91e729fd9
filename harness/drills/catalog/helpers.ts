/**
 * Small helpers the drill catalogue shares.
 */

import type { JobHandler } from '../../../lib/runtime/define-job.js';
import type { DeliveryResult } from '../../local/scheduler-emulator.js';
import { type Check, check } from '../checks.js';

/** A job's lease duration, ms. */
export function leaseMs(h: JobHandler): number {
  return h.job.lease.durationSeconds * 1000;
}

/** A predicate that holds on its `n`-th call only (1-based). */
export function nthCall(n: number): () => boolean {
  let calls = 0;
  return () => ++calls === n;
}

/** The run record of a run id. */
export function recordOf(
  records: readonly Record<string, unknown>[],
  runId: string | undefined,
): Record<string, unknown> | undefined {
  return records.find((r) => r.runId === runId);
}

/** `outcome/reason fence=n` of a record, for details. */
export function show(r: Record<string, unknown> | undefined): string {
  if (!r) return 'no record';
  return `${r.outcome}${r.reason ? `/${r.reason}` : ''}${r.fence !== undefined ? ` fence=${r.fence}` : ''}`;
}

/** Check that a run's record has an outcome, reason and fence. */
export function recordIs(
  who: string,
  r: Record<string, unknown> | undefined,
  want: { outcome: string; reason?: string; fence?: number },
): Check {
  const ok =
    r !== undefined &&
    r.outcome === want.outcome &&
    (want.reason === undefined || r.reason === want.reason) &&
    (want.fence === undefined || Number(r.fence) === want.fence);
  return check(
    `${who} recorded ${want.outcome}${want.reason ? `/${want.reason}` : ''}${want.fence !== undefined ? ` fence=${want.fence}` : ''}`,
    ok,
    `${who}: ${show(r)}${r ? ` (runId ${r.runId})` : ''}`,
  );
}

/**
 * Every settled invocation has exactly one run record, with the outcome its handler reported.
 * @param settled the deliveries that returned or threw
 */
export function recordsMatch(
  settled: readonly DeliveryResult[],
  records: readonly Record<string, unknown>[],
): Check {
  const bad: string[] = [];
  for (const r of settled) {
    const s = r.summary;
    if (!s) {
      bad.push(`${r.delivery.label}: no summary (${r.error?.name}: ${r.error?.message})`);
      continue;
    }
    const mine = records.filter((x) => x.runId === s.runId);
    if (mine.length !== 1 || mine[0]?.outcome !== s.outcome)
      bad.push(
        `${r.delivery.label} ${s.runId}: handler said ${s.outcome}, ${mine.length} record(s) ${mine.map((m) => m.outcome).join(',')}`,
      );
  }
  return check(
    'one run record per invocation, matching what the handler reported',
    bad.length === 0,
    bad.length ? bad.slice(0, 3).join('; ') : `${settled.length} invocations, ${records.length} records`,
  );
}

/** Count results by `outcome/reason`. */
export function tally(results: readonly DeliveryResult[]): string {
  const m = new Map<string, number>();
  for (const r of results) {
    const k = r.summary
      ? `${r.summary.outcome}${r.summary.reason ? `/${r.summary.reason}` : ''}`
      : `error ${r.error?.name}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].map(([k, v]) => `${v}x ${k}`).join(', ');
}
