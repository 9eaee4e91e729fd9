/**
 * `cronfence runs` and `cronfence lease` (integ: the CLI as a subprocess on DynamoDB Local), plus the
 * bad-input contract shared by every subcommand: a message naming the flag and value, exit code 2.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryJobRuns, queryProblems } from '../../cli/run-queries.js';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { type CliResult, cli, json, runRecord, seedRuns, stackEnv } from './cli-harness.js';

const HOUR = 3_600_000;
const now = Date.now();
let stack: LocalStack;
let env: Record<string, string>;

type Row = { runId: string; slot: string; outcome: string; job: string };
const ids = (r: CliResult) => json<Row[]>(r).map((x) => x.runId);

describe('runs', () => {
  beforeAll(async () => {
    stack = await localStack();
    env = stackEnv(stack);
    const err = { name: 'Error', message: 'boom' };
    await seedRuns(stack, [
      runRecord({
        job: 'daily-report',
        slot: '2026-03-27T02:30',
        runId: 'r1',
        outcome: 'succeeded',
        fence: 1,
        startedAtMs: now - 72 * HOUR,
      }),
      runRecord({
        job: 'daily-report',
        slot: '2026-03-28T02:30',
        runId: 'r2',
        outcome: 'failed',
        reason: 'error',
        fence: 2,
        error: err,
        startedAtMs: now - 2 * HOUR,
      }),
      runRecord({
        job: 'daily-report',
        slot: '2026-03-28T02:30',
        runId: 'r3',
        outcome: 'succeeded',
        trigger: 'retry',
        fence: 3,
        startedAtMs: now - HOUR,
      }),
      runRecord({
        job: 'daily-report',
        slot: '2026-03-28T02:30',
        runId: 'r4',
        outcome: 'skipped',
        reason: 'lease-held',
        startedAtMs: now - HOUR + 1,
        holderSeen: { runId: 'r3', slot: '2026-03-28T02:30', leaseUntilMs: now, fence: 3 },
      }),
      runRecord({
        job: 'merchant-settlement',
        slot: '2026-03-29T01:00',
        runId: 'm1',
        outcome: 'stale',
        reason: 'stale-fence',
        fence: 5,
        startedAtMs: now - HOUR / 2,
      }),
      runRecord({
        job: 'merchant-settlement',
        slot: '2026-03-28T01:00',
        runId: 'm2',
        outcome: 'abandoned',
        reason: 'not-released',
        fence: 4,
        startedAtMs: now - 3 * HOUR,
      }),
      runRecord({
        job: 'merchant-settlement',
        slot: '2026-03-20T01:00',
        runId: 'm3',
        outcome: 'failed',
        reason: 'error',
        fence: 1,
        startedAtMs: now - 72 * HOUR,
      }),
    ]);
  });

  it("lists a job's attempts newest slot first, every attempt of a slot together", async () => {
    expect(ids(await cli(['runs', 'daily-report', '--json'], env))).toEqual(['r4', 'r3', 'r2', 'r1']);
  });

  it('narrows to a slot prefix and to outcomes', async () => {
    const r = await cli(
      ['runs', 'daily-report', '--slot', '2026-03-28', '--outcome', 'failed,succeeded', '--json'],
      env,
    );
    expect(ids(r)).toEqual(['r3', 'r2']);
  });

  it('keeps only attempts started within --since, and at most --limit', async () => {
    expect(ids(await cli(['runs', 'daily-report', '--since', '24h', '--json'], env))).toEqual([
      'r4',
      'r3',
      'r2',
    ]);
    expect(ids(await cli(['runs', 'daily-report', '--limit', '2', '--json'], env))).toEqual(['r4', 'r3']);
  });

  it('prints a table with slot, trigger, outcome, reason, fence and what went wrong', async () => {
    const r = await cli(['runs', 'daily-report'], env);
    const lines = r.stdout.trim().split('\n');
    expect(r.code).toBe(0);
    expect(lines[0]).toMatch(/^SLOT\s+TRIGGER\s+OUTCOME\s+REASON\s+FENCE\s+STARTED\s+TOOK\s+RUN ID\s+NOTE$/);
    expect(lines).toHaveLength(6);
    expect(lines.find((l) => l.includes(' r2 '))).toMatch(
      /^2026-03-28T02:30\s+schedule\s+failed\s+error\s+2\s+\S+Z\s+100ms\s+r2\s+Error: boom$/,
    );
    expect(lines.find((l) => l.includes(' r4 '))).toMatch(
      /skipped\s+lease-held\s+-\s+.*holder r3 \(slot 2026-03-28T02:30\)$/,
    );
  });

  it('lists failed, stale and abandoned runs of the last day across jobs, newest first', async () => {
    const r = await cli(['runs', '--failed', '--since', '24h', '--json'], env);
    expect(json<Row[]>(r).map((x) => [x.job, x.runId, x.outcome])).toEqual([
      ['merchant-settlement', 'm1', 'stale'],
      ['daily-report', 'r2', 'failed'],
      ['merchant-settlement', 'm2', 'abandoned'],
    ]);
    const table = await cli(['runs', '--failed', '--outcome', 'stale'], env);
    expect(table.stdout).toMatch(/^JOB\s+SLOT/);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('reads run records with Query only, never Scan', async () => {
    const doc = createDocumentClient({ endpoint: stack.endpoint });
    const commands: string[] = [];
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    await queryJobRuns(doc, stack.tableName, {
      job: 'daily-report',
      sinceMs: now - 24 * HOUR,
      outcomes: ['failed'],
    });
    await queryProblems(doc, stack.tableName, {
      problems: ['failed', 'stale', 'abandoned'],
      sinceMs: now - 24 * HOUR,
    });
    expect(commands).toEqual(['QueryCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand']);
  });
});

describe('lease', () => {
  let lease: LocalStack;
  let runId: string;
  const heldUntilMs = Date.parse('2099-01-01T00:00:00Z');
  beforeAll(async () => {
    lease = await localStack();
    const w = lease.worker();
    const r = await deliver(
      dailyReport.withDeps(() => w.deps),
      {
        job: 'daily-report',
        scheduledTimeMs: Date.parse('2026-03-28T01:30:00Z'),
        label: 'on-time',
      },
    );
    runId = r.summary?.runId ?? '';
    await lease.doc.send(
      new PutCommand({
        TableName: lease.tableName,
        Item: {
          pk: 'JOB#merchant-settlement',
          sk: 'LEASE',
          owner: 'holder-1',
          fence: 9,
          slot: '2026-03-29T01:00',
          holderState: 'running',
          leaseUntilMs: heldUntilMs,
          acquiredAtMs: Date.now(),
          trigger: 'manual',
          requestedBy: 'ops-bob',
        },
      }),
    );
  });

  it('shows the last holder, its fence, and the slots that succeeded', async () => {
    const r = await cli(['lease', 'daily-report', '--json'], stackEnv(lease));
    expect(json(r)).toMatchObject({
      job: 'daily-report',
      state: 'released',
      holder: runId,
      fence: 1,
      slot: '2026-03-28T02:30',
      lastSucceeded: '2026-03-28T02:30',
      recentlySucceededSlots: ['2026-03-28T02:30'],
    });
    const text = await cli(['lease', 'daily-report'], stackEnv(lease));
    expect(text.stdout).toMatch(/^leaseUntil\s+released$/m);
    expect(text.stdout).toMatch(/^lastSucceeded\s+2026-03-28T02:30$/m);
  });

  it('shows a held lease with its holder and time left', async () => {
    const r = await cli(['lease', 'merchant-settlement'], stackEnv(lease));
    expect(r.stdout).toMatch(/^state\s+held, \d+s left$/m);
    expect(r.stdout).toMatch(/^leaseUntil\s+2099-01-01T00:00:00Z$/m);
    expect(r.stdout).toMatch(/^holder\s+holder-1 \(slot 2026-03-29T01:00, manual by ops-bob\)$/m);
    expect(r.stdout).toMatch(/^fence\s+9$/m);
  });
});

describe.concurrent('bad input exits 2 with a message naming the flag and value', () => {
  const cases: [string, string[], RegExp][] = [
    ['a job name of a form no job has', ['runs', 'no#pe'], /<job> "no#pe" is not a job name/],
    [
      'a malformed --since',
      ['runs', 'daily-report', '--since', 'yesterday'],
      /--since "yesterday" is not an age/,
    ],
    [
      'an unknown outcome',
      ['runs', 'daily-report', '--outcome', 'failed,weird'],
      /--outcome "weird" is not one of/,
    ],
    [
      'a zero --limit',
      ['runs', 'daily-report', '--limit', '0'],
      /--limit "0" must be an integer from 1 to 10000/,
    ],
    ['runs without a job or --failed', ['runs'], /invalid <job> "\(none\)": name a job, or pass --failed/],
    [
      '--failed with a non-problem outcome',
      ['runs', '--failed', '--outcome', 'succeeded'],
      /invalid --outcome "succeeded": --failed lists only failed, stale, abandoned, skipped \(skipped: not-on-schedule, catch-up-limit\)$/m,
    ],
    [
      'a --shard the job does not have',
      ['lease', 'daily-report', '--shard', '3'],
      /invalid --shard 3: job daily-report is not sharded in table cf-lib-[0-9a-f]+ \(one lease, JOB#daily-report\): drop --shard/,
    ],
    [
      '--jobs on a command that reads records only (no job code is imported)',
      ['lease', 'daily-report', '--jobs', './no-such-jobs.ts'],
      /unknown option '--jobs'/,
    ],
    [
      'an endpoint that is not a URL',
      ['lease', 'daily-report', '--endpoint', 'localhost:8000x'],
      /invalid --endpoint "localhost:8000x": is not a URL/,
    ],
  ];
  it.each(cases)('refuses %s', async (_name, args, message) => {
    const r = await cli(args, stackEnv(stack));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    ['runs', ['runs', 'daily-report']],
    ['lease', ['lease', 'daily-report']],
    ['effects', ['effects']],
  ])('%s on a table that does not exist names the table it looked for', async (_n, args) => {
    const r = await cli([...args, '--table', 'no-such-table'], stackEnv(stack));
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
