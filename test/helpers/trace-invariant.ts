/**
 * Test helper: every handler and worker of a stage traced into the SDK's in-memory span exporter,
 * and the check that run records and attempt spans agree — each record has exactly one attempt span
 * with its run id and outcome, in the trace derived from its job and slot, and no attempt span
 * claims a record that is not there.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { StageOptions } from '../../harness/drills/stage.js';
import { OccurrenceTracing, occurrenceIds, tracedDeps, withTracing } from '../../lib/entries/tracing.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';

/** An exporter, the tracing that feeds it, and stage options that trace every handler and worker. */
export function tracedStage(): {
  exporter: InMemorySpanExporter;
  tracing: OccurrenceTracing;
  stage: StageOptions;
} {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracing = new OccurrenceTracing({ tracer: provider.getTracer('cronfence') });
  const traced = new WeakMap<JobHandler, JobHandler>();
  return {
    exporter,
    tracing,
    stage: {
      handler: (h) => {
        const known = traced.get(h);
        if (known) return known;
        const t = withTracing(h, tracing);
        traced.set(h, t);
        return t;
      },
      deps: (d) => tracedDeps(tracing, d),
    },
  };
}

/** Attempt spans: the spans that carry `cronfence.record_written` (only attempt spans do). */
export function attemptSpans(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return spans.filter((s) => s.attributes['cronfence.record_written'] !== undefined);
}

const str = (v: unknown) => (v === undefined ? '' : String(v));

/**
 * Every disagreement between `records` (stored run records) and the attempt spans among `spans`, one
 * line each; empty when they agree. A run that outlived a successor's abandoned mark (it woke and
 * recorded its own outcome) has two attempt spans: the mark's (`abandoned`, `recorded_by` the marker)
 * and its own; the record is its own. A run in `lost` may have an attempt span and no record.
 */
export function attemptMismatches(
  records: readonly Record<string, unknown>[],
  spans: readonly ReadableSpan[],
  /** Runs whose records went with a table a restore replaced (the explorer's `restore` shape). */
  lost: ReadonlySet<string> = new Set(),
): string[] {
  const attempts = attemptSpans(spans);
  const out: string[] = [];
  const byRun = new Map<string, ReadableSpan[]>();
  for (const s of attempts) {
    const id = str(s.attributes['cronfence.run_id']);
    byRun.set(id, [...(byRun.get(id) ?? []), s]);
  }
  const recorded = new Map(records.map((r) => [str(r.runId), r]));
  for (const r of records) {
    const what = `record ${str(r.job)} ${str(r.slot)} ${str(r.runId)} ${str(r.outcome)}/${str(r.reason)}`;
    // The sweeper's records use one fixed run id per kind across slots: match the slot too.
    const same = (byRun.get(str(r.runId)) ?? []).filter(
      (s) =>
        s.attributes['cronfence.outcome'] === r.outcome &&
        s.attributes['cronfence.record_written'] === true &&
        str(s.attributes['cronfence.slot']) === str(r.slot),
    );
    if (same.length !== 1) {
      out.push(`${what}: ${same.length} attempt spans with its outcome`);
      continue;
    }
    const span = same[0] as ReadableSpan;
    if (str(span.attributes['cronfence.reason']) !== str(r.reason))
      out.push(`${what}: span reason ${str(span.attributes['cronfence.reason'])}`);
    const { traceId } = occurrenceIds(str(r.job), str(r.slot));
    if (span.spanContext().traceId !== traceId) out.push(`${what}: not in its occurrence's trace`);
  }
  for (const s of attempts) {
    const id = str(s.attributes['cronfence.run_id']);
    const r = recorded.get(id);
    const outcome = s.attributes['cronfence.outcome'];
    const key = str(s.attributes['cronfence.job_key']);
    const slot = str(s.attributes['cronfence.slot']);
    if (s.spanContext().traceId !== occurrenceIds(key, slot).traceId)
      out.push(`attempt span ${id}: trace is not the one of ${key} ${slot}`);
    if (s.attributes['cronfence.record_written'] !== true) {
      // No record of its own: only a successor's or the sweeper's abandoned mark may be there.
      if (r && r.outcome !== 'abandoned')
        out.push(`attempt span ${id} (no record written): record ${str(r.outcome)}`);
      continue;
    }
    if (!r) {
      if (!lost.has(id)) out.push(`attempt span ${id} ${str(outcome)}: no run record`);
    } else if (r.outcome !== outcome && !(outcome === 'abandoned' && s.attributes['cronfence.recorded_by']))
      out.push(`attempt span ${id} ${str(outcome)}: record says ${str(r.outcome)}`);
  }
  return out;
}
