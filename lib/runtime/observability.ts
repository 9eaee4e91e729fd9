/**
 * The operators' view of the runtime: an {@link Observer} that turns every runtime decision into one
 * structured log line (Powertools Logger) and CloudWatch metrics in EMF (Powertools Metrics), flushed
 * at the end of each invocation (the `finish` event). The only module that imports Powertools, so a
 * job bundle pays for it once (≈34 KB minified for Logger + Metrics + commons).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import { METRIC_NAMESPACE, METRIC_SERVICE, problemMetric, RuntimeMetric } from '../core/metrics.js';
import type { Outcome } from '../core/outcomes.js';
import type { Observer, RuntimeEvent } from './events.js';
import type { SweepReport } from './sweeper.js';

export { METRIC_NAMESPACE, METRIC_SERVICE, RuntimeMetric } from '../core/metrics.js';

/** A metric waiting for its invocation's flush. */
interface Pending {
  readonly name: RuntimeMetric;
  readonly value: number;
  readonly unit: Unit;
  /** Extra dimension (RunSkipped's Reason). */
  readonly reason?: string;
}

/** Options of {@link createObserver}. */
export interface ObserverOptions {
  /** @default a Logger with service `cronfence` (level from `POWERTOOLS_LOG_LEVEL`, default INFO) */
  readonly logger?: Logger;
  /** @default Metrics in namespace {@link METRIC_NAMESPACE}, service {@link METRIC_SERVICE} */
  readonly metrics?: Metrics;
  /** Invocations whose metrics are buffered at once before the oldest is flushed unfinished. @default 256 */
  readonly maxOpenRuns?: number;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

/** The log message, level and decision-specific fields of an event. */
function describe(e: RuntimeEvent): { level: Level; message: string; fields: Record<string, unknown> } {
  switch (e.type) {
    case 'claim-won':
      return {
        level: 'info',
        message: 'claim won',
        fields: {
          leaseUntilMs: e.leaseUntilMs,
          ownWrite: e.ownWrite,
          ...(e.previousRunId && { previousRunId: e.previousRunId }),
        },
      };
    case 'claim-lost':
      return {
        level: 'info',
        message: `claim lost: ${e.reason}`,
        fields: {
          reason: e.reason,
          ...(e.holderRunId && { holderRunId: e.holderRunId }),
          ...(e.leaseUntilMs !== undefined && { holderLeaseUntilMs: e.leaseUntilMs }),
        },
      };
    case 'abandoned-marked':
      return {
        level: 'warn',
        message: 'previous holder never released: its run is recorded abandoned',
        fields: { abandonedRunId: e.abandonedRunId, abandonedSlot: e.abandonedSlot },
      };
    case 'renew':
      return {
        level: e.ok ? 'info' : 'warn',
        message: e.ok ? 'lease renewed' : 'lease renewal failed',
        fields: { ok: e.ok, leaseUntilMs: e.leaseUntilMs, ...(e.error && { error: e.error }) },
      };
    case 'stale-write-rejected':
      return {
        level: 'warn',
        message: 'stale write rejected: a newer holder has written',
        fields: { target: e.target, ...(e.storedFence !== undefined && { storedFence: e.storedFence }) },
      };
    case 'effect-transition':
      return {
        level: e.to === 'needs-review' ? 'warn' : 'info',
        message: `effect ${e.from} -> ${e.to}`,
        fields: { effectKey: e.key, from: e.from, to: e.to, ...(e.note && { note: e.note }) },
      };
    case 'recording':
      return {
        level: 'debug',
        message: `recording ${e.outcome}${e.reason ? `: ${e.reason}` : ''}`,
        fields: { outcome: e.outcome, ...(e.reason && { reason: e.reason }) },
      };
    case 'finish': {
      const s = e.summary;
      const level: Level = s.outcome === 'failed' ? 'error' : s.outcome === 'stale' ? 'warn' : 'info';
      return {
        level,
        message: `run ${s.outcome}${s.reason ? `: ${s.reason}` : ''}`,
        fields: {
          outcome: s.outcome,
          ...(s.reason && { reason: s.reason }),
          durationMs: s.durationMs,
          ...(s.holderSeen && { holderSeen: s.holderSeen }),
          ...(s.error && { error: s.error }),
        },
      };
    }
  }
}

const count = (name: RuntimeMetric, reason?: string): Pending => ({
  name,
  value: 1,
  unit: MetricUnit.Count,
  ...(reason && { reason }),
});
/** `RunSucceeded` 0: a problem of the job, a data point for the "no successful run" alarm's window. */
const noSuccess = (): Pending => ({ name: RuntimeMetric.RunSucceeded, value: 0, unit: MetricUnit.Count });

/**
 * The metrics an event contributes to its invocation's flush. A problem's metric comes with its
 * `recording` event (published at once, before the record is written); `finish` adds the rest.
 */
function metricsOf(e: RuntimeEvent, countedEarly: ReadonlySet<string> = new Set()): Pending[] {
  switch (e.type) {
    case 'recording': {
      const problem = problemMetric(e.outcome as Outcome, e.reason);
      return problem ? [count(problem), noSuccess()] : [];
    }
    case 'abandoned-marked':
      return [count(RuntimeMetric.RunAbandoned), noSuccess()];
    case 'stale-write-rejected':
      return [count(RuntimeMetric.StaleWriteRejected)];
    case 'effect-transition':
      if (e.to === 'needs-review') return [count(RuntimeMetric.EffectNeedsReview)];
      // An effect this run leaves not terminal (outcome unknown, or not found yet by a lookup).
      return e.from === e.to ? [count(RuntimeMetric.EffectUnsettled)] : [];
    case 'finish': {
      const s = e.summary;
      const out: Pending[] = [];
      if (s.outcome === 'succeeded') out.push(count(RuntimeMetric.RunSucceeded));
      if (s.outcome === 'skipped') out.push(count(RuntimeMetric.RunSkipped, s.reason ?? 'unknown'));
      // A problem's metric went out with its `recording` event (unless the session never sent one).
      const problem = problemMetric(s.outcome as Outcome, s.reason);
      if (problem && !countedEarly.has(problem)) out.push(count(problem), noSuccess());
      if (s.outcome !== 'skipped') {
        out.push({ name: RuntimeMetric.RunDuration, value: s.durationMs, unit: MetricUnit.Milliseconds });
      }
      if (s.trigger === 'catch-up') out.push(count(RuntimeMetric.CatchUpTriggered));
      return out;
    }
    default:
      return [];
  }
}

/**
 * Build the default observer: one structured log line per decision, carrying `job`, `slot`,
 * `trigger`, `runId`, `fence` (and `shard`), and per-job EMF metrics flushed when the invocation's
 * `finish` event arrives. Metrics are buffered per run id and flushed synchronously, so concurrent
 * runs in one process (the local emulator) never mix dimensions. Never throws.
 * @example
 * const deps = createDeps({ observe: createObserver() });
 */
export function createObserver(options: ObserverOptions = {}): Observer {
  const logger = options.logger ?? new Logger({ serviceName: METRIC_SERVICE });
  const metrics =
    options.metrics ?? new Metrics({ namespace: METRIC_NAMESPACE, serviceName: METRIC_SERVICE });
  const maxOpen = options.maxOpenRuns ?? 256;
  const open = new Map<string, { job: string; pending: Pending[] }>();
  /** Problem metrics already published at a run's `recording` event, by run id (bounded like `open`). */
  const early = new Map<string, Set<string>>();

  const flush = (runId: string) => {
    const run = open.get(runId);
    open.delete(runId);
    if (!run || run.pending.length === 0) return;
    // One EMF document per dimension set, each with ONE set: every metric under [service, job], and a
    // per-reason metric again under [service, job, Reason]. (Two sets sharing `job` in one document make
    // Powertools warn that the key is defined twice.) Synchronous, so no other run interleaves.
    metrics.addDimension('job', run.job);
    for (const p of run.pending) metrics.addMetric(p.name, p.unit, p.value);
    metrics.publishStoredMetrics();
    for (const p of run.pending.filter((x) => x.reason !== undefined)) {
      metrics.addDimension('job', run.job);
      metrics.addDimension('Reason', p.reason as string);
      metrics.addMetric(p.name, p.unit, p.value);
      metrics.publishStoredMetrics();
    }
  };

  return (event) => {
    try {
      const { level, message, fields } = describe(event);
      logger[level](message, {
        decision: event.type,
        job: event.job,
        slot: event.slot,
        trigger: event.trigger,
        runId: event.runId,
        ...(event.fence !== undefined && { fence: event.fence }),
        ...(event.shard !== undefined && { shard: event.shard }),
        ...fields,
      });
      const add = metricsOf(event, early.get(event.runId));
      if (event.type === 'recording' && add.length > 0) {
        const names = early.get(event.runId) ?? new Set<string>();
        for (const p of add) if (p.value > 0) names.add(p.name);
        early.set(event.runId, names);
        if (early.size > maxOpen) early.delete(early.keys().next().value as string);
      }
      if (add.length > 0 || event.type === 'finish') {
        let run = open.get(event.runId);
        if (!run) {
          run = { job: event.job, pending: [] };
          open.set(event.runId, run);
          if (open.size > maxOpen) flush(open.keys().next().value as string);
        }
        run.pending.push(...add);
      }
      // A problem is published before its record is written (a timeout may end the invocation there).
      if (event.type === 'recording' && add.length > 0) flush(event.runId);
      if (event.type === 'finish') {
        flush(event.runId);
        early.delete(event.runId);
      }
    } catch {
      // observability must never break a run
    }
  };
}

/**
 * Publish a sweep's metrics (EMF through Powertools Metrics), per job: each problem record the sweeper
 * wrote moves the metric its alarm counts (`problemMetric`, the runtime's mapping: abandoned marks ->
 * `RunAbandoned`, `not-on-schedule` / `catch-up-limit` -> `SlotNotRun`, a job it could not sweep ->
 * `SweepFailed`), and a job with a due slot not done (or any problem) gets `RunSucceeded` 0, so its
 * "no successful run" window has data even when nothing ran at all. Never throws.
 * @param report - what {@link sweep} returned.
 * @param metrics - @default Metrics in namespace {@link METRIC_NAMESPACE}, service {@link METRIC_SERVICE}
 * @returns the metrics published per job (name -> sum), for logs and tests.
 */
export function publishSweepMetrics(
  report: SweepReport,
  metrics: Metrics = new Metrics({ namespace: METRIC_NAMESPACE, serviceName: METRIC_SERVICE }),
): Map<string, Map<RuntimeMetric, number>> {
  const byJob = sweepMetrics(report);
  try {
    for (const [job, values] of byJob) {
      metrics.addDimension('job', job);
      for (const [name, value] of values) metrics.addMetric(name, MetricUnit.Count, value);
      metrics.publishStoredMetrics();
    }
  } catch {
    // observability must never break a sweep
  }
  return byJob;
}

/** The per-job metric sums of a sweep (see {@link publishSweepMetrics}). */
export function sweepMetrics(report: SweepReport): Map<string, Map<RuntimeMetric, number>> {
  const byJob = new Map<string, Map<RuntimeMetric, number>>();
  const add = (job: string, name: RuntimeMetric, value: number) => {
    const m = byJob.get(job) ?? new Map<RuntimeMetric, number>();
    m.set(name, (m.get(name) ?? 0) + value);
    byJob.set(job, m);
  };
  for (const p of report.problems) {
    const name = problemMetric(p.outcome, p.reason);
    if (name) add(p.job, name, 1);
  }
  for (const job of new Set([...report.overdue, ...byJob.keys()])) add(job, RuntimeMetric.RunSucceeded, 0);
  return byJob;
}
