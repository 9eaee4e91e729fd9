/**
 * Integ: the CLI in a team's own project (DynamoDB Local; the CLI as a subprocess). `check` names the
 * jobs module it read; `trigger` prints the failed run's error; `--jobs` takes a TypeScript module in
 * the installed (compiled) CLI; the installed CLI prints no AWS SDK Node-version warning on Node 20;
 * `npm run build` leaves the bin executable, so `npx cronfence` runs in this repository.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { type CliResult, cli, stackEnv } from './cli-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST_BIN = join(ROOT, 'dist/bin/cronfence.js');
/** Node 20 as the SDK sees it (`process.version`), on whatever Node runs the test. */
const AS_NODE_20 = `data:text/javascript,Object.defineProperty(process,'version',{value:'v20.20.2'})`;

function run(cmd: string, args: readonly string[], env: Record<string, string>, cwd = ROOT) {
  return new Promise<CliResult>((done) => {
    execFile(cmd, args, { env, cwd, timeout: 60_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let stack: LocalStack;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  stack = await localStack();
  env = stackEnv(stack, { CRONFENCE_OPERATOR: 'ops-alice' });
  dir = mkdtempSync(join(tmpdir(), 'cronfence-project-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI in a project of its own', () => {
  it("check names the project's configured jobs module, not functions/index.ts", async () => {
    const lib = pathToFileURL(join(ROOT, 'lib/index.ts')).href;
    writeFileSync(
      join(dir, 'jobs.ts'),
      `import { defineJob } from '${lib}';\nexport const handlers = [defineJob({ name: 'mine', schedule: 'cron(0 5 * * ? *)', timeZone: 'UTC', lease: { durationSeconds: 60 }, run: async () => undefined })];\n`,
    );
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-jobs', type: 'module' }));
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ jobs: './jobs.ts' }));
    const r = await cli(['check', '--now', '2026-03-01'], env, dir);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe('cronfence check: jobs.ts as of 2026-03-01T00:00:00.000Z');
    expect(r.stdout).toContain('mine  cron(0 5 * * ? *)  UTC');
    expect(r.code).toBe(0);
  });

  it("trigger prints the failed run's error on its line", async () => {
    const r = await cli(
      [
        'trigger',
        'fails-always',
        '--local',
        '--jobs',
        'test/helpers/cli-jobs/failing.ts',
        '--slot',
        '2026-03-01T04:00',
      ],
      env,
    );
    expect(r.code).toBe(1);
    const [header, , row] = r.stdout.trim().split('\n');
    expect(header?.split(/ {2,}/)).toEqual([
      'SLOT',
      'TRIGGER',
      'OUTCOME',
      'REASON',
      'FENCE',
      'RUN ID',
      'REQUESTED BY',
      'ERROR',
    ]);
    const cells = row?.split(/ {2,}/) ?? [];
    expect(cells[6]).toBe('ops-alice');
    expect([...cells.slice(0, 5), cells[7]]).toEqual([
      '2026-03-01T04:00',
      'manual',
      'failed',
      'error',
      '1',
      'Error: payments answered 503',
    ]);
  });
});

describe('the installed CLI (dist, compiled JavaScript on plain node)', () => {
  it('npm run build leaves dist/bin/cronfence.js executable, so `npx cronfence` runs in the repository', async () => {
    expect((statSync(DIST_BIN).mode & 0o111).toString(8)).toBe('111');
    const r = await run('npx', ['cronfence', '--help'], {
      PATH: process.env.PATH ?? '',
      HOME: env.HOME ?? '/tmp',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe('Usage: cronfence [options] [command]');
  });

  it('loads a TypeScript --jobs module through tsx', async () => {
    const r = await run(
      'node',
      [DIST_BIN, 'check', '--jobs', 'test/helpers/cli-jobs/ts-jobs.ts', '--now', '2026-03-01'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(
      'cronfence check: test/helpers/cli-jobs/ts-jobs.ts as of 2026-03-01T00:00:00.000Z',
    );
    expect(r.stdout).toContain('ts-nightly  cron(0 3 * * ? *)  Europe/Berlin');
    expect(r.code).toBe(0);
  });

  it('refuses a TypeScript --jobs module without tsx, naming the file and what to do', async () => {
    // A resolve hook that finds no tsx, as in a project that did not install it.
    const hooks = join(dir, 'no-tsx-hooks.mjs');
    writeFileSync(
      hooks,
      "export async function resolve(s, c, next) { if (s.startsWith('tsx/')) throw Object.assign(new Error('Cannot find package ' + s), { code: 'ERR_MODULE_NOT_FOUND' }); return next(s, c); }\n",
    );
    const preload = join(dir, 'no-tsx.mjs');
    writeFileSync(
      preload,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const r = await run(
      'node',
      ['--import', preload, DIST_BIN, 'check', '--jobs', 'test/helpers/cli-jobs/ts-jobs.ts'],
      env,
    );
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'cronfence: invalid --jobs "test/helpers/cli-jobs/ts-jobs.ts": is TypeScript, which node does not import by itself: install tsx in the project (`npm install --save-dev tsx`) so cronfence loads it through tsx, or point at the compiled module (e.g. ./dist/src/jobs.js after `npx tsc`)\n',
    );
    expect(r.code).toBe(2);
  });

  it('prints no AWS SDK Node-version warning on Node 20 (which the SDK prints for a plain client)', async () => {
    const sdk = pathToFileURL(join(ROOT, 'node_modules/@aws-sdk/client-dynamodb/dist-cjs/index.js')).href;
    const plain = await run(
      'node',
      [
        '--import',
        AS_NODE_20,
        '--input-type=module',
        '-e',
        `import { DynamoDBClient } from '${sdk}'; new DynamoDBClient({ region: 'us-east-1' });`,
      ],
      env,
    );
    expect(plain.stderr).toContain('NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)');
    const r = await run('node', ['--import', AS_NODE_20, DIST_BIN, 'runs', 'no-such-job'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
