/**
 * The verdict in words for an occurrence the table holds nothing of (pure), from what AWS said: the
 * dead-letter message first (it names the occurrence and the error), then the deployed schedule, then
 * Scheduler's and the function's metrics. The delivery paths and their bounds: docs/design.md
 * "The bound per delivery path".
 */
import type { DeliveryEvidence } from './model.js';

const n = (v: number | undefined) => v ?? 0;

/** The verdict of an occurrence with no record, given the evidence that could be read. */
export function deliveryVerdict(e: DeliveryEvidence, slotMs: number, nowMs: number): string {
  const dlq = e.deadLetters?.find((d) => d.from === 'scheduler') ?? e.deadLetters?.[0];
  const error = dlq?.errorCode ? ` (${dlq.errorCode}${dlq.errorMessage ? `: ${dlq.errorMessage}` : ''})` : '';
  if (dlq?.from === 'scheduler')
    return `never delivered: Scheduler dropped it after ${dlq.attempts ?? '?'} retries${error} — see the DLQ message ${dlq.messageId} in ${dlq.queue}`;
  if (dlq)
    return `handed to Lambda, never run: Lambda gave up after ${dlq.attempts ?? '?'} attempt(s)${error} — see the DLQ message ${dlq.messageId} in ${dlq.queue}`;
  const s = e.schedule;
  if (s && !s.exists)
    return 'never delivered: the schedule does not exist (deleted, or never deployed under this name)';
  if (s?.state === 'DISABLED') return 'never delivered: the schedule is DISABLED';
  if (s && s.startMs !== undefined && slotMs < s.startMs)
    return `never delivered: before the schedule's StartDate (${new Date(s.startMs).toISOString()})`;
  if (s && s.mismatches.length > 0)
    return `never delivered as defined: the deployed schedule differs from the job definition (${s.mismatches.join('; ')})`;
  const sm = e.scheduler;
  const lm = e.lambda;
  if (sm && n(sm.after.InvocationDroppedCount) > 0)
    return `never delivered: Scheduler dropped an invocation (InvocationDroppedCount ${sm.after.InvocationDroppedCount} in the 30 h after it; no DLQ message names it)`;
  if (lm && n(lm.after.AsyncEventsDropped) > 0)
    return `handed to Lambda, never run: Lambda dropped an async event (AsyncEventsDropped ${lm.after.AsyncEventsDropped} in the 30 h after it)`;
  if (sm && (n(sm.minute.TargetErrorThrottledCount) > 0 || n(sm.minute.TargetErrorCount) > 0)) {
    const still =
      nowMs - slotMs < 24 * 3_600_000 ? 'Scheduler retries it up to 24 h' : 'its 24 h of retries are over';
    return `not delivered: Scheduler's hand-off failed that minute (TargetErrorCount ${n(sm.minute.TargetErrorCount)}, TargetErrorThrottledCount ${n(sm.minute.TargetErrorThrottledCount)}); ${still}, then the DLQ`;
  }
  if (lm && n(lm.after.Throttles) > 0)
    return `handed to Lambda, throttled (Throttles ${lm.after.Throttles}, AsyncEventAge up to ${Math.round(n(lm.after.AsyncEventAge) / 1000)} s): the event waits in Lambda's queue up to 6 h, then the DLQ`;
  if (sm && n(sm.minute.InvocationAttemptCount) > 0)
    return `Scheduler invoked the group's targets that minute (InvocationAttemptCount ${sm.minute.InvocationAttemptCount}) but no run recorded it: the function failed before its first write (see its logs), or it writes to another table`;
  if (sm) return 'never delivered: Scheduler made no attempt in that minute (InvocationAttemptCount 0)';
  return `no record, and the evidence could not be read (${e.unreadable.map((u) => u.source).join(', ') || 'none'})`;
}
