/**
 * The floor of cronfence's cost: an occurrence's protocol requests — claim, run record,
 * release — built by the protocol's own declarations (lib/store/protocol/operations.ts) ahead of the
 * timed phase, marshalled, and sent through a bare DynamoDBClient with no library code around them.
 * What a lane costs is then what the requests cost, which bounds what any lightening of the library
 * can reach. `Strip` takes parts out of the requests (each part named with the guarantee it carries)
 * to measure what the requests' shape costs: bench/peer-shapes.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  type DynamoDBClient,
  PutItemCommand,
  type PutItemCommandInput,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { nextDoneSlots } from '../../lib/core/lease.js';
import { Outcome, Trigger } from '../../lib/core/outcomes.js';
import { newRunId } from '../../lib/runtime/run-summary.js';
import { writeInput } from '../../lib/store/protocol/dynamo-backend.js';
import { claim, putRunRecord, release } from '../../lib/store/protocol/operations.js';
import type { Write } from '../../lib/store/protocol/request.js';

/**
 * Parts a variant leaves out of cronfence's requests; each drops the guarantee named. @default none:
 * the requests cronfence sends.
 */
export interface Strip {
  /** Claim without `ReturnValues: ALL_OLD`: no done set, displaced holder or open list (lost claims). */
  readonly claimReturnsNothing?: boolean;
  /**
   * Claim with the lease condition only (`leaseUntilMs < now`) and owner, expiry, slot, state and
   * `ADD fence`: no done-set refusal of duplicates, no pause, no displaced holder, no open list.
   */
  readonly minimalClaim?: boolean;
  /**
   * Run record of keys, outcome, fence, trigger, times, definition id and TTL only: no job, slot, run
   * id or business date for readers without the keys, no Lambda request or Scheduler execution id.
   */
  readonly slimRecord?: boolean;
  /** Release without the done set: every late copy claims and runs its body again (an empty set reads nothing). */
  readonly releaseWithoutDoneSet?: boolean;
  /** No `ReturnValuesOnConditionCheckFailure`: a refused request decides only after a read. */
  readonly noRefusalItem?: boolean;
  /** No run record at all (claim, body, release: Powertools' count): no record of the run. */
  readonly noRunRecord?: boolean;
  /**
   * Run record and release as ONE `TransactWriteItems` (3 requests, nothing dropped), which DynamoDB
   * bills 2 WCU per item up to 1 KB: the finish costs 4 WCU instead of 2 (DynamoDB Local reports 2).
   */
  readonly transactionFinish?: boolean;
}

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false };
const SLIM_DROPS = [
  'job',
  'slot',
  'runId',
  'kind',
  'durationMs',
  'businessDate',
  'lambdaRequestId',
  'executionId',
  'attemptNumber',
];

/** The low-level input of a declared single write, marshalled (what the Document client sends). */
export function lowInput(w: Write): Record<string, unknown> {
  const input = writeInput(w) as Record<string, unknown> & {
    Item?: Record<string, unknown>;
    Key?: Record<string, unknown>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  return {
    ...input,
    ...(input.Item && { Item: marshall(input.Item, MARSHALL) }),
    ...(input.Key && { Key: marshall(input.Key, MARSHALL) }),
    ...(input.ExpressionAttributeValues && {
      ExpressionAttributeValues: marshall(input.ExpressionAttributeValues, MARSHALL),
    }),
  };
}

interface Prepared {
  readonly claim: UpdateItemCommandInput;
  readonly record: PutItemCommandInput;
  readonly release: UpdateItemCommandInput;
}

/**
 * One job's floor: it owns its lease item (a fresh job name), so each claim's fence is known in
 * advance. `prepare` the occurrences of a phase before timing it, then `run` each.
 */
export class FloorLane {
  private fence = 0;
  private done: ReadonlySet<string> = new Set();
  private readonly prepared = new Map<number, Prepared>();

  constructor(
    private readonly o: {
      readonly client: DynamoDBClient;
      readonly table: string;
      readonly job: string;
      /** Definition id of the job (lib/core/liveness.ts definitionId). */
      readonly def: string;
      /** Scheduled time of occurrence `i`, epoch ms (a whole UTC minute). */
      readonly scheduledMs: (i: number) => number;
      readonly strip?: Strip;
    },
  ) {}

  /** Build the requests of occurrences `from`..`from + n - 1`. */
  prepare(from: number, n: number): void {
    const { table, job, def } = this.o;
    const strip = this.o.strip ?? {};
    for (let i = from; i < from + n; i++) {
      const nowMs = Date.now();
      const runId = newRunId(nowMs);
      const scheduled = new Date(this.o.scheduledMs(i)).toISOString();
      const slotId = `${scheduled.slice(0, 16)}:00Z`;
      this.fence += 1;
      const fence = this.fence;
      const leaseUntilMs = nowMs + 60_000;
      let c = lowInput(
        claim.request({
          table,
          job,
          runId,
          slotId,
          nowMs,
          leaseUntilMs,
          lambdaRequestId: randomUUID(),
          trigger: Trigger.Schedule,
          force: false,
          def,
        }).writes[0],
      );
      if (strip.minimalClaim)
        c = {
          TableName: table,
          Key: c.Key,
          ConditionExpression: 'attribute_not_exists(#u) OR #u < :now',
          UpdateExpression: 'SET #o = :o, #u = :u, #s = :s, #h = :h ADD #f :one',
          ExpressionAttributeNames: {
            '#u': 'leaseUntilMs',
            '#o': 'owner',
            '#s': 'slot',
            '#h': 'holderState',
            '#f': 'fence',
          },
          ExpressionAttributeValues: marshall({
            ':now': nowMs,
            ':o': runId,
            ':u': leaseUntilMs,
            ':s': slotId,
            ':h': 'running',
            ':one': 1,
          }),
          ReturnValues: 'ALL_OLD',
        };
      if (strip.claimReturnsNothing) delete c.ReturnValues;
      const record = lowInput(
        putRunRecord.request({
          table,
          retentionDays: 30,
          record: {
            job,
            slot: slotId,
            scheduledTime: scheduled,
            businessDate: slotId.slice(0, 10),
            runId,
            trigger: Trigger.Schedule,
            lambdaRequestId: randomUUID(),
            executionId: randomUUID(),
            attemptNumber: 1,
            fence,
            outcome: Outcome.Succeeded,
            startedAtMs: nowMs,
            finishedAtMs: nowMs + 10,
            durationMs: 10,
            def,
          },
        }).writes[0],
      ) as { Item: Record<string, unknown> };
      if (strip.slimRecord) for (const k of SLIM_DROPS) delete record.Item[k];
      const doneSlots = nextDoneSlots(this.done, slotId, 32);
      this.done = doneSlots;
      const rel = lowInput(
        release.request({
          table,
          job,
          runId,
          fence,
          nowMs,
          def,
          clearOpen: true,
          recorded: true,
          ...(!strip.releaseWithoutDoneSet && { doneSlots, succeededSlot: slotId }),
        }).writes[0],
      );
      const refusal = (x: Record<string, unknown>) => {
        if (strip.noRefusalItem) delete x.ReturnValuesOnConditionCheckFailure;
        return x;
      };
      this.prepared.set(i, {
        claim: refusal(c) as unknown as UpdateItemCommandInput,
        record: refusal(record) as unknown as PutItemCommandInput,
        release: refusal(rel) as unknown as UpdateItemCommandInput,
      });
    }
  }

  /**
   * Send occurrence `i`: claim, `body`, run record, release — or, with `parallelFinish`, the record and
   * the release at once (one round trip less; see docs/design.md "Why the finish is two ordered writes").
   * @throws Error when `i` was not prepared; ConditionalCheckFailedException when a claim is refused
   */
  async run(i: number, body: () => Promise<unknown>, parallelFinish = false): Promise<void> {
    const p = this.prepared.get(i);
    if (!p) throw new Error(`floor ${this.o.job}: occurrence ${i} was not prepared`);
    this.prepared.delete(i);
    const { client } = this.o;
    await client.send(new UpdateItemCommand(p.claim));
    await body();
    const record = () =>
      this.o.strip?.noRunRecord ? Promise.resolve() : client.send(new PutItemCommand(p.record));
    const rel = () => client.send(new UpdateItemCommand(p.release));
    if (this.o.strip?.transactionFinish)
      await client.send(
        new TransactWriteItemsCommand({
          // biome-ignore lint/suspicious/noExplicitAny: the single writes' inputs, as a transaction's parts
          TransactItems: [{ Put: p.record as any }, { Update: p.release as any }],
        }),
      );
    else if (parallelFinish) await Promise.all([record(), rel()]);
    else {
      await record();
      await rel();
    }
  }
}
