/**
 * What the DynamoDB backend hands back of an accepted request's returned item (unit: a request
 * handler that answers at once with a lease item, no DynamoDB): the attributes the request says its
 * operation reads (a release: its buffered slots), else the whole item, unmarshalled. And what it hands
 * back for a request it cannot send: a rejected promise.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { doneKey } from '../../../lib/core/lease.js';
import { createDocumentClient } from '../../../lib/store/client.js';
import { DynamoBackend } from '../../../lib/store/protocol/dynamo-backend.js';
import { claim, release } from '../../../lib/store/protocol/operations.js';
import { type ProtocolRequest, perform } from '../../../lib/store/protocol/request.js';

const leaseItem = {
  pk: 'JOB#daily-report',
  sk: 'LEASE',
  owner: 'r1',
  fence: 3,
  holderState: 'released',
  leaseUntilMs: 0,
  doneSlots: new Set([doneKey('2026-03-01T02:00')]),
  buffered: new Set([doneKey('2026-03-01T04:00'), doneKey('2026-03-01T03:00')]),
  open: [{ runId: 'r1', slot: '2026-03-01T02:00', leaseUntilMs: 61_000 }],
};

/** A backend whose every request is answered with `leaseItem` as its returned attributes. */
function backend(): DynamoBackend {
  const body = new TextEncoder().encode(JSON.stringify({ Attributes: marshall(leaseItem) }));
  return new DynamoBackend(
    createDocumentClient({
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
      requestHandler: {
        handle: async () => ({
          response: {
            statusCode: 200,
            reason: 'OK',
            headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(body.length) },
            body,
          },
        }),
        updateHttpClientConfig: () => undefined,
        httpHandlerConfigs: () => ({}),
        destroy: () => undefined,
      } as never,
    }),
  );
}

const ref = { table: 'lib', job: 'daily-report', runId: 'r1', fence: 3, nowMs: 2_000 };

describe('the item an accepted request returns', () => {
  it('is only the buffered slots for a release, which reads nothing else of it', async () => {
    const b = backend();
    const outcome = await b.send(release.request({ ...ref, doneSlots: new Set(['2026-03-01T02:00']) }));
    expect(outcome).toEqual({ applied: true, attributes: { buffered: leaseItem.buffered } });
    expect(await perform(b, release, { ...ref, recorded: false })).toEqual({
      buffered: ['2026-03-01T03:00', '2026-03-01T04:00'],
    });
  });

  it('is the whole item for a claim', async () => {
    const outcome = await backend().send(
      claim.request({ ...ref, slotId: '2026-03-01T05:00', leaseUntilMs: 61_000 }),
    );
    expect(outcome).toEqual({ applied: true, attributes: leaseItem });
  });
});

describe('a request the backend cannot send', () => {
  it('rejects the promise send returns: it throws nothing at the caller', async () => {
    const malformed = { label: 'malformed', tag: { name: 'malformed' } } as unknown as ProtocolRequest;
    let sent: Promise<unknown> | undefined;
    expect(() => {
      sent = backend().send(malformed);
    }).not.toThrow();
    await expect(sent).rejects.toBeInstanceOf(TypeError);
  });
});
