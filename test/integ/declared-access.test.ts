/**
 * integ: a job writes only what its `defineJob({ uses })` declares, on DynamoDB Local through
 * `cronfence/testing` — the local run fails as the job's role in AWS would (no grant), but before the
 * request and naming the table and the declaration to add.
 */
import { resolve } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectProvider } from '../../lib/core/effects.js';
import { defineJob, type JobOptions } from '../../lib/runtime/define-job.js';
import { type TableSchema, tableName } from '../../lib/store/schema.js';
import { deliver, type LocalCronfence, startLocalCronfence } from '../../testing/index.js';
import { handlers as ecsJobs } from '../helpers/ecs-drill-jobs.js';

const notesTable: TableSchema = {
  defaultName: 'team-notes',
  envVar: 'TEAM_NOTES_TABLE',
  partitionKey: { name: 'day', type: 'S' },
};
const SLOT_MS = Date.parse('2026-03-02T03:00:00Z');
const noop: EffectProvider<{ n: number }> = {
  name: 'noop',
  idempotencyKeys: true,
  keyRetentionMs: Number.POSITIVE_INFINITY,
  send: async () => ({ kind: 'succeeded', providerRef: 'p1', response: {} }),
};

const job = (name: string, extra: Partial<JobOptions>, run: JobOptions['run']) =>
  defineJob({ name, schedule: 'cron(0 3 * * ? *)', lease: { durationSeconds: 30 }, run, ...extra });
const writeNote: JobOptions['run'] = (ctx) =>
  ctx.fencedPut(tableName(notesTable), { day: ctx.businessDate }, { text: 'hello' });

const declared = job(
  'declared',
  { uses: { tables: [{ table: notesTable, writes: ['fencedPut'] }] } },
  writeNote,
);
let local: LocalCronfence;

beforeAll(async () => {
  local = await startLocalCronfence({ jobs: [declared, ...ecsJobs] });
}, 120_000);
afterAll(async () => {
  await local?.stop();
});

const runOnce = async (h: ReturnType<typeof job>) =>
  (await deliver(local.local(h), { job: h.job.name, scheduledTimeMs: SLOT_MS, label: h.job.name })).summary;

describe('a job given only what it declares', () => {
  it('writes a table it declares (created by startLocalCronfence from the declaration)', async () => {
    expect(await runOnce(declared)).toMatchObject({ outcome: 'succeeded' });
    const { Item } = await local.doc.send(
      new GetCommand({ TableName: 'team-notes', Key: { day: '2026-03-02' } }),
    );
    expect(Item).toMatchObject({ day: '2026-03-02', text: 'hello', 'cronfence:lease': 'JOB#declared' });
  });

  it('fails a write to a table it does not declare, naming the table and the uses entry to add', async () => {
    const s = await runOnce(job('undeclared', {}, writeNote));
    expect(s).toMatchObject({ outcome: 'failed', reason: 'error' });
    expect(s?.error).toMatchObject({
      name: 'InvalidJobDefinitionError',
      message: `invalid job definition: "uses" = "team-notes": job "undeclared" calls fencedPut on table "team-notes", which it does not declare: add uses: { tables: [{ table: <the table's TableSchema>, writes: ['fencedPut'] }] } to its defineJob (its role has no grant for it)`,
    });
  });

  it('fails a write the declaration does not list', async () => {
    const insertOnly = job(
      'insert-only',
      { uses: { tables: [{ table: notesTable, writes: ['insertOnce'] }] } },
      writeNote,
    );
    expect((await runOnce(insertOnly))?.error?.message).toBe(
      `invalid job definition: "uses" = "team-notes": job "insert-only" calls fencedPut on table "team-notes" (team-notes), declared for insertOnce only: add 'fencedPut' to its writes in defineJob's uses (its role has no grant for it)`,
    );
  });

  it('fails an effect of a job that does not declare effects', async () => {
    const paying = job('paying', {}, async (ctx) => {
      await ctx.effect('k1', { n: 1 }, noop);
    });
    expect((await runOnce(paying))?.error?.message).toBe(
      'invalid job definition: "uses.effects" = undefined: job "paying" calls ctx.effect but does not declare effects: add uses: { effects: true } to its defineJob (its role has no grant for its effect records)',
    );
  });
});

describe('an ECS job through cronfence/testing', () => {
  it("runs the job's task entry as a child process on the local DynamoDB: exit 0, succeeded, its rows in the table it declares", async () => {
    const task = local.task({
      jobsModule: resolve('test/helpers/ecs-drill-jobs.ts'),
      job: 'ecs-drill',
      occurrence: {
        scheduledTime: '2026-06-01T23:30:00Z',
        attempt: 1,
        executionId: 'e-1',
        trigger: 'schedule',
      },
      env: { DRILL_PARTS: '2', DRILL_PART_MS: '10' },
    });
    const { code, result } = await task.exited;
    expect(code).toBe(0);
    expect(result?.summary).toMatchObject({
      job: 'ecs-drill',
      slot: '2026-06-02T00:30',
      outcome: 'succeeded',
      fence: 1,
    });
    const table = local.tables.EXPORTS_TABLE as string;
    const manifest = await local.doc.send(
      new GetCommand({ TableName: table, Key: { exportDate: '2026-06-01', part: 'manifest' } }),
    );
    expect(manifest.Item).toMatchObject({ parts: 2, 'cronfence:fence': 1 });
  }, 60_000);
});
