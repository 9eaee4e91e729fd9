/**
 * Integ: `cronfence local --hold` in a team's project: DynamoDB Local with the library table and the
 * table the project's jobs declare, `.cronfence/local.json` written, so `trigger --local` and `runs`
 * work in that directory with no endpoint, table or flag; `kill <pid>` stops it and removes the file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredTables } from '../../testing/index.js';
import { cli } from './cli-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'cronfence-hold-'));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const lib = pathToFileURL(join(ROOT, 'lib/index.ts')).href;
const JOBS = `import { defineJob } from '${lib}';

export const notesTable = { defaultName: 'my-notes', envVar: 'NOTES_TABLE', partitionKey: { name: 'slot', type: 'S' } } as const;
const notes = defineJob({
  name: 'notes',
  schedule: 'cron(0 6 * * ? *)',
  timeZone: 'UTC',
  lease: { durationSeconds: 30 },
  timeoutSeconds: 60,
  run: async (ctx) => {
    await ctx.fencedPut(process.env.NOTES_TABLE ?? 'unset', { slot: ctx.slot.id }, { note: 'held' });
  },
});
// The registry-entry shape the CDK construct takes: the handler and what it uses.
export const jobs = [{ handler: notes, uses: { tables: [{ table: notesTable, writes: ['fencedPut'] }] } }];
`;

/** No endpoint and no table in the environment: the CLI must find the held stack by itself. */
const env = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_CONFIG_FILE: '/nonexistent/config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
  CRONFENCE_OPERATOR: 'ops-bob',
};

function waitFor(check: () => boolean, what: string, ms = 150_000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((done, fail) => {
    const tick = () => {
      if (check()) done();
      else if (child?.exitCode !== null && child?.exitCode !== undefined && what === 'the hold')
        fail(new Error(`cronfence local exited ${child.exitCode}`));
      else if (Date.now() > until) fail(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 200);
    };
    tick();
  });
}

describe('cronfence local --hold', () => {
  it('holds DynamoDB Local with the jobs’ tables for the CLI in the project, and stops on kill', async () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-jobs', type: 'module' }));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/jobs.ts'), JOBS);
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ jobs: './src/jobs.ts' }));
    let stdout = '';
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'bin/cronfence.ts'), 'local', '--hold'], {
      cwd: dir,
      env,
    });
    child.stdout?.on('data', (b: Buffer) => {
      stdout += b.toString();
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const stateFile = join(dir, '.cronfence/local.json');
    await waitFor(() => stdout.includes('Holding until'), 'the hold').catch((err: Error) => {
      throw new Error(`${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`);
    });
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      endpoint: string;
      pid: number;
      tables: Record<string, string>;
    };
    expect(state.tables).toEqual({ CRONFENCE_TABLE: 'cronfence', NOTES_TABLE: 'my-notes' });
    expect(
      stdout
        .replace(/127\.0\.0\.1:\d+/, '127.0.0.1:PORT')
        .replace(/pid \d+|kill \d+/g, (m) => m.replace(/\d+/, 'N'))
        .split('\n'),
    ).toEqual([
      'DynamoDB Local at http://127.0.0.1:PORT (pid N, in memory), jobs from src/jobs.ts',
      'Tables: cronfence (CRONFENCE_TABLE), my-notes (NOTES_TABLE)',
      `Wrote ${stateFile}: the cronfence CLI in this directory uses this endpoint without flags.`,
      'Holding until Ctrl-C or kill N.',
      '',
    ]);
    expect(state.endpoint).toBe(/DynamoDB Local at (\S+) /.exec(stdout)?.[1]);

    const ran = await cli(['trigger', 'notes', '--local', '--slot', '2026-03-01T06:00', '--json'], env, dir);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({
      slot: '2026-03-01T06:00',
      trigger: 'manual',
      outcome: 'succeeded',
      requestedBy: 'ops-bob',
    });
    const runs = await cli(['runs', 'notes', '--json'], env, dir);
    expect((JSON.parse(runs.stdout) as { outcome: string }[]).map((r) => r.outcome)).toEqual(['succeeded']);

    process.kill(state.pid, 'SIGTERM');
    await waitFor(() => child?.exitCode !== null, 'the exit', 60_000);
    expect(child.exitCode).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe('DynamoDB Local stopped; .cronfence/local.json removed.');
    expect(existsSync(stateFile)).toBe(false);
    expect(stderr).toBe('');
  }, 240_000);
});

describe('declaredTables', () => {
  const table = { defaultName: 't1', envVar: 'T1', partitionKey: { name: 'k', type: 'S' as const } };
  it('reads registry entries’ uses, once per table, and nothing from bare handlers without uses', async () => {
    const { handler } = await import('../helpers/cli-jobs/ts-job.js');
    expect(
      declaredTables([
        { handler, uses: { tables: [{ table, writes: ['fencedPut'] }] } },
        { handler, uses: { tables: [{ table, writes: ['insertOnce'] }] } },
        handler,
      ]),
    ).toEqual([table]);
    expect(declaredTables({ handler })).toEqual([]);
  });
});
