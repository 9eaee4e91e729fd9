/**
 * The runtime's ports with spans around them: the claim, the record, the release, the abandoned mark
 * and the late-copy check become child spans of their attempt; the runtime's decisions (skips,
 * refusals, renewals, effect transitions) become span events. The ports' behaviour is unchanged: each
 * call goes to the wrapped port as it was, and its result or error comes back as it was.
 */
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ClaimDecision } from '../../core/lease.js';
import { Outcome, PROBLEM_OUTCOMES, Reason } from '../../core/outcomes.js';
import type { Clock, RunRecord, RunStore } from '../../core/ports.js';
import type { RuntimeDeps } from '../deps.js';
import { Attr, defined, SpanName } from './attributes.js';
import { tracedObserver } from './decisions.js';
import type { OccurrenceTracing } from './occurrence-tracing.js';
import { occurrenceSpanContext } from './trace-ids.js';

/** `target` with the methods in `over` replaced; every other member is the target's own. */
function override<T extends object>(target: T, over: Partial<T>): T {
  return new Proxy(target, {
    get(t, p) {
      if (Object.hasOwn(over, p)) return over[p as keyof T];
      const v = Reflect.get(t, p, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

const decisionAttrs = (d: ClaimDecision) =>
  defined({
    [Attr.ClaimDecision]: d.kind,
    [Attr.Fence]: d.kind === 'acquired' ? d.fence : undefined,
    [Attr.HolderRunId]: d.kind === 'held' ? d.holderRunId : undefined,
  });

function tracedLeases(t: OccurrenceTracing, leases: RuntimeDeps['leases']): RuntimeDeps['leases'] {
  return override(leases, {
    claim: (req) => {
      const a = t.attempt(
        {
          runId: req.runId,
          slot: req.slotId,
          ...(req.trigger !== undefined && { trigger: req.trigger }),
          ...(req.shard !== undefined && { shard: req.shard }),
        },
        req.job,
      );
      return t.child(a, SpanName.Claim, () => leases.claim(req), {
        done: (d, span) => {
          span.setAttributes(decisionAttrs(d));
          if (d.kind === 'acquired') a?.span.setAttribute(Attr.Fence, d.fence);
        },
      });
    },
    release: (req) =>
      t.child(t.get(req.runId), SpanName.Release, () => leases.release(req), {
        attributes: { [Attr.ReleaseDone]: req.succeededSlot !== undefined },
      }),
    releaseIfOwner: (req) =>
      t.child(t.get(req.runId), SpanName.Release, () => leases.releaseIfOwner(req), {
        attributes: { [Attr.ReleaseDone]: false },
      }),
  });
}

type RecordFields = Pick<RunRecord, 'job' | 'slot' | 'runId' | 'outcome' | 'fence' | 'shard'> & {
  readonly reason?: string;
  readonly trigger?: string;
};

/**
 * The attempt span of a record another writer wrote for a run — a successor's or the sweeper's
 * abandoned mark, a sweeper's problem record — in the record's occurrence trace, from the record's
 * start to its finish, linked to the writer's own span when there is one.
 */
function recordedFor(
  t: OccurrenceTracing,
  rec: RecordFields,
  by: string,
  startMs: number,
  endMs: number,
  writer: Span | undefined,
): void {
  const span = t.tracer.startSpan(
    rec.job,
    {
      kind: SpanKind.SERVER,
      startTime: startMs,
      ...(writer && { links: [{ context: writer.spanContext() }] }),
      attributes: defined({
        [Attr.FaasTrigger]: 'timer',
        [Attr.JobKey]: rec.job,
        [Attr.Slot]: rec.slot,
        [Attr.RunId]: rec.runId,
        [Attr.Fence]: rec.fence,
        [Attr.Trigger]: rec.trigger,
        [Attr.Shard]: rec.shard,
        [Attr.Outcome]: rec.outcome,
        [Attr.Reason]: rec.reason,
        [Attr.RecordedBy]: by,
        [Attr.RecordWritten]: true,
      }),
    },
    trace.setSpanContext(ROOT_CONTEXT, occurrenceSpanContext(rec.job, rec.slot)),
  );
  if (PROBLEM_OUTCOMES.includes(rec.outcome))
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: `${rec.outcome}${rec.reason ? `: ${rec.reason}` : ''}`,
    });
  span.end(Math.max(startMs, endMs));
}

function tracedRuns(t: OccurrenceTracing, runs: RunStore, clock: Clock): RunStore {
  return override(runs, {
    put: async (rec, retentionDays) => {
      const a = t.attempt(
        {
          runId: rec.runId,
          slot: rec.slot,
          trigger: rec.trigger,
          ...(rec.shard !== undefined && { shard: rec.shard }),
        },
        rec.job,
      );
      await t.child(a, SpanName.Record, () => runs.put(rec, retentionDays), {
        attributes: defined({ [Attr.Outcome]: rec.outcome, [Attr.Reason]: rec.reason }),
      });
      if (a) a.recorded = { outcome: rec.outcome, ...(rec.reason !== undefined && { reason: rec.reason }) };
      else {
        const endMs = rec.finishedAtMs ?? clock.now();
        recordedFor(t, rec, rec.requestedBy ?? 'outside an attempt', rec.startedAtMs, endMs, undefined);
      }
    },
    markAbandoned: async (job, holder, byRunId, nowMs, retentionDays) => {
      const a = t.get(byRunId);
      const marked = await t.child(
        a,
        SpanName.MarkAbandoned,
        () => runs.markAbandoned(job, holder, byRunId, nowMs, retentionDays),
        { attributes: { [Attr.HolderRunId]: holder.runId } },
      );
      if (marked) {
        const rec = {
          job,
          slot: holder.slot,
          runId: holder.runId,
          fence: holder.fence,
          outcome: Outcome.Abandoned,
          reason: Reason.NotReleased,
          ...(holder.trigger !== undefined && { trigger: holder.trigger }),
        } satisfies RecordFields;
        recordedFor(t, rec, byRunId, holder.acquiredAtMs ?? nowMs, nowMs, a?.span);
      }
      return marked;
    },
    findSucceeded: (job, slotId, def, shard) =>
      t.child(t.currentFor(slotId), SpanName.LateCopyCheck, () =>
        runs.findSucceeded(job, slotId, def, shard),
      ),
  });
}

/** Decorations by tracing instance: input deps -> traced deps, and the traced deps themselves. */
const decorated = new WeakMap<
  OccurrenceTracing,
  { byInput: WeakMap<RuntimeDeps, RuntimeDeps>; outputs: WeakSet<RuntimeDeps> }
>();

/**
 * `deps` with traced ports (leases, runs) and an observer that also turns decisions into span events;
 * everything else as it was. The same deps get the same decoration; traced deps are returned as they are.
 */
export function tracedDeps(tracing: OccurrenceTracing, deps: RuntimeDeps): RuntimeDeps {
  let mine = decorated.get(tracing);
  if (!mine) {
    mine = { byInput: new WeakMap(), outputs: new WeakSet() };
    decorated.set(tracing, mine);
  }
  if (mine.outputs.has(deps)) return deps;
  const known = mine.byInput.get(deps);
  if (known) return known;
  const out: RuntimeDeps = {
    ...deps,
    leases: tracedLeases(tracing, deps.leases),
    runs: tracedRuns(tracing, deps.runs, deps.clock),
    observe: tracedObserver(tracing, deps.observe),
  };
  mine.byInput.set(deps, out);
  mine.outputs.add(out);
  return out;
}
