/**
 * `why`'s human output: one line per occurrence (slot, class, verdict), the AWS evidence under an
 * occurrence the table holds nothing of, and the evidence that could not be read, with why.
 */
import type { WhyReport } from './explain.js';
import type { DeliveryEvidence, MetricFacts, SlotLine } from './model.js';

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/** One occurrence as one line: `<slot>  <class>  <verdict>`. */
export function formatLine(l: SlotLine): string {
  return `${l.slot.padEnd(20)}  ${l.class.padEnd(20)}  ${l.verdict}`;
}

const metrics = (m: MetricFacts, names: readonly string[], key: 'minute' | 'after') =>
  names.map((n) => `${n} ${m[key][n] ?? 0}`).join(', ');

/** The evidence lines under a `not-recorded` occurrence (indented). */
export function formatEvidence(e: DeliveryEvidence): string[] {
  const out: string[] = [];
  const s = e.schedule;
  if (s)
    out.push(
      s.exists
        ? `schedule (group ${s.group ?? '?'}): ${s.state ?? '?'}, ${s.expression ?? '?'} in ${s.timeZone ?? '?'}${s.startMs !== undefined ? `, start ${iso(s.startMs)}` : ''}${s.mismatches.length ? ` — differs: ${s.mismatches.join('; ')}` : ', as defined'}`
        : 'schedule: does not exist',
    );
  if (e.scheduler)
    out.push(
      `Scheduler (group) that minute: ${metrics(e.scheduler, ['InvocationAttemptCount', 'TargetErrorCount', 'TargetErrorThrottledCount'], 'minute')}; dropped in the 30 h after: ${e.scheduler.after.InvocationDroppedCount ?? 0}`,
    );
  if (e.lambda)
    out.push(
      `function in the 30 h after: ${metrics(e.lambda, ['Throttles', 'AsyncEventsDropped'], 'after')}, AsyncEventAge max ${Math.round((e.lambda.after.AsyncEventAge ?? 0) / 1000)} s`,
    );
  if (e.deadLetters)
    out.push(
      e.deadLetters.length === 0
        ? 'dead-letter queues: no message for this occurrence (peeked, nothing consumed)'
        : `dead-letter queues: ${e.deadLetters.map((d) => `${d.queue} message ${d.messageId} from ${d.from}${d.errorCode ? ` (${d.errorCode})` : ''}`).join('; ')} (peeked, nothing consumed)`,
    );
  for (const u of e.unreadable) out.push(`not read — ${u.source}: ${u.reason}`);
  return out.map((l) => `    ${l}`);
}

/** The whole report as text. */
export function formatReport(r: WhyReport): string {
  const head = `${r.job}: ${r.lines.length} occurrence(s) ${iso(r.fromMs)} .. ${iso(r.toMs)} (table ${r.table}; schedule from the ${r.scheduleSource === 'none' ? 'records only' : r.scheduleSource})`;
  const body = r.lines.flatMap((l) => [formatLine(l), ...(l.evidence ? formatEvidence(l.evidence) : [])]);
  const gaps = r.unreadable.map((u) => `not read — ${u.source}: ${u.reason}`);
  return [head, ...body, ...gaps].join('\n');
}
