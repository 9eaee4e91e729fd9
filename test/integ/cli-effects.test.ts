/**
 * `cronfence effects` end to end (integ: the binary as a subprocess on DynamoDB Local): it finds
 * DynamoDB Local through the state file a running `npm start` leaves, and refuses a status that does
 * not exist (exit 2). What it lists and resolves is asserted in process (operate-effects.test.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
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

beforeAll(async () => {
  stack = await localStack();
});

describe('effects', () => {
  it('exits 2 for a status that does not exist', async () => {
    const r = await cli(['effects', '--status', 'sending'], stackEnv(stack));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--status "sending" must be one of needs-review, unsettled, all/);
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
