/**
 * Operator writes race live work (integ: DynamoDB Local, the CLI as a subprocess). A payout at a bank
 * with no idempotency keys and no lookup ends `needs-review`; an operator resolves it `not-executed`;
 * the manual re-run sends it and the bank executes it; a second operator's resolve of the same effect
 * while that call is in flight is refused, naming the holder and when its lease ends, and changes
 * nothing. The bank is an in-process double whose calls the test holds open (no real-time races); the
 * effect records, leases and conditions are DynamoDB Local's.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import type { EffectProvider, SendResult } from '../../lib/core/effects.js';
import type { LeaseItem } from '../../lib/core/lease.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';
import { effectItem } from '../helpers/payment-fixture.js';
import { cli, stackEnv } from './cli-harness.js';

const JOB = 'operator-race';
const KEY = 'payout#m7-2026-03-28';
const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
const PAYOUT = { merchantId: 'm7', amountCents: 12_500 };
let stack: LocalStack;

beforeEach(async () => {
  stack = await localStack();
});

/** A bank with no idempotency keys and no lookup: each call runs the next scripted answer. */
function bank(script: (() => Promise<SendResult>)[]) {
  const executions: string[] = [];
  let calls = 0;
  const provider: EffectProvider<typeof PAYOUT> = {
    name: 'bank',
    idempotencyKeys: false,
    send: async () => {
      const step = script[calls++];
      if (!step) throw new Error('unscripted call');
      return step();
    },
  };
  /** Execute the payout: the bank's transaction id. */
  const execute = () => {
    executions.push(`txn_${executions.length + 1}`);
    return executions[executions.length - 1] as string;
  };
  return { provider, executions, execute };
}

const job = (provider: EffectProvider<typeof PAYOUT>) =>
  defineJob({
    effects: effectRunner,
    name: JOB,
    schedule: 'rate(1 day)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 60,
    run: async (ctx) => {
      const r = await ctx.effect(KEY, PAYOUT, provider);
      ctx.setDetail('payout', `${r.status}/${r.source}`);
    },
  });

const run = (handler: ReturnType<typeof job>, label: string, clock = new ControlledClock(), manual = true) =>
  deliver(
    handler.withDeps(() => stack.worker({ clock }).deps),
    {
      job: JOB,
      scheduledTimeMs: SLOT_MS,
      label,
      ...(manual && { extra: { trigger: 'manual', requestedBy: 'ops', reason: label } }),
    },
  );

const resolve = (by: string, as: string, extra: string[] = []) =>
  cli(
    [
      'effects',
      'resolve',
      KEY,
      '--job',
      JOB,
      '--as',
      as,
      '--note',
      `${by}: not in the bank statement`,
      '--by',
      by,
      ...extra,
    ],
    stackEnv(stack),
  );

const lease = async () =>
  (await stack.scan(stack.tableName)).find((i) => i.pk === `JOB#${JOB}` && i.sk === 'LEASE') as
    | LeaseItem
    | undefined;

/** Runs A (call fails before the bank executes: outcome unknown) and B (marks it needs-review). */
async function needsReview(handler: ReturnType<typeof job>) {
  const a = await run(handler, 'A', new ControlledClock(-10 * 60_000), false);
  expect(a.summary).toMatchObject({ outcome: 'failed', fence: 1 });
  const b = await run(handler, 'B', new ControlledClock(-5 * 60_000));
  expect(b.summary).toMatchObject({ outcome: 'failed', reason: 'effect-needs-review', fence: 2 });
  expect(await effectItem(stack, KEY)).toMatchObject({ status: 'needs-review', fence: 2, attempts: 1 });
}

describe('operator writes race live work', () => {
  it('refuses a second resolve while the re-run’s call is in flight: the bank executes once, the record names that one transaction', async () => {
    const inFlight = gate();
    const called = gate();
    const b = bank([
      async () => ({ kind: 'unknown', why: 'connection reset before the bank answered' }),
      async () => {
        const ref = b.execute();
        called.open();
        await inFlight.promise;
        return { kind: 'succeeded', providerRef: ref, response: { id: ref } };
      },
    ]);
    const handler = job(b.provider);
    await needsReview(handler);
    const first = await resolve('alice', 'not-executed');
    expect(first.code).toBe(0);
    expect(await effectItem(stack, KEY)).toMatchObject({ status: 'pending', reviewedBy: 'alice' });

    const c = run(handler, 'C: manual re-run after review');
    await called.promise; // the bank executed txn_1; its answer is in flight
    const before = await effectItem(stack, KEY);
    expect(before).toMatchObject({ status: 'sending', fence: 3, attempts: 2 });
    const holder = await lease();
    const second = await resolve('bob', 'not-executed');
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `cronfence: effect "${KEY}" is sending under the live lease of run ${String(holder?.owner)} (owner ${String(holder?.owner)}, fence 3, lease JOB#${JOB}), which ends at ${new Date(Number(holder?.leaseUntilMs)).toISOString()}: its provider call may be in flight: nothing changed; wait until that run records its outcome or its lease ends, then look again\n`,
    );
    expect(holder?.owner).toBe(before?.runId);
    expect(await effectItem(stack, KEY)).toEqual(before); // the refused resolve changed nothing

    inFlight.open();
    expect((await c).summary).toMatchObject({ outcome: 'succeeded', fence: 3 });
    const d = await run(handler, 'D: another re-run');
    expect(d.summary).toMatchObject({ outcome: 'succeeded', fence: 4 });
    expect(b.executions).toEqual(['txn_1']);
    const item = await effectItem(stack, KEY);
    expect(item).toMatchObject({ status: 'succeeded', providerRef: 'txn_1', fence: 3, attempts: 2 });
    expect(item?.lateOutcomes).toBeUndefined();
    expect(item?.lastError).toBeUndefined();
  }, 120_000);

  it('refuses a resolve whose --expect version is no longer the record’s, printing what it is now', async () => {
    const b = bank([async () => ({ kind: 'unknown', why: 'timeout' })]);
    await needsReview(job(b.provider));
    const shown = await effectItem(stack, KEY);
    const version = `needs-review:2:1:${String(shown?.updatedAtMs)}`;
    expect((await resolve('alice', 'not-executed', ['--expect', version])).code).toBe(0);
    const now = await effectItem(stack, KEY);
    const second = await resolve('bob', 'succeeded', ['--expect', version]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `cronfence: effect "${KEY}" changed since version ${version} was shown: it is now pending (version pending:2:1:${String(now?.updatedAtMs)}: fence 2, run ${String(now?.runId)}, attempts 1, updated ${new Date(Number(now?.updatedAtMs)).toISOString()}): nothing changed; look at it again (cronfence effects) and resolve what it is now\n`,
    );
    expect(await effectItem(stack, KEY)).toEqual(now);
  }, 120_000);

  it('records the outcome of a call whose finish was refused, and never sends it again', async () => {
    const inFlight = gate();
    const called = gate();
    const b = bank([
      async () => ({ kind: 'unknown', why: 'timeout' }),
      async () => {
        const ref = b.execute();
        called.open();
        await inFlight.promise;
        return { kind: 'succeeded', providerRef: ref, response: { id: ref } };
      },
    ]);
    const handler = job(b.provider);
    await needsReview(handler);
    expect((await resolve('alice', 'not-executed')).code).toBe(0);
    // C's clock is 2 min behind: by the operator's clock its 60 s lease has already ended.
    const c = run(handler, 'C: re-run on a slow clock', new ControlledClock(-2 * 60_000));
    await called.promise;
    expect((await resolve('bob', 'not-executed')).code).toBe(0);
    inFlight.open();
    expect((await c).summary).toMatchObject({ outcome: 'stale', fence: 3 });
    const late = await effectItem(stack, KEY);
    expect(late?.status).toBe('pending');
    const lateOutcomes = (late?.lateOutcomes ?? []) as { runId: string; atMs: number }[];
    expect(late?.lateOutcomes).toEqual([
      {
        runId: String((await stack.runRecords(JOB)).find((r) => r.fence === 3)?.runId),
        fence: 3,
        status: 'succeeded',
        providerRef: 'txn_1',
        responseDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        atMs: expect.any(Number),
        at: new Date(Number(lateOutcomes[0]?.atMs)).toISOString(),
      },
    ]);
    // The next run meets the late outcome: needs-review, no second payout.
    const d = await run(handler, 'D: re-run after the late outcome');
    expect(d.summary).toMatchObject({ outcome: 'failed', reason: 'effect-needs-review', fence: 4 });
    expect(b.executions).toEqual(['txn_1']);
    expect(await effectItem(stack, KEY)).toMatchObject({
      status: 'needs-review',
      reviewReason: `run ${String(lateOutcomes[0]?.runId)} (fence 3) had it executed (provider ref txn_1) after its finish was refused; not resent`,
    });
  }, 120_000);

  it('keeps the last error on an unsettled effect: the unknown outcome’s, through needs-review; a rejection’s on failed', async () => {
    const b = bank([
      async () => ({ kind: 'unknown', why: 'connection reset before the bank answered' }),
      async () => ({ kind: 'rejected', httpStatus: 422, message: 'account m7 is closed' }),
    ]);
    const handler = job(b.provider);
    const a = await run(handler, 'A', new ControlledClock(-10 * 60_000), false);
    expect(a.summary).toMatchObject({ outcome: 'failed', fence: 1 });
    const sending = await effectItem(stack, KEY);
    const atMs = Number((sending?.lastError as { atMs?: number } | undefined)?.atMs);
    const unknown = {
      name: 'EffectOutcomeUnknownError',
      message: 'connection reset before the bank answered',
      atMs,
      at: new Date(atMs).toISOString(),
    };
    expect(sending).toMatchObject({ status: 'sending', lastError: unknown });
    await run(handler, 'B', new ControlledClock(-5 * 60_000));
    expect(await effectItem(stack, KEY)).toMatchObject({ status: 'needs-review', lastError: unknown });
    expect((await resolve('alice', 'not-executed')).code).toBe(0);
    const c = await run(handler, 'C');
    expect(c.summary).toMatchObject({ fence: 3 });
    const failed = await effectItem(stack, KEY);
    const failedAtMs = Number(failed?.finishedAtMs);
    expect(failed).toMatchObject({
      status: 'failed',
      lastError: {
        name: 'ProviderRejected',
        message: 'HTTP 422: account m7 is closed',
        atMs: failedAtMs,
        at: new Date(failedAtMs).toISOString(),
      },
    });
  }, 120_000);
});
