/**
 * `cronfence effects` and `effects resolve` (integ: the CLI as a subprocess on DynamoDB Local), and
 * finding DynamoDB Local through the state file a running `npm start` leaves.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeLocalState } from '../../harness/local/local-state.js';
import { Keys } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';

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

describe('effects', () => {
  it('lists effects in needs-review from the sparse index, and only those', async () => {
    const r = await cli(['effects', '--status', 'needs-review', '--json'], stackEnv(stack));
    expect(json(r)).toEqual([
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
    const table = await cli(['effects', '--job', 'merchant-settlement'], stackEnv(stack));
    expect(rowOf(table.stdout, 'payout-m1-2026-03-28')).toEqual([
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
    expect(table.stdout).toMatch(/--expect <VERSION>/);
  });

  it('resolves one conditionally, recording who, when and why, and takes it off the review list', async () => {
    const before = Date.now();
    const r = await cli(
      [
        'effects',
        'resolve',
        'payout-m1-2026-03-28',
        '--job',
        'merchant-settlement',
        '--as',
        'succeeded',
        '--note',
        'provider shows paid',
        '--by',
        'bob',
      ],
      stackEnv(stack),
    );
    expect(r.code).toBe(0);
    const item = await effect('payout-m1-2026-03-28');
    expect(r.stdout).toBe(
      `Effect payout-m1-2026-03-28: resolved succeeded by bob at ${iso(Number(item?.reviewedAtMs))} ("provider shows paid"); version needs-review:3:2:${flaggedAtMs} -> succeeded:3:2:${String(item?.updatedAtMs)}\n`,
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
    const list = await cli(['effects', '--job', 'merchant-settlement'], stackEnv(stack));
    expect(list.stdout.trim()).toBe('No effects in needs-review or unsettled.');
  });

  it('refuses to resolve an effect that is already terminal, leaving it as it was', async () => {
    const r = await cli(
      [
        'effects',
        'resolve',
        'payout-m2-2026-03-28',
        '--job',
        'merchant-settlement',
        '--as',
        'failed',
        '--note',
        'oops',
        '--by',
        'eve',
        '--json',
      ],
      stackEnv(stack),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /effect "payout-m2-2026-03-28" is succeeded, already terminal \(only needs-review, sending or pending effects are resolved\): nothing changed/,
    );
    expect(await effect('payout-m2-2026-03-28')).not.toHaveProperty('reviewedBy');
  });

  it.each([
    [
      ['effects', 'resolve', 'no-such-key', '--job', 'daily-report', '--as', 'failed', '--note', 'x'],
      /no effect with key "no-such-key" for job daily-report: nothing changed/,
    ],
    [
      ['effects', 'resolve', 'k', '--job', 'daily-report', '--as', 'maybe', '--note', 'x'],
      /--as "maybe" must be one of succeeded, failed/,
    ],
    [['effects', '--status', 'sending'], /--status "sending" must be one of needs-review, unsettled, all/],
    [
      ['effects', 'resolve', 'k', '--job', 'no#job', '--as', 'failed', '--note', 'x'],
      /--job "no#job" is not a job name/,
    ],
  ])('exits 2 for bad input: %j', async (args, message) => {
    const r = await cli(args, stackEnv(stack));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('effects stuck in sending', () => {
  it('lists a sending effect from its first minute with --status all, and with --status unsettled once past the alarm period', async () => {
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
    const all = await cli(['effects', '--status', 'all', '--job', 'payouts'], stackEnv(stack));
    expect(rowOf(all.stdout, 'young-1')).toEqual([
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
    expect(rowOf(all.stdout, 'old-1')?.[6]).toBe('6m stuck');
    const stuck = await cli(
      ['effects', '--status', 'unsettled', '--job', 'payouts', '--json'],
      stackEnv(stack),
    );
    expect(json<{ key: string }[]>(stuck).map((e) => e.key)).toEqual(['old-1']);
  });
});

describe('finding DynamoDB Local while npm start runs', () => {
  it('reads endpoint and table from .cronfence/local.json in the working directory, no flags', async () => {
    await putEffect('refund-9', 'needs-review');
    const dir = mkdtempSync(join(tmpdir(), 'cf-state-'));
    writeLocalState(
      {
        endpoint: stack.endpoint,
        region: 'us-east-1',
        tables: { CRONFENCE_TABLE: stack.tableName },
        pid: process.pid,
        startedAt: new Date().toISOString(),
      },
      dir,
    );
    const { DYNAMODB_ENDPOINT: _e, CRONFENCE_TABLE: _t, ...env } = stackEnv(stack);
    const r = await cli(['effects', '--job', 'merchant-settlement', '--json'], env, dir);
    expect(json<{ key: string }[]>(r).map((e) => e.key)).toEqual(['refund-9']);
  });
});
