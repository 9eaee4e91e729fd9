/**
 * Gather AWS's evidence for the occurrences a job's table holds nothing of: the schedule once, the
 * dead-letter queues once (peeked), and per occurrence one GetMetricData for Scheduler's group metrics and
 * one for the function's. Requests: 2–3 + 2 per queue-read + 2 per occurrence (at most
 * {@link MAX_EVIDENCE_SLOTS} occurrences; the rest say so).
 */
import {
  LAMBDA_METRICS,
  lambdaDeadLetterArn,
  type PeekedMessage,
  peekQueue,
  readMetrics,
  readSchedule,
  SCHEDULER_METRICS,
} from './aws-evidence.js';
import { deadLettersFor } from './dead-letters.js';
import type { DeployedTarget, EvidenceClients } from './evidence-port.js';
import type { DeliveryEvidence, ScheduleFacts, Unreadable } from './model.js';

/** At most this many unrecorded occurrences get their metrics read in one `why`. */
export const MAX_EVIDENCE_SLOTS = 20;

/** The job definition's schedule, to compare with the deployed one. */
export interface DefinedSchedule {
  readonly job: string;
  readonly expression: string;
  readonly timeZone: string;
}

/**
 * Evidence per occurrence instant (epoch ms) for `slotsMs`.
 * @param defined the job definition's schedule, when the job's code was loaded (else nothing to compare).
 */
export async function gatherEvidence(
  clients: EvidenceClients,
  target: DeployedTarget,
  defined: DefinedSchedule | undefined,
  slotsMs: readonly number[],
  nowMs: number,
): Promise<Map<number, DeliveryEvidence>> {
  const shared: Unreadable[] = [];
  const sched = await readSchedule(clients, target);
  let schedule: ScheduleFacts | undefined;
  if ('unreadable' in sched) shared.push(sched.unreadable);
  else if (sched.value === undefined) schedule = { exists: false, mismatches: [] };
  else {
    const s = sched.value;
    const mismatches: string[] = [];
    if (defined && s.expression !== undefined && s.expression !== defined.expression)
      mismatches.push(`expression ${s.expression} deployed, ${defined.expression} defined`);
    if (defined && s.timeZone !== undefined && s.timeZone !== defined.timeZone)
      mismatches.push(`zone ${s.timeZone} deployed, ${defined.timeZone} defined`);
    schedule = { exists: true, ...s, mismatches };
  }
  const arns = new Set<string>();
  if (schedule?.deadLetterArn) arns.add(schedule.deadLetterArn);
  const fnDlq = await lambdaDeadLetterArn(clients, target.functionName);
  if ('unreadable' in fnDlq) shared.push(fnDlq.unreadable);
  else if (fnDlq.value?.startsWith('arn:aws:sqs:')) arns.add(fnDlq.value);
  const messages: PeekedMessage[] = [];
  let queuesRead = arns.size > 0;
  for (const arn of arns) {
    const peek = await peekQueue(clients, arn);
    if ('unreadable' in peek) {
      shared.push(peek.unreadable);
      queuesRead = false;
    } else messages.push(...peek.value);
  }
  const group = schedule?.group ?? target.scheduleGroup;
  const out = new Map<number, DeliveryEvidence>();
  for (const [i, slotMs] of slotsMs.entries()) {
    const unreadable = [...shared];
    const e: { -readonly [K in keyof DeliveryEvidence]: DeliveryEvidence[K] } = { unreadable };
    if (schedule) e.schedule = schedule;
    if (queuesRead || messages.length > 0)
      e.deadLetters = deadLettersFor(messages, defined?.job ?? target.scheduleName, slotMs);
    if (i >= MAX_EVIDENCE_SLOTS) {
      unreadable.push({
        source: 'metrics',
        reason: `not read: more than ${MAX_EVIDENCE_SLOTS} occurrences without a record (narrow the range)`,
      });
    } else {
      if (group === undefined)
        unreadable.push({
          source: 'AWS/Scheduler',
          reason: 'not read: the schedule group is unknown (pass `scheduleGroup`)',
        });
      else {
        const sm = await readMetrics(
          clients,
          'AWS/Scheduler',
          { Name: 'ScheduleGroup', Value: group },
          SCHEDULER_METRICS,
          slotMs,
          nowMs,
        );
        if ('unreadable' in sm) unreadable.push(sm.unreadable);
        else e.scheduler = sm.value;
      }
      const lm = await readMetrics(
        clients,
        'AWS/Lambda',
        { Name: 'FunctionName', Value: target.functionName },
        LAMBDA_METRICS,
        slotMs,
        nowMs,
      );
      if ('unreadable' in lm) unreadable.push(lm.unreadable);
      else e.lambda = lm.value;
    }
    out.set(slotMs, e);
  }
  return out;
}
