/**
 * The trace of one occurrence: a trace id derived from the job's identity and the slot id alone, so
 * every attempt of a slot — on-time, Scheduler and Lambda retries, duplicates, late copies, catch-ups,
 * backfills, shard runs, in any process — lands in the same trace without any coordination.
 */
import { createHash } from 'node:crypto';
import { type SpanContext, TraceFlags } from '@opentelemetry/api';

/** Version tag hashed with the occurrence: changing it would move every slot to a new trace. */
const DERIVATION = 'cronfence/occurrence/v1';

/** Lower-case hex of SHA-256 over the derivation tag, job key and slot id (NUL-separated). */
function occurrenceHash(jobKey: string, slotId: string): string {
  return createHash('sha256').update(`${DERIVATION}\0${jobKey}\0${slotId}`).digest('hex');
}

/** The largest UTC offset of any zone (Pacific/Kiritimati, +14:00), seconds. */
const MAX_ZONE_OFFSET_S = 14 * 3600;

/**
 * The first 8 hex characters of the trace id: the slot id's date and minute read as UTC, less the
 * largest zone offset, in epoch seconds — never later than the slot's real instant in any zone, and
 * close to it, as AWS X-Ray requires of a trace id's first 32 bits (the trace's start time; X-Ray
 * rejects ids more than 30 days old). Undefined when the id has no `yyyy-MM-ddTHH:mm` start.
 */
function slotTimeHex(slotId: string): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})/.exec(slotId);
  if (!m) return undefined;
  const s = Math.floor(Date.parse(`${m[1]}:00Z`) / 1000) - MAX_ZONE_OFFSET_S;
  return Number.isFinite(s) && s > 0 && s < 2 ** 32 ? s.toString(16).padStart(8, '0') : undefined;
}

/** Replace an all-zero id (invalid in W3C Trace Context) by one ending in 1. */
const nonZero = (hex: string): string => (/^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex);

/**
 * The occurrence's trace id and the id of its virtual root span, both lower-case hex (32 and 16
 * characters), from the job key and the slot id alone: the trace id is the slot's time in epoch
 * seconds ({@link slotTimeHex}: 4 bytes, X-Ray's trace id layout) then the first 12 bytes of
 * SHA-256(`cronfence/occurrence/v1`, job key, slot id) — the first 16 when the slot id has no date;
 * the root span id is the hash's next 8 bytes.
 * @param jobKey - the job's identity in the table (`jobKeyOf`: its `id`, else its name)
 * @param slotId - the slot id as run records store it (`2026-03-28T02:30` local, `2026-03-28T17:00Z` UTC)
 * @example occurrenceIds('daily-report', '2026-03-28T02:30').traceId // 32 hex characters
 */
export function occurrenceIds(jobKey: string, slotId: string): { traceId: string; rootSpanId: string } {
  const hex = occurrenceHash(jobKey, slotId);
  const time = slotTimeHex(slotId);
  const traceId = time === undefined ? hex.slice(0, 32) : `${time}${hex.slice(0, 24)}`;
  return { traceId: nonZero(traceId), rootSpanId: nonZero(hex.slice(32, 48)) };
}

/**
 * The span context every attempt span of the occurrence has as its parent: the derived trace id, the
 * derived root span id, sampled, remote. No process ever ends a span with this id (no attempt knows
 * whether it is the first): the attempts are the trace's top-level spans, siblings under one root id.
 */
export function occurrenceSpanContext(jobKey: string, slotId: string): SpanContext {
  const { traceId, rootSpanId } = occurrenceIds(jobKey, slotId);
  return { traceId, spanId: rootSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
}
