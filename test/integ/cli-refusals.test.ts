/**
 * Commands that cannot do what they say fail with a clear message and the documented exit code
 * (integ: subprocesses, as an operator runs them; none of these reach DynamoDB).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, cli } from './cli-harness.js';
import { offlineEnv, ROOT } from './repo-copy.js';

/** No DynamoDB listens here: a command that got as far as a request would fail with exit 1, not 2. */
const env = (extra: Record<string, string> = {}) =>
  offlineEnv({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', ...extra });

function tsx(script: string, args: readonly string[]): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      resolve(ROOT, 'node_modules/.bin/tsx'),
      [script, ...args],
      { cwd: ROOT, env: env(), timeout: 60_000 },
      (err, stdout, stderr) =>
        done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('bad input exits 2 with a message naming the flag and value', () => {
  it.each([
    [
      'effects list --job with a malformed job name',
      ['effects', 'list', '--job', 'no such'],
      {},
      "error: option '--job <name>' argument 'no such' is invalid. --job \"no such\" is not a job name\n(run with --help for usage)\n",
    ],
    [
      'an empty CRONFENCE_TABLE (a failed `$(aws cloudformation ...)`)',
      ['runs', 'daily-report'],
      { CRONFENCE_TABLE: '' },
      'cronfence: invalid CRONFENCE_TABLE "": is set but empty (did the command that set it fail?): export CRONFENCE_TABLE=<LibraryTableName output>, unset it, or pass --table\n',
    ],
    [
      'an empty CRONFENCE_TABLE on a backfill dry run (sends nothing, still bad input)',
      [
        'backfill',
        'daily-report',
        '--from',
        '2026-11-20',
        '--to',
        '2026-11-20',
        '--requested-by',
        'ops',
        '--reason',
        'x',
        '--dry-run',
      ],
      { CRONFENCE_TABLE: '' },
      'cronfence: invalid CRONFENCE_TABLE "": is set but empty (did the command that set it fail?): export CRONFENCE_TABLE=<LibraryTableName output>, unset it, or pass --table\n',
    ],
    [
      'drill --endpoint that is not a URL (before any drill starts)',
      ['drill', '--endpoint', 'notaurl', 'lease'],
      {},
      'cronfence: invalid --endpoint "notaurl": is not a URL such as http://127.0.0.1:8000\n',
    ],
    [
      'an empty --table',
      ['lease', 'daily-report', '--table', ''],
      {},
      'cronfence: invalid --table "": is empty: pass the library table name\n',
    ],
    // trigger checks who and why as backfill does, before it connects or invokes (it used to cut them
    // short silently, or hand an empty one to the handler and exit 1 with its InvalidEventError).
    [
      'trigger with an empty --reason',
      ['trigger', 'daily-report', '--local', '--reason', ''],
      {},
      'cronfence: invalid --reason "": must be 1 to 1024 characters\n',
    ],
    [
      'trigger with an empty --requested-by',
      ['trigger', 'daily-report', '--local', '--requested-by', ' '],
      {},
      'cronfence: invalid --requested-by " ": must be 1 to 128 characters\n',
    ],
    [
      'trigger with a 129-character --requested-by',
      ['trigger', 'daily-report', '--local', '--requested-by', 'o'.repeat(129)],
      {},
      `cronfence: invalid --requested-by "${'o'.repeat(129)}": must be 1 to 128 characters\n`,
    ],
    [
      'trigger with an empty CRONFENCE_OPERATOR (named, not --requested-by)',
      ['trigger', 'daily-report', '--local'],
      { CRONFENCE_OPERATOR: '' },
      'cronfence: invalid CRONFENCE_OPERATOR "": must be 1 to 128 characters\n',
    ],
    // A who-name from CRONFENCE_OPERATOR is named as that variable, never as the flag not given.
    [
      'pause with a 65-character CRONFENCE_OPERATOR (named, not --by)',
      ['pause', 'daily-report', '--note', 'x'],
      { CRONFENCE_OPERATOR: 'b'.repeat(65) },
      `cronfence: invalid CRONFENCE_OPERATOR "${'b'.repeat(65)}": must be 1 to 64 characters\n`,
    ],
    [
      'pause with a 65-character --by',
      ['pause', 'daily-report', '--note', 'x', '--by', 'b'.repeat(65)],
      { CRONFENCE_OPERATOR: 'ops' },
      `cronfence: invalid --by "${'b'.repeat(65)}": must be 1 to 64 characters\n`,
    ],
    [
      'effects resolve with an empty CRONFENCE_OPERATOR (named, not --by)',
      ['effects', 'resolve', 'k1', '--job', 'daily-report', '--as', 'failed', '--note', 'x'],
      { CRONFENCE_OPERATOR: '' },
      'cronfence: invalid CRONFENCE_OPERATOR "": must be 1 to 128 characters\n',
    ],
    [
      'effects resolve with a 129-character --by',
      [
        'effects',
        'resolve',
        'k1',
        '--job',
        'daily-report',
        '--as',
        'failed',
        '--note',
        'x',
        '--by',
        'o'.repeat(129),
      ],
      {},
      `cronfence: invalid --by "${'o'.repeat(129)}": must be 1 to 128 characters\n`,
    ],
    // A date option before 1970 is refused (the handler refuses such times), never cut silently.
    [
      'backfill --dry-run with --from before 1970',
      [
        'backfill',
        'daily-report',
        '--from',
        '1969-12-30',
        '--to',
        '1970-01-02',
        '--requested-by',
        'ops',
        '--reason',
        'x',
        '--dry-run',
      ],
      {},
      `cronfence: invalid --from "1969-12-30": starts at 1969-12-29T23:00:00Z in Europe/Berlin, before 1970-01-01T00:00:00Z: no slot is earlier (the handler refuses a scheduledTime before 1970, Scheduler's cron years start there)\n`,
    ],
    [
      'start --from before 1970',
      ['start', '--from', '1969-12-31', '--to', '1970-01-02'],
      {},
      `error: option '--from <date>' argument '1969-12-31' is invalid. --from "1969-12-31" is before 1970-01-01T00:00:00Z: no slot is earlier (the handler refuses a scheduledTime before 1970, Scheduler's cron years start there)\n(run with --help for usage)\n`,
    ],
    [
      'trigger --wait -5',
      ['trigger', 'daily-report', '--wait', '-5'],
      {},
      "error: option '--wait <seconds>' argument '-5' is invalid. --wait \"-5\" must be an integer from 0 to 3600\n(run with --help for usage)\n",
    ],
    [
      'report --out in a directory that does not exist (checked before the table is read)',
      [
        'report',
        'daily-report',
        '--from',
        '2026-03-01',
        '--to',
        '2026-03-02',
        '--out',
        '/nonexistent/dir/x.html',
      ],
      {},
      'cronfence: invalid --out "/nonexistent/dir/x.html": directory /nonexistent/dir does not exist\n',
    ],
    [
      'report --out naming a directory',
      ['report', 'daily-report', '--from', '2026-03-01', '--to', '2026-03-02', '--out', '/tmp'],
      {},
      'cronfence: invalid --out "/tmp": is a directory: name a file\n',
    ],
    [
      'drill --report under a file (checked before any drill runs)',
      ['drill', '--report', 'package.json/timelines'],
      {},
      `error: option '--report <dir>' argument 'package.json/timelines' is invalid. --report "package.json/timelines": ${ROOT}/package.json is not a directory\n(run with --help for usage)\n`,
    ],
    [
      'explore --report under a file (checked before any history runs)',
      ['explore', '--report', 'package.json/timelines'],
      {},
      `error: option '--report <dir>' argument 'package.json/timelines' is invalid. --report "package.json/timelines": ${ROOT}/package.json is not a directory\n(run with --help for usage)\n`,
    ],
  ])('%s', async (_name, args, extra, stderr) => {
    expect(await cli(args, env(extra))).toEqual({ code: 2, stdout: '', stderr });
  });

  it('an empty AWS_REGION against AWS names the variable (the SDK would say only "Region is missing")', async () => {
    const { DYNAMODB_ENDPOINT: _local, ...aws } = env({ AWS_REGION: '' });
    expect(await cli(['lease', 'daily-report'], aws)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'cronfence: invalid AWS_REGION "": no AWS region: pass --region, set AWS_REGION, or use --endpoint for DynamoDB Local\n',
    });
  });

  it('a profile from AWS_PROFILE that gives no credentials names AWS_PROFILE, not --profile', async () => {
    const { DYNAMODB_ENDPOINT: _local, ...aws } = env({ AWS_PROFILE: 'nosuch' });
    expect(await cli(['lease', 'daily-report'], aws)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'cronfence: invalid AWS_PROFILE "nosuch": no AWS credentials found (Could not load credentials from any providers): pass --profile, set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or use --endpoint for DynamoDB Local\n',
    });
  });

  it('--help marks every required option: backfill (4) and effects resolve (3)', async () => {
    const required = (r: CliResult) => r.stdout.split('(required)').length - 1;
    const backfill = await cli(['backfill', '--help'], env());
    expect([backfill.code, required(backfill)]).toEqual([0, 4]);
    const resolve = await cli(['effects', 'resolve', '--help'], env());
    expect([resolve.code, required(resolve)]).toEqual([0, 3]);
  });

  it('explore --runs abc', async () => {
    const r = await cli(['explore', '--runs', 'abc'], env());
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: option '--runs <n>' argument 'abc' is invalid. --runs "abc" must be an integer from 1 to 10000000`,
    );
    // One pointer to --help, not the whole usage text.
    expect(r.stderr.split('\n').slice(1)).toEqual(['(run with --help for usage)', '']);
  });

  it.each([
    ['runs', ['runs', 'daily-report']],
    ['start', ['start', '--from', '2026-11-20', '--to', '2026-11-20']],
  ])('%s with an empty DYNAMODB_ENDPOINT (a failed `$(...)`): exit 2 naming it', async (_n, args) => {
    expect(await cli(args, env({ DYNAMODB_ENDPOINT: '' }))).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'cronfence: invalid DYNAMODB_ENDPOINT "": is set but empty (did the command that set it fail?): set it to a URL such as http://127.0.0.1:8000, or unset it\n',
    });
  });

  it('start with an unreachable DYNAMODB_ENDPOINT names the variable and the value', async () => {
    const r = await cli(['start', '--from', '2026-11-20', '--to', '2026-11-20'], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^cronfence: DYNAMODB_ENDPOINT "http:\/\/127\.0\.0\.1:9" cannot be reached \(.*ECONNREFUSED.*\): start DynamoDB Local there, or unset DYNAMODB_ENDPOINT \(npm start then starts one\)\n$/,
    );
  });

  it('runs with an unreachable DYNAMODB_ENDPOINT names the variable and the value (exit 1: nothing was read)', async () => {
    const r = await cli(['runs', 'daily-report'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^cronfence: DYNAMODB_ENDPOINT "http:\/\/127\.0\.0\.1:9" cannot be reached \(.*ECONNREFUSED.*\): is DynamoDB Local up there\? Start it with `npm start -- --hold`, or fix DYNAMODB_ENDPOINT\n$/,
    );
  });

  it.each([
    ['--from', ['--from', '2099-01-01'], '2099-01-01T00:00:00.000Z'],
    ['--to', ['--to', '2099-01-02'], '2099-01-02T00:00:00.000Z'],
  ])('start with %s in the future (exit 2, like backfill)', async (flag, range, value) => {
    const r = await cli(['start', ...range], env());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `^cronfence: invalid ${flag} "${value.replace(/\./g, '\\.')}": is in the future \\(now is [^)]+\\); npm start plays past occurrences only \\(backfill refuses the same\\)\\n$`,
      ),
    );
  });

  it('start --from after --to', async () => {
    const r = await cli(['start', '--from', '2026-04-02', '--to', '2026-04-01'], env());
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'cronfence: invalid --to "2026-04-01T23:59:59.999Z": is before --from (2026-04-02T00:00:00.000Z)\n',
    });
  });

  it('npm run bench -- nosuch', async () => {
    expect(await tsx('bench/run-all.ts', ['nosuch'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'bench: unknown benchmark "nosuch" (known: protocol-cost, claim-latency, throughput, cold-start, scale, fan-out, peer, peer-shapes)\n',
    });
  });
});

describe('help', () => {
  it('npm run explore -- --help prints the options and exits 0', async () => {
    const r = await cli(['explore', '--help'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: cronfence explore \[options\]/);
    for (const flag of ['--runs <n>', '--seed <n>', '--dynamo <n>', '--max-workers <n>', '--report <dir>'])
      expect(r.stdout).toContain(flag);
  });

  it('start --help states the range: whole UTC days, inclusive, 3 days before --to by default', async () => {
    const r = await cli(['start', '--help'], env());
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      '--from <date> first day (yyyy-mm-dd, a whole UTC day) or instant (ISO-8601 with Z or an offset), inclusive (default: 3 days before --to)',
    );
    expect(text).toContain(
      '--to <date> last day (yyyy-mm-dd, through its last UTC instant; today ends now) or instant, inclusive; not in the future (default: now)',
    );
  });
});
