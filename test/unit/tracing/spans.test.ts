/**
 * unit (in-memory store, virtual time, the SDK's in-memory span exporter): the spans of one traced
 * job — the attempt span with the FaaS attributes, its claim / body / write / effect / record /
 * release children, a duplicate's skip event — all in the occurrence's derived trace.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { Stage } from '../../../harness/drills/stage.js';
import { OccurrenceTracing, occurrenceIds, withTracing } from '../../../lib/entries/tracing.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { effectRunner } from '../../../lib/runtime/effect-runner.js';

const T0 = Date.parse('2026-03-28T01:30:05Z');
const SLOT = Date.parse('2026-03-28T01:30:00Z');
const SLOT_ID = '2026-03-28T02:30';

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracing = new OccurrenceTracing({ tracer: provider.getTracer('cronfence') });
  return { exporter, tracing };
}

const job = () =>
  defineJob({
    effects: effectRunner,
    name: 'traced-report',
    schedule: 'cron(30 2 * * ? *)',
    timeZone: 'Europe/Berlin',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    run: async (ctx) => {
      await ctx.fencedPut('reports', { reportDate: ctx.businessDate }, { body: 'x' });
      await ctx.insertOnce('rows', { id: `${ctx.businessDate}#1` }, { n: 1 });
      await ctx.effect(
        `mail#${ctx.businessDate}`,
        { to: 'ops' },
        {
          name: 'mailer',
          idempotencyKeys: true,
          keyRetentionMs: Number.POSITIVE_INFINITY,
          send: async () => ({ kind: 'succeeded', providerRef: 'm-1', response: { ok: true } }),
        },
      );
    },
  });

/** `name [parent name]` per span, in end order. */
function tree(spans: readonly ReadableSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  return spans.map((s) => {
    const parent = s.parentSpanContext ? byId.get(s.parentSpanContext.spanId)?.name : undefined;
    return `${s.name} <- ${parent ?? (s.parentSpanContext ? 'occurrence root' : 'none')}`;
  });
}

describe('withTracing', () => {
  it('emits the attempt span and its children in the trace derived from job and slot', async () => {
    const { exporter, tracing } = setup();
    const handler = withTracing(job(), tracing);
    let now = () => T0;
    const backend = await memoryBackend(() => now());
    const stage = new Stage(T0, (p) => backend.depsFor(p));
    now = () => stage.time.nowMs;
    const w = stage.worker('A');
    const first = stage.deliver(
      {
        worker: w,
        handler,
        job: 'traced-report',
        scheduledTimeMs: SLOT,
        label: 'on-time',
        awsRequestId: 'req-1',
      },
      0,
    );
    await stage.run();
    const dup = stage.deliver(
      {
        worker: w,
        handler,
        job: 'traced-report',
        scheduledTimeMs: SLOT,
        label: 'dup',
        awsRequestId: 'req-2',
      },
      0,
    );
    await stage.run();
    expect((await first).summary?.outcome).toBe('succeeded');
    expect((await dup).summary).toMatchObject({ outcome: 'skipped', reason: 'already-succeeded' });

    const spans = exporter.getFinishedSpans();
    expect(tree(spans)).toEqual([
      'cronfence.claim <- traced-report',
      'cronfence.fenced_write <- cronfence.body',
      'cronfence.insert_once <- cronfence.body',
      'cronfence.effect <- cronfence.body',
      'cronfence.body <- traced-report',
      'cronfence.record <- traced-report',
      'cronfence.release <- traced-report',
      'traced-report <- occurrence root',
      'cronfence.claim <- traced-report',
      'cronfence.record <- traced-report',
      'traced-report <- occurrence root',
    ]);
    const { traceId, rootSpanId } = occurrenceIds('traced-report', SLOT_ID);
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    const attempts = spans.filter((s) => s.name === 'traced-report');
    expect(attempts.map((s) => s.parentSpanContext?.spanId)).toEqual([rootSpanId, rootSpanId]);
    expect(attempts[0]?.attributes).toMatchObject({
      'faas.trigger': 'timer',
      'faas.cron': '30 2 * * ? *',
      'faas.time': '2026-03-28T01:30:00Z',
      'faas.invocation_id': 'req-1',
      'faas.coldstart': true,
      'cronfence.job': 'traced-report',
      'cronfence.slot': SLOT_ID,
      'cronfence.fence': 1,
      'cronfence.trigger': 'schedule',
      'cronfence.outcome': 'succeeded',
      'cronfence.record_written': true,
    });
    expect(attempts[1]?.attributes).toMatchObject({
      'faas.invocation_id': 'req-2',
      'faas.coldstart': false,
      'cronfence.outcome': 'skipped',
      'cronfence.reason': 'already-succeeded',
    });
    expect(attempts[1]?.events.map((e) => [e.name, e.attributes?.['cronfence.reason']])).toEqual([
      ['cronfence.skip', 'already-succeeded'],
    ]);
    const effect = spans.find((s) => s.name === 'cronfence.effect');
    expect(effect?.attributes).toMatchObject({
      'cronfence.effect.key': 'mail#2026-03-28',
      'cronfence.effect.provider': 'mailer',
      'cronfence.effect.status': 'succeeded',
      'cronfence.effect.source': 'sent',
    });
    expect(
      effect?.events.map(
        (e) => `${e.attributes?.['cronfence.effect.from']} -> ${e.attributes?.['cronfence.effect.to']}`,
      ),
    ).toEqual(['none -> sending', 'sending -> succeeded']);
  });

  it('marks a failed attempt and its body span as errors, with the exception, and a malformed event too', async () => {
    const { exporter, tracing } = setup();
    const failing = defineJob({
      name: 'traced-failure',
      schedule: 'rate(5 minutes)',
      lease: { durationSeconds: 60 },
      timeoutSeconds: 120,
      run: async () => {
        throw new TypeError('bad merchant row');
      },
    });
    const handler = withTracing(failing, tracing);
    let now = () => T0;
    const backend = await memoryBackend(() => now());
    const stage = new Stage(T0, (p) => backend.depsFor(p));
    now = () => stage.time.nowMs;
    const r = stage.deliver(
      { worker: stage.worker('A'), handler, job: 'traced-failure', scheduledTimeMs: SLOT, label: 'on-time' },
      0,
    );
    await stage.run();
    expect((await r).summary).toMatchObject({ outcome: 'failed', reason: 'error' });
    const worker = stage.workers[0];
    if (!worker) throw new Error('no worker');
    const bad = handler.withDeps(() => worker.deps)({ job: 'traced-failure' }, lambdaLike());
    await expect(bad).rejects.toThrow(/scheduledTime/);

    const spans = exporter.getFinishedSpans();
    const summary = spans.map((s) => [
      s.name,
      s.status.code,
      s.status.message ?? '',
      s.events.filter((e) => e.name === 'exception').map((e) => e.attributes?.['exception.message']),
    ]);
    expect(summary).toEqual([
      ['cronfence.claim', 0, '', []],
      ['cronfence.body', 2, 'bad merchant row', ['bad merchant row']],
      ['cronfence.record', 0, '', []],
      ['cronfence.release', 0, '', []],
      ['traced-failure', 2, 'failed: error', ['bad merchant row']],
      ['traced-failure', 2, expect.stringMatching(/scheduledTime/), [expect.stringMatching(/scheduledTime/)]],
    ]);
    expect(spans[4]?.attributes).toMatchObject({ 'faas.trigger': 'timer', 'cronfence.outcome': 'failed' });
    expect(spans[4]?.attributes['faas.cron']).toBeUndefined();
    expect(spans[5]?.parentSpanContext).toBeUndefined();
  });

  it('calls flush once per invocation, after its attempt span ended (a provider the project registers)', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const seenAtFlush: string[][] = [];
    const handler = withTracing(job(), {
      tracer: provider.getTracer('cronfence'),
      flush: async () => {
        seenAtFlush.push(exporter.getFinishedSpans().map((x) => x.name));
        throw new Error('collector unreachable'); // ignored: never fails the run
      },
    });
    let now = () => T0;
    const backend = await memoryBackend(() => now());
    const stage = new Stage(T0, (p) => backend.depsFor(p));
    now = () => stage.time.nowMs;
    const r = stage.deliver(
      { worker: stage.worker('A'), handler, job: 'traced-report', scheduledTimeMs: SLOT, label: 'on-time' },
      0,
    );
    await stage.run();
    expect((await r).summary?.outcome).toBe('succeeded');
    expect(seenAtFlush.map((names) => names.at(-1))).toEqual(['traced-report']);
  });

  it('uses the globally registered provider by default and flushes it before the handler returns', async () => {
    const exporter = new InMemorySpanExporter();
    // A batching processor exports on a timer: only the flush makes the spans land before the return.
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000 })],
    });
    trace.setGlobalTracerProvider(provider);
    try {
      const handler = withTracing(job());
      let now = () => T0;
      const backend = await memoryBackend(() => now());
      const stage = new Stage(T0, (p) => backend.depsFor(p));
      now = () => stage.time.nowMs;
      const r = stage.deliver(
        { worker: stage.worker('A'), handler, job: 'traced-report', scheduledTimeMs: SLOT, label: 'on-time' },
        0,
      );
      await stage.run();
      expect((await r).summary?.outcome).toBe('succeeded');
      expect(
        exporter
          .getFinishedSpans()
          .map((x) => x.name)
          .at(-1),
      ).toBe('traced-report');
      expect(exporter.getFinishedSpans()).toHaveLength(8);
    } finally {
      trace.disable();
      await provider.shutdown();
    }
  });
});

function lambdaLike() {
  return {
    awsRequestId: 'req-bad',
    functionName: 'traced-failure',
    getRemainingTimeInMillis: () => 60_000,
  } as unknown as Parameters<ReturnType<typeof withTracing>>[1];
}
