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
      },
    ]);
    const table = await cli(['effects'], stackEnv(stack));
    expect(table.stdout).toMatch(
      /^payout-m1-2026-03-28\s+merchant-settlement\s+needs-review\s+3\s+2\s+\S+Z\s+run-7\s+timeout after send; provider has no lookup$/m,
    );
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
    expect(r.stdout).toMatch(
      /^Effect payout-m1-2026-03-28: resolved succeeded by bob at \S+Z \("provider shows paid"\)$/m,
    );
    const item = await effect('payout-m1-2026-03-28');
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
    const list = await cli(['effects'], stackEnv(stack));
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
    const r = await cli(['effects', '--json'], env, dir);
    expect(json<{ key: string }[]>(r).map((e) => e.key)).toEqual(['refund-9']);
  });
});
