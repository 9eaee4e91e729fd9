/**
 * `cronfence runs` end to end (integ: the binary as a subprocess on DynamoDB Local): one table
 * render, the exit codes of bad input (a message naming the flag and value, exit 2) that only the CLI
 * sees, and the one-line message of a missing table. What the rows hold is asserted in process, on
 * the operator API (operate-records.test.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { seedListingRuns } from '../helpers/run-fixtures.js';
import { cli, stackEnv } from './cli-harness.js';

const now = Date.now();
let stack: LocalStack;
let env: Record<string, string>;

describe('runs', () => {
  beforeAll(async () => {
    stack = await localStack();
    env = stackEnv(stack);
    await seedListingRuns(stack, now);
  });

  it('prints a table with slot, trigger, outcome, reason, fence and what went wrong, exit 0', async () => {
    const r = await cli(['runs', 'daily-report'], env);
    const lines = r.stdout.trim().split('\n');
    expect(r.code).toBe(0);
    expect(lines[0]).toMatch(/^SLOT\s+TRIGGER\s+OUTCOME\s+REASON\s+FENCE\s+STARTED\s+TOOK\s+RUN ID\s+NOTE$/);
    expect(lines).toHaveLength(6);
    expect(lines.find((l) => l.includes(' r2 '))).toMatch(
      /^2026-03-28T02:30\s+schedule\s+failed\s+error\s+2\s+\S+Z\s+100ms\s+r2\s+Error: boom$/,
    );
  });
});

describe.concurrent('bad input exits 2 with a message naming the flag and value', () => {
  const cases: [string, string[], RegExp][] = [
    ['a job name of a form no job has', ['runs', 'no#pe'], /<job> "no#pe" is not a job name/],
    ['runs without a job or --failed', ['runs'], /invalid <job> "\(none\)": name a job, or pass --failed/],
    [
      '--jobs on a command that reads records only (no job code is imported)',
      ['lease', 'daily-report', '--jobs', './no-such-jobs.ts'],
      /unknown option '--jobs'/,
    ],
  ];
  it.each(cases)('refuses %s', async (_name, args, message) => {
    const r = await cli(args, stackEnv(stack));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('runs on a table that does not exist names the table it looked for', async () => {
    const r = await cli(['runs', 'daily-report', '--table', 'no-such-table'], stackEnv(stack));
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `cronfence: table "no-such-table" does not exist at ${stack.endpoint} (ResourceNotFoundException: Cannot do operations on a non-existent table): check --table (or CRONFENCE_TABLE), --region and --endpoint\n`,
    });
  });

  it('refuses to run against AWS without credentials, naming --profile', async () => {
    const { DYNAMODB_ENDPOINT: _e, ...aws } = stackEnv(stack);
    const r = await cli(['runs', 'daily-report'], aws, mkdtempSync(join(tmpdir(), 'cf-cli-')));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid --profile "\(default credential chain\)": no AWS credentials found/);
    expect(r.stdout).toBe('');
  });
});
