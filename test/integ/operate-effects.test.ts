/**
 * Effects on the operator API (integ, in process, on DynamoDB Local): `Operator.effects` /
 * `JobHandle.effects` list what needs review with each effect's version, `JobHandle.resolveEffect`
 * settles one conditionally, and what `cronfence effects` renders from them. The binary's part
 * (finding DynamoDB Local through the state file `npm start` leaves, a parse refusal) is spawned in
 * cli-effects.test.ts.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectsText, resolvedText } from '../../cli/effects.js';
import { exitCodeFor } from '../../cli/exit-codes.js';
import { Keys } from '../../lib/store/schema.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { operatorOn, rejection } from './operate-harness.js';

let op: Operator;
let stack: LocalStack;
const flaggedAtMs = Date.now() - 3_600_000;

async function putEffect(key: string, status: string, extra: Record<string, unknown> = {}) {
  await stack.doc.send(
    new PutCommand({
      TableName: stack.tableName,
      Item: {
        ...Keys.effect('merchant-settlement', key),
        kind: 'effect',
        key,
        job: 'merchant-settlement',
        provider: 'bank',
        status,
        requestHash: 'ab12',
        fence: 3,
        leaseKey: 'JOB#merchant-settlement',
        runId: 'run-7',
        attempts: 2,
        createdAtMs: flaggedAtMs - 1000,
        updatedAtMs: flaggedAtMs,
        ...(status === 'needs-review' && {
          reviewReason: 'timeout after send; provider has no lookup',
          problem: 'needs-review',
          problemAtMs: flaggedAtMs,
        }),
        ...extra,
      },
    }),
  );
}

/** The cells of the table row that starts with `key` (columns are separated by 2+ spaces). */
const rowOf = (stdout: string, key: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${key} `))
    ?.split(/\s{2,}/);

/** An instant as the CLI prints it. */
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

const effect = async (key: string) =>
  (
    await stack.doc.send(
      new GetCommand({ TableName: stack.tableName, Key: Keys.effect('merchant-settlement', key) }),
    )
  ).Item;

beforeAll(async () => {
  stack = await localStack();
  await putEffect('payout-m1-2026-03-28', 'needs-review');
  await putEffect('payout-m2-2026-03-28', 'succeeded');
});

beforeAll(async () => {
  stack = await localStack();
  op = operatorOn(stack);
  await putEffect('payout-m1-2026-03-28', 'needs-review');
  await putEffect('payout-m2-2026-03-28', 'succeeded');
});
afterAll(() => op?.close());

describe('effects', () => {
  it('lists effects in needs-review from the sparse index, and only those', async () => {
    expect(await op.effects({ status: 'needs-review' })).toEqual([
      {
        key: 'payout-m1-2026-03-28',
        job: 'merchant-settlement',
        provider: 'bank',
        status: 'needs-review',
        requestHash: 'ab12',
        fence: 3,
        leaseKey: 'JOB#merchant-settlement',
        runId: 'run-7',
        attempts: 2,
        createdAtMs: flaggedAtMs - 1000,
        updatedAtMs: flaggedAtMs,
        reviewReason: 'timeout after send; provider has no lookup',
        problemAtMs: flaggedAtMs,
        version: `needs-review:3:2:${flaggedAtMs}`,
      },
    ]);
    const text = effectsText(await op.job('merchant-settlement').effects(), 'all', Date.now());
    expect(rowOf(text, 'payout-m1-2026-03-28')).toEqual([
      'payout-m1-2026-03-28',
      'merchant-settlement',
      'needs-review',
      '3',
      '2',
      iso(flaggedAtMs),
      '1h00m',
      'run-7',
      `needs-review:3:2:${flaggedAtMs}`,
      '-',
      'timeout after send; provider has no lookup',
    ]);
    expect(text).toMatch(/--expect <VERSION>/);
  });

  it('resolves one conditionally, recording who, when and why, and takes it off the review list', async () => {
    const before = Date.now();
    const resolved = await op
      .job('merchant-settlement')
      .resolveEffect('payout-m1-2026-03-28', { as: 'succeeded', note: 'provider shows paid', by: 'bob' });
    const item = await effect('payout-m1-2026-03-28');
    expect(resolvedText(resolved)).toBe(
      `Effect payout-m1-2026-03-28: resolved succeeded by bob at ${iso(Number(item?.reviewedAtMs))} ("provider shows paid"); version needs-review:3:2:${flaggedAtMs} -> succeeded:3:2:${String(item?.updatedAtMs)}`,
    );
    expect(item).toMatchObject({
      status: 'succeeded',
      resolvedBy: 'operator',
      reviewedBy: 'bob',
      reviewNote: 'provider shows paid',
      fence: 3,
    });
    expect(item?.reviewedAtMs).toBeGreaterThanOrEqual(before);
    expect(item?.finishedAtMs).toBe(item?.reviewedAtMs);
    expect(item?.problem).toBeUndefined();
    expect(effectsText(await op.job('merchant-settlement').effects(), 'all', Date.now())).toBe(
      'No effects in needs-review or unsettled.',
    );
  });

  it('refuses to resolve an effect that is already terminal, leaving it as it was (exit 2)', async () => {
    const err = await rejection(
      op
        .job('merchant-settlement')
        .resolveEffect('payout-m2-2026-03-28', { as: 'failed', note: 'oops', by: 'eve' }),
    );
    expect(err.message).toMatch(
      /effect "payout-m2-2026-03-28" is succeeded, already terminal \(only needs-review, sending or pending effects are resolved\): nothing changed/,
    );
    expect(exitCodeFor(err)).toBe(2);
    expect(await effect('payout-m2-2026-03-28')).not.toHaveProperty('reviewedBy');
  });

  it.each([
    [
      'a key with no effect',
      () => op.job('daily-report').resolveEffect('no-such-key', { as: 'failed', note: 'x', by: 'eve' }),
      /no effect with key "no-such-key" for job daily-report: nothing changed/,
    ],
    [
      'a resolution that does not exist',
      () => op.job('daily-report').resolveEffect('k', { as: 'maybe' as 'failed', note: 'x', by: 'eve' }),
      /invalid as "maybe": must be one of succeeded, failed, not-executed/,
    ],
    [
      'an empty note',
      () => op.job('daily-report').resolveEffect('k', { as: 'failed', note: ' ', by: 'eve' }),
      /invalid note " ": must be 1 to 1024 characters/,
    ],
    [
      'a job name of a form no job has',
      () => op.job('no#job').resolveEffect('k', { as: 'failed', note: 'x', by: 'eve' }),
      /invalid <job> "no#job": is not a job name/,
    ],
  ])('refuses %s (exit 2)', async (_name, call, message) => {
    const err = await rejection(call());
    expect(err.message).toMatch(message);
    expect(exitCodeFor(err)).toBe(2);
  });
});

describe('effects stuck in sending', () => {
  it('lists a sending effect from its first minute with status all, and with status unsettled once past the alarm period', async () => {
    const nowMs = Date.now();
    const young = nowMs - 2 * 60_000;
    const old = nowMs - 6 * 60_000;
    const base = { job: 'payouts', leaseKey: 'JOB#payouts', problem: 'unsettled' };
    await putEffect('young-1', 'sending', {
      ...base,
      ...Keys.effect('payouts', 'young-1'),
      problemAtMs: young,
      updatedAtMs: young,
      lastError: { name: 'EffectOutcomeUnknownError', message: 'HTTP 503', atMs: young, at: iso(young) },
    });
    await putEffect('old-1', 'sending', {
      ...base,
      ...Keys.effect('payouts', 'old-1'),
      problemAtMs: old,
      updatedAtMs: old,
    });
    const all = effectsText(await op.job('payouts').effects({ status: 'all' }), 'all', Date.now());
    expect(rowOf(all, 'young-1')).toEqual([
      'young-1',
      'payouts',
      'sending',
      '3',
      '2',
      iso(young),
      '2m',
      'run-7',
      `sending:3:2:${young}`,
      'EffectOutcomeUnknownError: HTTP 503',
      '-',
    ]);
    expect(rowOf(all, 'old-1')?.[6]).toBe('6m stuck');
    const stuck = await op.job('payouts').effects({ status: 'unsettled' });
    expect(stuck.map((e) => e.key)).toEqual(['old-1']);
  });
});
