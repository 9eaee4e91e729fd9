/**
 * The operator API's record reads (integ, in process, on DynamoDB Local): `JobHandle.runs`,
 * `Operator.problems`, `JobHandle.lease` and what `cronfence runs` / `lease` render from them, with
 * the values the CLI tests assert; refusals name the field and the value and map to exit 2. The CLI
 * itself (parsing, exit codes, one rendering) is spawned in cli-runs.test.ts.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, requestErrorOf } from '../../cli/exit-codes.js';
import { leaseText } from '../../cli/lease.js';
import { table } from '../../cli/output.js';
import { runColumns } from '../../cli/runs.js';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { createDocumentClient } from '../../lib/store/client.js';
import type { Operator } from '../../operate/operator.js';
import { queryJobRuns, queryProblems } from '../../operate/run-queries.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { seedListingRuns } from '../helpers/run-fixtures.js';
import { operatorOn, rejection } from './operate-harness.js';

const HOUR = 3_600_000;
const now = Date.now();
let stack: LocalStack;
let op: Operator;

const ids = (rows: readonly { runId: string }[]) => rows.map((x) => x.runId);

describe('runs', () => {
  beforeAll(async () => {
    stack = await localStack();
    op = operatorOn(stack);
    await seedListingRuns(stack, now);
  });

  afterAll(() => op?.close());

  it("lists a job's attempts newest slot first, every attempt of a slot together", async () => {
    expect(ids(await op.job('daily-report').runs())).toEqual(['r4', 'r3', 'r2', 'r1']);
  });

  it('narrows to a slot prefix and to outcomes', async () => {
    const rows = await op.job('daily-report').runs({ slot: '2026-03-28', outcomes: ['failed', 'succeeded'] });
    expect(ids(rows)).toEqual(['r3', 'r2']);
  });

  it('keeps only attempts started since an instant, and at most a limit', async () => {
    expect(ids(await op.job('daily-report').runs({ sinceMs: Date.now() - 24 * HOUR }))).toEqual([
      'r4',
      'r3',
      'r2',
    ]);
    expect(ids(await op.job('daily-report').runs({ limit: 2 }))).toEqual(['r4', 'r3']);
  });

  it('renders a table with slot, trigger, outcome, reason, fence and what went wrong', async () => {
    const lines = table(await op.job('daily-report').runs(), runColumns(false)).split('\n');
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
    const rows = await op.problems({ sinceMs: Date.now() - 24 * HOUR });
    expect(rows.map((x) => [x.job, x.runId, x.outcome])).toEqual([
      ['merchant-settlement', 'm1', 'stale'],
      ['daily-report', 'r2', 'failed'],
      ['merchant-settlement', 'm2', 'abandoned'],
    ]);
    const text = table(await op.problems({ outcomes: ['stale'] }), runColumns(true));
    expect(text).toMatch(/^JOB\s+SLOT/);
    expect(text.split('\n')).toHaveLength(3);
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

  it.each([
    [
      'an unknown outcome',
      () => op.job('daily-report').runs({ outcomes: ['failed', 'weird'] }),
      'invalid outcome "weird": is not one of running, succeeded, failed, skipped, buffered, stale, abandoned',
    ],
    [
      'problems of a non-problem outcome',
      () => op.problems({ outcomes: ['succeeded'] }),
      'invalid outcome "succeeded": problem runs are listed only as failed, stale, abandoned, skipped (skipped: not-on-schedule, catch-up-limit, buffer-full, waiting-too-long)',
    ],
    [
      'a job name of a form no job has',
      () => op.job('no#pe').runs(),
      'invalid <job> "no#pe": is not a job name (1-64 of A-Z a-z 0-9 _ -, starting with a letter)',
    ],
  ])('refuses %s, naming the field and the value (exit 2)', async (_name, call, message) => {
    const err = await rejection(call());
    expect(err.message).toBe(message);
    expect(exitCodeFor(err)).toBe(2);
  });
});

describe('lease', () => {
  let lease: LocalStack;
  let leaseOp: Operator;
  let runId: string;
  const heldUntilMs = Date.parse('2099-01-01T00:00:00Z');
  beforeAll(async () => {
    lease = await localStack();
    leaseOp = operatorOn(lease);
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

  afterAll(() => leaseOp?.close());

  it('shows the last holder, its fence, and the slots that succeeded', async () => {
    const [view] = await leaseOp.job('daily-report').lease();
    expect(view).toMatchObject({
      job: 'daily-report',
      state: 'released',
      holder: runId,
      fence: 1,
      slot: '2026-03-28T02:30',
      lastSucceeded: '2026-03-28T02:30',
      recentlySucceededSlots: ['2026-03-28T02:30'],
    });
    const text = leaseText(view as NonNullable<typeof view>, Date.now(), 10);
    expect(text).toMatch(/^leaseUntil\s+released$/m);
    expect(text).toMatch(/^lastSucceeded\s+2026-03-28T02:30$/m);
  });

  it('shows a held lease with its holder and time left', async () => {
    const [view] = await leaseOp.job('merchant-settlement').lease();
    const text = leaseText(view as NonNullable<typeof view>, Date.now(), 10);
    expect(text).toMatch(/^state\s+held, \d+s left$/m);
    expect(text).toMatch(/^leaseUntil\s+2099-01-01T00:00:00Z$/m);
    expect(text).toMatch(/^holder\s+holder-1 \(slot 2026-03-29T01:00, manual by ops-bob\)$/m);
    expect(text).toMatch(/^fence\s+9$/m);
  });

  it('describes a job from its name alone: lease, pause and version, no definition without its code', async () => {
    const bare = operatorOn(lease, { jobs: [] });
    try {
      const d = await bare.job('daily-report').describe();
      expect([d.definition, d.next, d.paused, d.version, d.overlap]).toEqual([
        undefined,
        [],
        null,
        '1:-',
        undefined,
      ]);
      expect(d.leases.map((l) => [l.job, l.state, l.holder, l.fence])).toEqual([
        ['daily-report', 'released', runId, 1],
      ]);
    } finally {
      bare.close();
    }
    const full = await leaseOp.job('daily-report').describe();
    expect([full.definition?.schedule, full.definition?.timeZone, full.next.length]).toEqual([
      'cron(30 2 * * ? *)',
      'Europe/Berlin',
      5,
    ]);
    expect(full.overlap).toEqual({
      label: 'skip',
      consequence:
        "skip: an occurrence arriving while another holds the lease is recorded skipped / overlap; the sweeper's catch-up (mode latest) runs it later",
    });
  });

  it('refuses a shard the job does not have, naming it (exit 2)', async () => {
    const err = await rejection(leaseOp.job('daily-report').lease({ shard: 3 }));
    expect(err.message).toBe(
      `invalid shard 3: job daily-report is not sharded in table ${lease.tableName} (one lease, JOB#daily-report): drop \`shard\``,
    );
    expect(exitCodeFor(err)).toBe(2);
  });

  it('refuses an endpoint that is not a URL before any request (exit 2)', async () => {
    const bad = operatorOn(lease, { endpoint: 'localhost:8000x' });
    const err = await rejection(bad.job('daily-report').lease());
    expect(err.message).toMatch(/^invalid endpoint "localhost:8000x": is not a URL/);
    expect(exitCodeFor(err)).toBe(2);
  });

  it.each([
    ['runs', (o: Operator) => o.job('daily-report').runs()],
    ['lease', (o: Operator) => o.job('daily-report').lease()],
    ['effects', (o: Operator) => o.effects()],
  ])(
    '%s on a table that does not exist fails naming the table (what the CLI prints; exit 2)',
    async (_n, call) => {
      const missing = operatorOn(lease, { table: 'no-such-table' });
      try {
        const err = await rejection(call(missing));
        expect(requestErrorOf(err)?.message).toBe(
          `table "no-such-table" does not exist at ${lease.endpoint} (ResourceNotFoundException: Cannot do operations on a non-existent table)`,
        );
        expect(exitCodeFor(err)).toBe(2);
      } finally {
        missing.close();
      }
    },
  );
});
