/**
 * The request tag middleware sees (unit: a request handler that answers at once, no DynamoDB): the
 * fault injector, a middleware placed after the SDK's retry middleware, finds the tag of every
 * protocol request it sends (claim, renew, release, run record, fenced write, insert-once, and the
 * transactions that check the writer's lease) from `args.input`, on the first attempt and on the
 * SDK's retry, and a read's from its handler context.
 */
import { describe, expect, it } from 'vitest';
import { FaultInjector, type FaultRequest, on, timeoutError } from '../../../harness/faults/sdk-faults.js';
import { Outcome } from '../../../lib/core/outcomes.js';
import type { RunRecord } from '../../../lib/core/ports.js';
import { createDocumentClient } from '../../../lib/store/client.js';
import { DynamoBackend, requestTagOf } from '../../../lib/store/protocol/dynamo-backend.js';
import {
  claim,
  fencedWrite,
  insertOnce,
  putRunRecord,
  release,
  renew,
} from '../../../lib/store/protocol/operations.js';
import { type Operation, perform, read } from '../../../lib/store/protocol/request.js';
import { answerEmpty } from '../../helpers/answer-empty.js';

/** A backend on a client that answers at once, and what its fault injector saw of each attempt. */
function harness() {
  const seen: FaultRequest[] = [];
  const faults = new FaultInjector({ onRequest: (req) => seen.push(req) });
  const doc = createDocumentClient({
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    requestHandler: answerEmpty as never,
  });
  faults.attach(doc);
  return { backend: new DynamoBackend(doc), faults, seen };
}

const lease = { table: 'lib', job: 'daily-report' };
const fence = { leaseKey: 'JOB#daily-report', runId: 'r1', fence: 3, nowMs: 1_000 };
const ref = { tableName: 'orders', key: { pk: 'o-1' } };
const record: RunRecord = {
  job: 'daily-report',
  slot: '2026-03-01T02:00',
  scheduledTime: '2026-03-01T02:00:00.000Z',
  businessDate: '2026-03-01',
  runId: 'r1',
  trigger: 'schedule',
  fence: 3,
  outcome: Outcome.Succeeded,
  startedAtMs: 1_000,
  finishedAtMs: 2_000,
};

/** Each request the protocol sends on a run's path, by the command it goes out as. */
const requests: [string, string, Operation<never, unknown>, unknown][] = [
  [
    'a claim',
    'UpdateItemCommand',
    claim as never,
    { ...lease, runId: 'r1', slotId: '2026-03-01T02:00', nowMs: 1_000, leaseUntilMs: 61_000 },
  ],
  ['a renewal', 'UpdateItemCommand', renew as never, { ...lease, runId: 'r1', fence: 3, nowMs: 1_000 }],
  [
    'a release',
    'UpdateItemCommand',
    release as never,
    { ...lease, runId: 'r1', fence: 3, nowMs: 2_000, doneSlots: new Set(['2026-03-01T02:00']) },
  ],
  [
    'an unrecorded release',
    'UpdateItemCommand',
    release as never,
    { ...lease, runId: 'r1', fence: 3, nowMs: 2_000, recorded: false },
  ],
  ['a run record', 'PutItemCommand', putRunRecord as never, { table: 'lib', record, retentionDays: 30 }],
  ['a fenced write', 'UpdateItemCommand', fencedWrite as never, { ref, attributes: { total: 3 }, fc: fence }],
  [
    'a fenced write checking its lease (a transaction)',
    'TransactWriteItemsCommand',
    fencedWrite as never,
    { ref, attributes: { total: 3 }, fc: fence, leaseTable: 'lib' },
  ],
  ['an insert-once', 'PutItemCommand', insertOnce as never, { ref, attributes: { total: 3 }, fc: fence }],
  [
    'an insert-once checking its lease (a transaction)',
    'TransactWriteItemsCommand',
    insertOnce as never,
    { ref, attributes: { total: 3 }, fc: fence, leaseTable: 'lib' },
  ],
];

describe('the request tag a middleware sees', () => {
  it.each(requests)(
    'is the declared tag of %s (%s), on the first attempt and on its retry',
    async (_n, command, op, input) => {
      const { backend, faults, seen } = harness();
      faults.add({
        name: 'one timeout',
        match: () => true,
        action: { kind: 'fail', error: () => timeoutError() },
      });
      await perform(backend, op, input as never);
      const declared = op.request(input as never).tag;
      expect(seen.map((r) => r.command)).toEqual([command, command]);
      for (const r of seen) expect(r.tag).toEqual(declared);
      expect(seen.map((r) => on.op(declared.op)(r))).toEqual([true, true]);
    },
  );

  it("is a read's tag, from its handler context", async () => {
    const { backend, seen } = harness();
    await read(backend, 'lib', { pk: 'JOB#daily-report', sk: 'LEASE' }, 'lease');
    expect(seen.map((r) => [r.command, r.tag])).toEqual([
      [
        'GetItemCommand',
        { op: 'read', name: 'read', table: 'lib', key: { pk: 'JOB#daily-report', sk: 'LEASE' } },
      ],
    ]);
  });

  it('is undefined for a request the protocol did not send', () => {
    expect(requestTagOf({ TableName: 'lib' }, {})).toBeUndefined();
    expect(requestTagOf(undefined)).toBeUndefined();
  });
});
