/**
 * `cronfence why <job>`: every occurrence the schedule expects in a range, with what became of it and
 * the evidence. The table's half reads ONE Query of the job's run records over the range (all pages,
 * strongly consistent) and ONE GetItem of its lease; occurrences with no record get AWS's evidence
 * (gather.ts) when AWS is reachable. Works without the job's code: the deployed schedule (GetSchedule)
 * then gives the expression and zone to enumerate.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JobDefinition } from '../../lib/core/job-definition.js';
import type { LeaseItem } from '../../lib/core/lease.js';
import { dstGapOf } from '../../lib/core/schedule/dst-gap.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import { parseScheduleExpression } from '../../lib/core/schedule/expression.js';
import { queryItems } from '../../lib/store/client.js';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import { Attr, Keys } from '../../lib/store/schema.js';
import { readSchedule } from './aws-evidence.js';
import { classifySlots, needsEvidence } from './classify.js';
import type { DeployedTarget, EvidenceClients } from './evidence-port.js';
import { gatherEvidence } from './gather.js';
import type { SlotLine, Unreadable, WhyRecord } from './model.js';
import { deliveryVerdict } from './verdict.js';

/** The sweeper's grace after an occurrence before it counts as missed, ms (lib/runtime/sweeper.ts). */
export const WHY_GRACE_MS = 600_000;
/** The most two zones' local times differ, ms: records are read this much around the range. */
const ZONE_SPAN_MS = 26 * 3_600_000;

/** What `why` knows of the job. */
export interface WhyJob {
  /** The job's name: its schedule, its function. */
  readonly name: string;
  /** Its table key (`id`, else the name). @default name */
  readonly key?: string;
  /** The definition, when the job's code was loaded. @default read the deployed schedule */
  readonly definition?: JobDefinition;
}

/** Input of {@link explainJob}. */
export interface ExplainInput {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly job: WhyJob;
  /** The range, epoch ms, both ends inclusive. */
  readonly fromMs: number;
  readonly toMs: number;
  readonly nowMs: number;
  /** Only the occurrences whose slot id starts with this (`--slot`). @default every one in the range */
  readonly slotPrefix?: string;
  /** AWS's evidence: its clients and where the job is deployed; or why it is not read (DynamoDB Local). */
  readonly aws:
    | { readonly clients: EvidenceClients; readonly target: DeployedTarget }
    | { readonly skipped: string };
}

/** What `why` found. */
export interface WhyReport {
  readonly job: string;
  readonly table: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Where the expected occurrences came from. */
  readonly scheduleSource: 'definition' | 'deployed schedule' | 'none';
  readonly lines: readonly SlotLine[];
  /** Evidence that could not be read for the whole job (per-occurrence gaps are on the lines). */
  readonly unreadable: readonly Unreadable[];
}

async function readRecords(i: ExplainInput, key: string): Promise<WhyRecord[]> {
  const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  const items = await queryItems(i.doc, {
    TableName: i.tableName,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
    ExpressionAttributeValues: {
      ':pk': Keys.lease(key).pk,
      ':from': `RUN#${minute(i.fromMs - ZONE_SPAN_MS)}`,
      ':to': `RUN#${minute(i.toMs + ZONE_SPAN_MS)}#\uffff`,
    },
    ConsistentRead: true,
  });
  return items as unknown as WhyRecord[];
}

/** The schedule to enumerate: the definition's, else the deployed one's. */
async function scheduleOf(i: ExplainInput, unreadable: Unreadable[]) {
  const d = i.job.definition;
  if (d) return { source: 'definition' as const, def: d };
  if ('skipped' in i.aws) {
    unreadable.push({
      source: 'schedule',
      reason: `not read: ${i.aws.skipped}; load the job's code to list its occurrences`,
    });
    return { source: 'none' as const };
  }
  const s = await readSchedule(i.aws.clients, i.aws.target);
  if ('unreadable' in s) unreadable.push(s.unreadable);
  else if (s.value?.expression && s.value.timeZone) {
    const def = { schedule: s.value.expression, timeZone: s.value.timeZone, rateAnchorMs: s.value.startMs };
    return { source: 'deployed schedule' as const, def };
  } else
    unreadable.push({
      source: 'schedule',
      reason: `no schedule named ${i.job.name}: only recorded runs are listed`,
    });
  return { source: 'none' as const };
}

/** Explain every occurrence of the job in the range. @throws StoreError when the table cannot be read. */
export async function explainJob(i: ExplainInput): Promise<WhyReport> {
  const key = i.job.key ?? i.job.name;
  const unreadable: Unreadable[] = [];
  const [records, lease] = await Promise.all([
    readRecords(i, key),
    new DynamoLeaseStore(i.doc, i.tableName).get({ job: key }) as Promise<LeaseItem | undefined>,
  ]);
  const sched = await scheduleOf(i, unreadable);
  const def = 'def' in sched ? sched.def : undefined;
  const expr = def ? parseScheduleExpression(def.schedule) : undefined;
  const slots =
    def && expr
      ? enumerateSlots(
          { schedule: expr, timeZone: def.timeZone, dstGap: 'shift', startMs: def.rateAnchorMs ?? 0 },
          i.fromMs - 1,
          i.toMs,
        )
      : [];
  const jobDef = i.job.definition;
  const all = classifySlots({
    slots,
    // The job's policy (without its code: the default for its schedule, as defineJob would choose).
    dstGap: expr ? dstGapOf({ dstGap: jobDef?.dstGap }, expr) : 'shift',
    timeZone: def?.timeZone ?? 'UTC',
    records,
    ...(lease && { lease }),
    fromMs: i.fromMs,
    toMs: i.toMs,
    nowMs: i.nowMs,
    graceMs: WHY_GRACE_MS,
    ...(jobDef && { shards: jobDef.shards }),
    ...(jobDef?.catchUp?.sinceMs !== undefined && { floorMs: jobDef.catchUp.sinceMs }),
  });
  const lines = all.filter((l) => i.slotPrefix === undefined || l.slot.startsWith(i.slotPrefix));
  const open = lines.filter(needsEvidence);
  if (open.length > 0 && !('skipped' in i.aws)) {
    const evidence = await gatherEvidence(
      i.aws.clients,
      i.aws.target,
      def ? { job: i.job.name, expression: def.schedule, timeZone: def.timeZone } : undefined,
      open.map((l) => Date.parse(l.scheduledTime)),
      i.nowMs,
    );
    return report(
      i,
      sched.source,
      lines.map((l) => withEvidence(l, evidence, i.nowMs)),
      unreadable,
    );
  }
  if (open.length > 0 && 'skipped' in i.aws)
    unreadable.push({ source: 'AWS evidence', reason: `not read: ${i.aws.skipped}` });
  return report(i, sched.source, lines, unreadable);
}

function withEvidence(
  l: SlotLine,
  evidence: ReadonlyMap<number, SlotLine['evidence']>,
  nowMs: number,
): SlotLine {
  const at = Date.parse(l.scheduledTime);
  const e = needsEvidence(l) ? evidence.get(at) : undefined;
  return e ? { ...l, evidence: e, verdict: deliveryVerdict(e, at, nowMs) } : l;
}

function report(
  i: ExplainInput,
  source: WhyReport['scheduleSource'],
  lines: SlotLine[],
  unreadable: Unreadable[],
): WhyReport {
  return {
    job: i.job.name,
    table: i.tableName,
    fromMs: i.fromMs,
    toMs: i.toMs,
    scheduleSource: source,
    lines,
    unreadable,
  };
}
