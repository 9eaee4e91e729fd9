/**
 * A claim's `onSent` on DynamoDB Local (integ): the DynamoDB store calls it once the claim request is
 * on the wire — its bytes written to the socket, no response byte read yet — and the run builds its
 * lease keeper and job context there; the context a won claim hands the body still carries that
 * claim's fence. The socket is read through the client's own keep-alive `http.Agent`.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import type { ClaimDecision } from '../../lib/core/lease.js';
import type { ClaimRequest } from '../../lib/core/ports.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const T0 = Date.parse('2026-03-02T09:00:00Z');

/** What the socket showed when `onSent` ran, against what it showed before the send. */
interface AtSent {
  readonly written: number;
  readonly buffered: number;
  readonly read: number;
}

describe('a claim on DynamoDB Local calls onSent while its request is on the wire', () => {
  let stack: LocalStack;
  let agent: http.Agent;
  let doc: DynamoDBDocumentClient;
  let leases: DynamoLeaseStore;

  /** The agent's one socket (maxSockets 1, kept alive), in use or free. */
  const socket = (): Socket => {
    const all = [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)].flat();
    if (all.length !== 1) throw new Error(`expected one socket, found ${all.length}`);
    return all[0] as Socket;
  };

  /** Claim `req`, recording what the socket showed at each `onSent` call. */
  const claim = async (
    req: Omit<ClaimRequest, 'onSent'>,
    hook: () => void = () => undefined,
  ): Promise<{ decision: ClaimDecision; calls: AtSent[] }> => {
    const before = socket();
    const [written, read] = [before.bytesWritten, before.bytesRead];
    const calls: AtSent[] = [];
    const decision = await leases.claim({
      ...req,
      onSent: () => {
        const s = socket();
        calls.push({
          written: s.bytesWritten - written,
          buffered: s.writableLength,
          read: s.bytesRead - read,
        });
        hook();
      },
    });
    return { decision, calls };
  };

  beforeAll(async () => {
    stack = await localStack();
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    doc = createDocumentClient({
      endpoint: stack.endpoint,
      requestHandler: { httpAgent: agent, requestTimeout: 5_000 },
    });
    leases = new DynamoLeaseStore(doc, stack.tableName);
    // One request first: the agent keeps its socket, so a claim's bytes go out in the same turn.
    await leases.get({ job: 'sent-warm-up' });
  }, 30_000);

  afterAll(() => agent.destroy());

  const request = (runId: string, nowMs: number) => ({
    job: 'sent-claim',
    runId,
    slotId: `slot-${runId}`,
    nowMs,
    leaseUntilMs: nowMs + 60_000,
  });

  it('once, after the request is written and before a byte of its response is read (a won claim)', async () => {
    const { decision, calls } = await claim(request('run-a', T0));
    expect(decision).toMatchObject({ kind: 'acquired', fence: 1 });
    expect(calls).toHaveLength(1);
    const [at] = calls as [AtSent];
    expect(at.buffered).toBe(0);
    expect(at.read).toBe(0);
    // The whole request (headers and a JSON body of some hundred bytes) was handed to the socket.
    expect(at.written).toBeGreaterThan(500);
  });

  it('as well for a claim the lease refuses (held), which decides as before', async () => {
    const { decision, calls } = await claim(request('run-b', T0 + 1_000));
    expect(decision).toMatchObject({ kind: 'held', holderRunId: 'run-a' });
    expect(calls.map((c) => [c.written > 500, c.buffered, c.read])).toEqual([[true, 0, 0]]);
  });

  it('drops what a hook throws: the claim still decides, nothing is left unhandled', async () => {
    const { decision, calls } = await claim(request('run-c', T0 + 120_000), () => {
      throw new Error('a hook that throws');
    });
    expect(decision).toMatchObject({ kind: 'acquired', fence: 2 });
    expect(calls).toHaveLength(1);
  });

  it('a run builds its keeper and context there, and its body sees the won claim’s fence', async () => {
    const sent: string[] = [];
    const fences: number[] = [];
    const deps = createDeps({ doc, tableName: stack.tableName });
    const counted = Object.assign(Object.create(deps.leases) as typeof deps.leases, {
      claim: (req: ClaimRequest) =>
        deps.leases.claim({
          ...req,
          onSent: () => {
            sent.push(req.runId);
            req.onSent?.();
          },
        }),
    });
    const job = defineJob({
      name: 'sent-run',
      schedule: 'rate(1 hour)',
      lease: { durationSeconds: 60 },
      timeoutSeconds: 120,
      run: async (ctx) => {
        fences.push(ctx.fence);
        await ctx.fencedPut(stack.reports, { reportDate: `sent-${ctx.slot.id}` }, { body: 'x' });
      },
    });
    const handler = job.withDeps(() => ({ ...deps, leases: counted }));
    const hour = Date.parse('2026-03-02T10:00:00Z');
    for (let i = 0; i < 3; i++) {
      const r = await deliver(handler, {
        job: 'sent-run',
        scheduledTimeMs: hour + i * 3_600_000,
        label: `hour ${i}`,
      });
      expect(r.summary?.outcome).toBe('succeeded');
    }
    expect(sent).toHaveLength(3);
    expect(fences).toEqual([1, 2, 3]);
    const rows = (await stack.scan(stack.reports))
      .filter((r) => String(r.reportDate).startsWith('sent-'))
      .map((r) => r['cronfence:fence'])
      .sort();
    expect(rows).toEqual([1, 2, 3]);
  });
});
