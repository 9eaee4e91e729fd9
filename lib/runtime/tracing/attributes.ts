/**
 * Span and event attribute names of cronfence's traces: the OpenTelemetry FaaS semantic conventions
 * (FaaS spans, timer trigger: `faas.trigger`, `faas.cron`, `faas.time`, `faas.invocation_id`,
 * `faas.coldstart`, `cloud.resource_id`) and cronfence's own, under `cronfence.`.
 */
import type { Attributes } from '@opentelemetry/api';
import type { ScheduleExpression } from '../../core/schedule/expression.js';

/** Attribute keys. `as const` object with a derived union. */
export const Attr = {
  FaasTrigger: 'faas.trigger',
  FaasCron: 'faas.cron',
  FaasTime: 'faas.time',
  FaasInvocationId: 'faas.invocation_id',
  FaasColdstart: 'faas.coldstart',
  CloudResourceId: 'cloud.resource_id',
  Job: 'cronfence.job',
  JobKey: 'cronfence.job_key',
  Slot: 'cronfence.slot',
  Shard: 'cronfence.shard',
  RunId: 'cronfence.run_id',
  Fence: 'cronfence.fence',
  Trigger: 'cronfence.trigger',
  Schedule: 'cronfence.schedule',
  Outcome: 'cronfence.outcome',
  Reason: 'cronfence.reason',
  /** The run id (or `sweeper`) that wrote an attempt's record for it: abandoned marks, sweeper records. */
  RecordedBy: 'cronfence.recorded_by',
  /** False when the attempt ended without a run record (the write itself failed). */
  RecordWritten: 'cronfence.record_written',
  ClaimDecision: 'cronfence.claim.decision',
  HolderRunId: 'cronfence.holder.run_id',
  Table: 'cronfence.table',
  InsertOnceResult: 'cronfence.insert_once.result',
  EffectKey: 'cronfence.effect.key',
  EffectProvider: 'cronfence.effect.provider',
  EffectIdempotencyKeys: 'cronfence.effect.idempotency_keys',
  EffectStatus: 'cronfence.effect.status',
  EffectSource: 'cronfence.effect.source',
  EffectAttempts: 'cronfence.effect.attempts',
  EffectFrom: 'cronfence.effect.from',
  EffectTo: 'cronfence.effect.to',
  Note: 'cronfence.note',
  WaitMs: 'cronfence.wait_ms',
  LeaseUntilMs: 'cronfence.lease_until_ms',
  StoredFence: 'cronfence.stored_fence',
  Target: 'cronfence.target',
  ReleaseDone: 'cronfence.release.done',
} as const;
/** Union of {@link Attr} values. */
export type Attr = (typeof Attr)[keyof typeof Attr];

/** Span names (low cardinality: the attempt span is named after the job, as FaaS spans are). */
export const SpanName = {
  Claim: 'cronfence.claim',
  Body: 'cronfence.body',
  FencedWrite: 'cronfence.fenced_write',
  InsertOnce: 'cronfence.insert_once',
  Effect: 'cronfence.effect',
  Record: 'cronfence.record',
  Release: 'cronfence.release',
  MarkAbandoned: 'cronfence.mark_abandoned',
  LateCopyCheck: 'cronfence.late_copy_check',
} as const;

/** Span event names: decisions that are not operations of their own. */
export const EventName = {
  /** The claim was refused (lease held, overlap, already succeeded, paused, ...) or waited for a holder. */
  Skip: 'cronfence.skip',
  /** A write refused for a stale fence, or an event refused as not on the schedule. */
  Refusal: 'cronfence.refusal',
  Renew: 'cronfence.lease.renew',
  AbandonedMarked: 'cronfence.abandoned_marked',
  EffectTransition: 'cronfence.effect.transition',
} as const;

/** `faas.cron` of a cron schedule: the expression inside `cron(...)`, e.g. `30 2 * * ? *`; none for rate/at. */
export function faasCron(expression: ScheduleExpression): string | undefined {
  if (expression.kind !== 'cron') return undefined;
  return /^cron\((.*)\)$/.exec(expression.expression)?.[1] ?? expression.expression;
}

/** Drop undefined values (OpenTelemetry ignores them, but exporters and tests read cleaner without). */
export function defined(attrs: Record<string, string | number | boolean | undefined>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) out[k] = v;
  return out;
}
