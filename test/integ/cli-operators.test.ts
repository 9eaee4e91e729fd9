/**
 * The operators' commands (integ: the CLI as a subprocess on DynamoDB Local, as an operator runs them):
 * `trigger` produces one manual run record; `pause` makes the next delivery `skipped / paused` naming
 * the note; `jobs --json` has every field for the example jobs, at one lease read and one run-record
 * query per job; `resume` lists the skipped slots with the catch-up plan; bad input exits 2. `report`:
 * report-chromium.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { jobRows } from '../../operate/jobs.js';
import { jobs } from '../../functions/index.js';
import { RUN_PROBLEM_PARTITIONS } from '../../lib/core/outcomes.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';

let stack: LocalStack;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await localStack();
  env = stackEnv(stack, { CRONFENCE_OPERATOR: 'ops-alice' });
});

describe('cronfence trigger, pause, jobs, resume, report', () => {
  it('triggers one manual run, pauses (the next trigger is skipped/paused with the note), lists jobs, resumes with the skipped slots', async () => {
    const ran = await cli(['trigger', 'daily-report', '--local', '--json', '--reason', 'smoke'], env);
    expect(ran.code, ran.stderr).toBe(0);
    const rec = json<Record<string, unknown>>(ran);
    expect([rec.trigger, rec.outcome, rec.requestedBy, rec.requestReason]).toEqual([
      'manual',
      'succeeded',
      'ops-alice',
      'smoke',
    ]);
    expect((await stack.runRecords('daily-report')).length).toBe(1);

    const paused = await cli(['pause', 'daily-report', '--note', 'INC-42 ledger freeze', '--json'], env);
    expect(paused.code, paused.stderr).toBe(0);
    expect(json(paused)).toMatchObject({
      job: 'daily-report',
      paused: true,
      by: 'ops-alice',
      note: 'INC-42 ledger freeze',
    });

    const skipped = await cli(['trigger', 'daily-report', '--local', '--json'], env);
    expect(skipped.code).toBe(1);
    const srec = json<Record<string, unknown>>(skipped);
    expect([srec.outcome, srec.reason, (srec.details as { pause: { note: string } }).pause.note]).toEqual([
      'skipped',
      'paused',
      'INC-42 ledger freeze',
    ]);

    // A backfill while paused says why its slots were skipped (not "another run held the lease").
    const bf = await cli(
      [
        'backfill',
        'daily-report',
        '--from',
        '2026-03-28',
        '--to',
        '2026-03-28',
        '--requested-by',
        'ops',
        '--reason',
        'x',
        '--local',
      ],
      env,
    );
    expect(bf.code).toBe(1);
    expect(bf.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'skipped 1',
      'Paused slots did not run: the job is paused (`cronfence jobs`); re-run them after `cronfence resume daily-report`.',
    ]);

    const list = await cli(['jobs', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const rows = json<Record<string, unknown>[]>(list);
    expect(rows.map((r) => Object.keys(r).sort())).toEqual(
      Array(2).fill([
        'holder',
        'job',
        'last',
        'next',
        'paused',
        'problems7d',
        'schedule',
        'shards',
        'timeZone',
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
    });
    expect((report?.next as { local: string } | undefined)?.local).toMatch(/T02:30 Europe\/Berlin$/);
    expect(rows.find((r) => r.job === 'merchant-settlement')).toMatchObject({
      paused: null,
      last: null,
      problems7d: 0,
    });

    const resumed = await cli(['resume', 'daily-report', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed)).toMatchObject({
      job: 'daily-report',
      resumed: true,
      pause: { by: 'ops-alice', note: 'INC-42 ledger freeze', inForce: true },
      catchUp: 'latest',
    });
    const again = await cli(['resume', 'daily-report'], env);
    expect([again.code, again.stderr.trim()]).toEqual([
      1,
      'cronfence: job daily-report is not paused: nothing changed',
    ]);
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

  it('resumes a pause whose --until has passed: exit 0, saying so', async () => {
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
    const r = await cli(['resume', 'merchant-settlement'], env);
    expect([r.code, r.stderr, r.stdout.split('\n')[0]]).toEqual([
      0,
      '',
      `resumed merchant-settlement: paused by ops-bob at ${new Date(pausedAtMs).toISOString().slice(0, 19)}Z ("INC-43 vendor outage") (its --until had passed); lease version -:${pausedAtMs} -> -:-`,
    ]);
    expect(
      (await new DynamoPauseStore(stack.doc, stack.tableName).lease('merchant-settlement'))?.pausedAtMs,
    ).toBe(undefined);
  }, 60_000);

  it.each([
    [
      ['trigger', 'daily-report', '--local', '--slot', '2099-01-01T02:30'],
      'invalid --slot "2099-01-01T02:30": is in the future',
    ],
    [['pause', 'daily-report', '--note', ''], 'invalid --note "": must be 1 to 200 characters'],
    [['pause', 'daily-report', '--note', 'x', '--until', '2001-01-01T00:00:00Z'], 'invalid --until'],
    [
      ['report', 'daily-report', '--from', '2026-02-30', '--to', '2026-03-01'],
      '--from "2026-02-30" is not a real date',
    ],
  ])(
    'refuses %j with exit 2 and a message naming the field',
    async (args, message) => {
      const r = await cli(args, env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    },
    60_000,
  );
});
