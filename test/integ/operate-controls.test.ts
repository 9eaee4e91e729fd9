/**
 * The operators' controls on the operator API (integ, in process, on DynamoDB Local): `trigger`
 * produces one manual run record; `pause` makes the next delivery `skipped / paused` naming the note;
 * `jobs` has every field for the example jobs, at one lease read and one run-record query per job;
 * `resume` lists the skipped slots with the catch-up plan; bad input is refused naming the field
 * (exit 2). The CLI's own part (its binary, exit codes) is spawned in cli-operators.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillText } from '../../cli/backfill.js';
import { exitCodeFor } from '../../cli/exit-codes.js';
import { resumeText } from '../../cli/pause.js';
import { jobs } from '../../functions/index.js';
import { RUN_PROBLEM_PARTITIONS } from '../../lib/core/outcomes.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { jobRows } from '../../operate/jobs.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { operatorOn, rejection } from './operate-harness.js';

let stack: LocalStack;
let op: Operator;
const by = 'ops-alice';

beforeAll(async () => {
  stack = await localStack();
  op = operatorOn(stack);
});
afterAll(() => op?.close());

describe('trigger, pause, jobs, resume on the operator API', () => {
  it('triggers one manual run, pauses (the next trigger is skipped/paused with the note), lists jobs, resumes with the skipped slots', async () => {
    const job = op.job('daily-report');
    const ran = await job.trigger({ local: true, reason: 'smoke', requestedBy: by });
    expect(ran.succeeded).toBe(true);
    const [rec] = ran.records;
    expect([rec?.trigger, rec?.outcome, rec?.requestedBy, rec?.requestReason]).toEqual([
      'manual',
      'succeeded',
      'ops-alice',
      'smoke',
    ]);
    expect((await stack.runRecords('daily-report')).length).toBe(1);

    const paused = await job.pause({ note: 'INC-42 ledger freeze', by });
    expect(paused).toMatchObject({
      job: 'daily-report',
      paused: true,
      by: 'ops-alice',
      note: 'INC-42 ledger freeze',
    });

    const skipped = await job.trigger({ local: true, requestedBy: by });
    expect(skipped.succeeded).toBe(false);
    const [srec] = skipped.records;
    expect([
      srec?.outcome,
      srec?.reason,
      (srec?.details as { pause?: { note: string } } | undefined)?.pause?.note,
    ]).toEqual(['skipped', 'paused', 'INC-42 ledger freeze']);

    // A backfill while paused says why its slots were skipped (not "another run held the lease").
    const bf = await job.backfill({
      from: '2026-03-28',
      to: '2026-03-28',
      requestedBy: 'ops',
      reason: 'x',
      local: true,
    });
    expect(bf.succeeded).toBe(false);
    expect(backfillText(bf).split('\n').slice(-2)).toEqual([
      'skipped 1',
      'Paused slots did not run: the job is paused (`cronfence jobs`); re-run them after `cronfence resume daily-report`.',
    ]);

    const rows = await op.jobs();
    expect(rows.map((r) => Object.keys(r).sort())).toEqual(
      Array(2).fill([
        'holder',
        'job',
        'last',
        'next',
        'overlap',
        'paused',
        'problems7d',
        'schedule',
        'shards',
        'timeZone',
        'waiting',
      ]),
    );
    const report = rows.find((r) => r.job === 'daily-report');
    expect(report).toMatchObject({
      schedule: 'cron(30 2 * * ? *)',
      timeZone: 'Europe/Berlin',
      paused: { by: 'ops-alice', note: 'INC-42 ledger freeze' },
      last: { trigger: 'manual', outcome: 'succeeded' },
      holder: null,
      problems7d: 0,
      overlap: 'skip',
    });
    expect(report?.next?.local).toMatch(/T02:30 Europe\/Berlin$/);
    expect(rows.find((r) => r.job === 'merchant-settlement')).toMatchObject({
      paused: null,
      last: null,
      problems7d: 0,
    });

    const described = await job.describe();
    expect([described.paused?.note, described.definition?.schedule, described.next.length]).toEqual([
      'INC-42 ledger freeze',
      'cron(30 2 * * ? *)',
      5,
    ]);

    const resumed = await job.resume({ by });
    expect(resumed).toMatchObject({
      job: 'daily-report',
      resumed: true,
      pause: { by: 'ops-alice', note: 'INC-42 ledger freeze', inForce: true },
      catchUp: 'latest',
    });
    expect(await job.resume({ by })).toEqual({ job: 'daily-report', resumed: false, why: 'not-paused' });
  }, 180_000);

  it('reads one lease item and one run-record query per job, and one problems-index query per run partition for all jobs', async () => {
    const doc = createDocumentClient({ endpoint: stack.endpoint });
    const sent: string[] = [];
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const rows = await jobRows(
      doc,
      stack.tableName,
      jobs.map((j) => j.handler),
      Date.now(),
    );
    expect(rows.map((r) => r.job)).toEqual(['daily-report', 'merchant-settlement']);
    expect(sent.sort()).toEqual([
      'GetItemCommand',
      'GetItemCommand',
      ...Array(2 + RUN_PROBLEM_PARTITIONS.length).fill('QueryCommand'),
    ]);
    expect(RUN_PROBLEM_PARTITIONS).toEqual(['failed', 'stale', 'abandoned', 'skipped']);
  });

  it('resumes a pause whose until has passed, saying so', async () => {
    const settlement = jobs.find((j) => j.handler.job.name === 'merchant-settlement')?.handler.job;
    const pausedAtMs = Math.floor(Date.now() / 1000) * 1000 - 2 * 3_600_000;
    await new DynamoPauseStore(stack.doc, stack.tableName).pause({
      job: 'merchant-settlement',
      shards: settlement?.shards ?? 1,
      by: 'ops-bob',
      note: 'INC-43 vendor outage',
      untilMs: pausedAtMs + 3_600_000,
      nowMs: pausedAtMs,
    });
    const view = await op.job('merchant-settlement').resume({ by });
    if (!view.resumed) throw new Error('not resumed');
    expect(resumeText(view).split('\n')[0]).toBe(
      `resumed merchant-settlement: paused by ops-bob at ${new Date(pausedAtMs).toISOString().slice(0, 19)}Z ("INC-43 vendor outage") (its --until had passed); lease version -:${pausedAtMs} -> -:-`,
    );
    expect(
      (await new DynamoPauseStore(stack.doc, stack.tableName).lease('merchant-settlement'))?.pausedAtMs,
    ).toBe(undefined);
  }, 60_000);

  it.each([
    [
      'a future slot',
      () => op.job('daily-report').trigger({ local: true, slot: '2099-01-01T02:30', requestedBy: by }),
      'invalid slot "2099-01-01T02:30": is in the future',
    ],
    [
      'an empty note',
      () => op.job('daily-report').pause({ note: '', by }),
      'invalid note "": must be 1 to 200 characters',
    ],
    [
      'an until in the past',
      () => op.job('daily-report').pause({ note: 'x', by, untilMs: Date.parse('2001-01-01T00:00:00Z') }),
      'invalid untilMs',
    ],
    [
      'a job the jobs do not have',
      () => op.job('no-such-job').pause({ note: 'x', by }),
      'invalid <job> "no-such-job": is not a job in the jobs passed to openOperator (known: "daily-report", "merchant-settlement")',
    ],
  ])(
    'refuses %s, naming the field (exit 2)',
    async (_name, call, message) => {
      const err = await rejection(call());
      expect(err.message).toContain(message);
      expect(exitCodeFor(err)).toBe(2);
    },
    60_000,
  );
});
