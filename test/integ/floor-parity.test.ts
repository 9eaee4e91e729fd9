/**
 * The floor of cronfence's cost (bench/support/floor.ts) is trustworthy only if it sends what cronfence
 * sends (integ: DynamoDB Local). Three successful occurrences of a real job (defineJob, deps on a
 * Document client) and three of a FloorLane are captured at the serialize step (the low-level,
 * marshalled input that goes on the wire) and compared request by request: the operations in order,
 * every expression string, the attribute names, the placeholders and the shape of every value (types,
 * list lengths, map keys) — the values themselves differ (run ids, times, fences, job names).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { FloorLane, type Strip } from '../../bench/support/floor.js';
import { benchJob, slotMs } from '../../bench/support/jobs.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { definitionId } from '../../lib/core/liveness.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

/** One request as it went on the wire. */
interface Sent {
  readonly op: string;
  readonly input: Record<string, unknown>;
}

/** Record every request's command name and marshalled input at the serialize step. */
function capture(client: DynamoDBClient | DynamoDBDocumentClient): Sent[] {
  const sent: Sent[] = [];
  client.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any, context: any) => async (args: any) => {
      sent.push({
        op: String(context.commandName).replace(/Command$/, ''),
        input: structuredClone(args.input),
      });
      return next(args);
    },
    { step: 'serialize', name: 'floorParityCapture' },
  );
  return sent;
}

/** The shape of a marshalled value: its type, list lengths and map keys, never the value itself. */
function shape(v: unknown): unknown {
  const [type, inner] = Object.entries(v as Record<string, unknown>)[0] ?? ['?', undefined];
  if (type === 'L') return { L: (inner as unknown[]).map(shape) };
  if (type === 'M') return { M: shapeOf(inner as Record<string, unknown>) };
  if (type === 'SS' || type === 'NS') return { [type]: (inner as unknown[]).length };
  return type;
}

function shapeOf(attrs: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!attrs) return undefined;
  return Object.fromEntries(
    Object.keys(attrs)
      .sort()
      .map((k) => [k, shape(attrs[k])]),
  );
}

/** What must match between cronfence and the floor: everything but values and table-specific names. */
function comparable(s: Sent): Record<string, unknown> {
  const i = s.input;
  return {
    op: s.op,
    parameters: Object.keys(i).sort(),
    ConditionExpression: i.ConditionExpression,
    UpdateExpression: i.UpdateExpression,
    ExpressionAttributeNames: i.ExpressionAttributeNames,
    ExpressionAttributeValues: shapeOf(i.ExpressionAttributeValues as Record<string, unknown>),
    Key: shapeOf(i.Key as Record<string, unknown>),
    Item: shapeOf(i.Item as Record<string, unknown>),
    ReturnValues: i.ReturnValues,
    ReturnValuesOnConditionCheckFailure: i.ReturnValuesOnConditionCheckFailure,
  };
}

const OCCURRENCES = 3;
// Same length as each other, so that even the items' sizes could be compared.
const CRONFENCE_JOB = 'parity-cf';
const FLOOR_JOB = 'parity-fl';

describe('the floor sends what cronfence sends (bench/support/floor.ts)', () => {
  let stack: LocalStack;
  let cronfence: Sent[];
  let floor: Sent[];
  let floorLane: (job: string, strip?: Strip) => { lane: FloorLane; sent: Sent[] };

  beforeAll(async () => {
    stack = await localStack();
    const doc = createDocumentClient({ endpoint: stack.endpoint });
    cronfence = capture(doc);
    const job = benchJob(CRONFENCE_JOB, async () => undefined);
    const h = job.withDeps(() => createDeps({ doc, tableName: stack.tableName }));
    for (let i = 0; i < OCCURRENCES; i++) {
      const r = await deliver(h, { job: CRONFENCE_JOB, scheduledTimeMs: slotMs(i), label: `slot ${i}` });
      expect(r.summary?.outcome).toBe('succeeded');
    }
    floorLane = (name, strip) => {
      const client = new DynamoDBClient({
        endpoint: stack.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const sent = capture(client);
      const lane = new FloorLane({
        client,
        table: stack.tableName,
        job: name,
        def: definitionId(benchJob(name, async () => undefined).job),
        scheduledMs: slotMs,
        ...(strip && { strip }),
      });
      return { lane, sent };
    };
    const { lane, sent } = floorLane(FLOOR_JOB);
    floor = sent;
    lane.prepare(0, OCCURRENCES);
    for (let i = 0; i < OCCURRENCES; i++) await lane.run(i, async () => undefined);
  }, 30_000);

  it('sends claim, run record, release per occurrence, as cronfence does', () => {
    const ops = Array.from({ length: OCCURRENCES }, () => ['UpdateItem', 'PutItem', 'UpdateItem']).flat();
    expect(cronfence.map((s) => s.op)).toEqual(ops);
    expect(floor.map((s) => s.op)).toEqual(ops);
  });

  it.each(Array.from({ length: OCCURRENCES * 3 }, (_, n) => [n]))(
    'request %i has the same expressions, attribute names and value shapes as cronfence’s',
    (n) => {
      const [c, f] = [cronfence[n], floor[n]];
      if (!c || !f) throw new Error(`request ${n} missing: cronfence ${c?.op}, floor ${f?.op}`);
      expect(comparable(f)).toEqual(comparable(c));
    },
  );

  it('writes run records with the same attribute names (the values differ)', () => {
    const names = (s: Sent[]) =>
      s.filter((x) => x.op === 'PutItem').map((x) => Object.keys(x.input.Item as object).sort());
    expect(names(floor)).toEqual(names(cronfence));
    // The record a reader needs: if the floor dropped one of these, the comparison above would fail.
    expect(names(cronfence)[0]).toEqual(
      expect.arrayContaining([
        'job',
        'slot',
        'runId',
        'fence',
        'outcome',
        'def',
        'expiresAt',
        'lambdaRequestId',
      ]),
    );
  });

  // The comparison can fail: each strip of bench/peer-shapes.ts changes one request, and is told apart.
  // Which of claim, record, release still match cronfence's first occurrence:
  it.each<[string, Strip, boolean[]]>([
    ['a run record without nine attributes', { slimRecord: true }, [true, false, true]],
    ['a release without the done set', { releaseWithoutDoneSet: true }, [true, true, false]],
    ['a claim without ALL_OLD', { claimReturnsNothing: true }, [false, true, true]],
    ['no item on a refused condition', { noRefusalItem: true }, [false, false, false]],
  ])(
    'tells a floor that sends %s apart from cronfence',
    async (_, strip, matching) => {
      const { lane, sent } = floorLane(`parity-${Object.keys(strip)[0]?.slice(0, 8)}`, strip);
      lane.prepare(0, 1);
      await lane.run(0, async () => undefined);
      const same = sent.map(
        (s, n) => JSON.stringify(comparable(s)) === JSON.stringify(comparable(cronfence[n] as Sent)),
      );
      expect(same).toEqual(matching);
    },
    15_000,
  );
});
