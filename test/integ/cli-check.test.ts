/** integ: `cronfence check` as a subprocess — exit codes 0 / 1 / 2 and the JSON shape, from a fixed --now. */
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../operate/check.js';
import { type CliResult, cli, json } from './cli-harness.js';

const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const check = (...args: string[]): Promise<CliResult> => cli(['check', '--now', '2026-01-15', ...args], env);

describe('cronfence check', () => {
  it('prints both example jobs with next occurrences and the Berlin/Shanghai notes, and exits 0', async () => {
    const r = await check();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('daily-report  cron(30 2 * * ? *)  Europe/Berlin');
    expect(r.stdout).toContain('2026-01-15T02:30  2026-01-15T01:30:00Z  2026-01-15     2026-01-15T02:30');
    expect(r.stdout).toContain(
      '2026-03-29T01:00:00Z  clocks forward  2026-03-29T02:00 → 2026-03-29T03:00: 02:30 skipped by Scheduler → caught up by the sweeper at 03:00 local (2026-03-29T01:00:00Z) under its own slot id',
    );
    expect(r.stdout).toContain('merchant-settlement  cron(0 1 * * ? *)  Asia/Shanghai');
    expect(r.stdout).toContain('business date: the local date before each slot (previous-day)');
    expect(r.stdout).toContain('2026-01-16T01:00  2026-01-15T17:00:00Z  2026-01-15     2026-01-16T01:00');
    expect(r.stdout).toContain('none: Asia/Shanghai does not change its UTC offset in the next 12 months');
  }, 60_000);

  it('exits 0 with warnings, in the JSON shape', async () => {
    const r = await check('--jobs', 'test/helpers/check-jobs/warned.ts', '--json');
    expect(r.code).toBe(0);
    const report = json<CheckReport>(r);
    expect(Object.keys(report)).toEqual(['now', 'source', 'jobs', 'errors']);
    expect(report.now).toBe('2026-01-15T00:00:00.000Z');
    expect(report.errors).toEqual([]);
    const [job] = report.jobs;
    expect(Object.keys(job ?? {})).toEqual([
      'job',
      'schedule',
      'timeZone',
      'businessDate',
      'overlap',
      'next',
      'transitions',
      'warnings',
      'errors',
    ]);
    expect(job?.next[0]).toEqual({
      slot: '2026-01-15T22:30:00Z',
      local: '2026-01-15T23:30',
      utc: '2026-01-15T22:30:00Z',
      businessDate: '2026-01-15',
    });
    expect(job?.transitions.map((t) => t.kind)).toEqual(['gap', 'overlap']);
    expect(job?.warnings.map((w) => w.code)).toEqual(['rate-dst', 'lease']);
    expect(job?.errors).toEqual([]);
  }, 60_000);

  it('exits 1 when a definition is refused, naming the expression', async () => {
    const r = await check('--jobs', 'test/helpers/check-jobs/refused.ts', '--json');
    expect(r.code).toBe(1);
    expect(json<CheckReport>(r).errors).toEqual([
      {
        code: 'definition',
        message:
          'job "never": invalid schedule "cron(0 0 30 2 ? *)": fields: no date from 1970 to 2199 matches day-of-month, month, day-of-week and year together: the schedule would never fire',
      },
    ]);
  }, 60_000);

  it('exits 1 for an ECS job with shards, in the words synth refuses it with', async () => {
    const r = await check('--jobs', 'test/helpers/check-jobs/ecs-sharded.ts', '--json');
    expect(r.code).toBe(1);
    expect(json<CheckReport>(r).jobs.map((j) => [j.job, j.errors])).toEqual([
      [
        'ecs-sharded',
        [
          {
            code: 'runtime',
            message: 'shards = 3: an ECS job runs unsharded (fan-out invokes Lambda shards)',
          },
        ],
      ],
    ]);
  }, 60_000);

  it('exits 1 for a misspelt option, naming it and the nearest known one', async () => {
    const r = await check('--jobs', 'test/helpers/check-jobs/misspelt.ts', '--json');
    expect(r.code).toBe(1);
    expect(json<CheckReport>(r).errors).toEqual([
      {
        code: 'definition',
        message:
          'job "nightly": invalid job definition: "catchup" = {"mode":"all","windowHours":24}: unknown option catchup — did you mean catchUp?',
      },
    ]);
  }, 60_000);

  it.each([
    [
      ['--jobs', 'test/helpers/check-jobs/missing.ts'],
      /invalid --jobs "test\/helpers\/check-jobs\/missing.ts": cannot be imported/,
    ],
    [['no-such-job'], /invalid <job> "no-such-job": is not a job in functions\/index.ts/],
    [['--now', '2026-02-30'], /--now "2026-02-30" is not a real date/],
  ])(
    'exits 2 on bad usage: %j',
    async (args, message) => {
      const r = await check(...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    },
    60_000,
  );
});
