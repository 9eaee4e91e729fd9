/**
 * The registry is the only list of jobs (integ: subprocesses in a copy of the repository, DynamoDB
 * Local): adding the README's job file plus its one entry in functions/index.ts gives a job that
 * `cdk synth` deploys, the CLI knows and `npm start` fires; a broken job file makes the commands that
 * need the jobs exit 2 with one line naming the job, and leaves the others working.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobs } from '../../functions/index.js';
import { copyRepo, offlineEnv, type RepoCopy, resourcesOf, synthCopy } from './repo-copy.js';

/** The fenced code blocks of the README's "Add a job" section, in order. */
function readmeJobBlocks(readme: string): { file: string; importLine: string; entryLine: string } {
  const section = readme.slice(readme.indexOf('### Add a job'), readme.indexOf('## Run records'));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const [file, importLine, entryLine] = blocks;
  if (!file || !importLine || !entryLine) throw new Error('README: the Add a job section lost a block');
  return { file, importLine: importLine.trim(), entryLine: entryLine.trimEnd() };
}

describe('adding a job: one file plus one registry entry, as the README says', () => {
  let copy: RepoCopy;
  const suffix = randomBytes(4).toString('hex');
  const env = () =>
    offlineEnv({
      DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      CRONFENCE_TABLE: `cf-lib-add-${suffix}`,
      REPORTS_TABLE: `cf-reports-add-${suffix}`,
      SETTLEMENTS_TABLE: `cf-settle-add-${suffix}`,
      SUMMARIES_TABLE: `cf-summaries-add-${suffix}`,
    });

  beforeAll(() => {
    copy = copyRepo();
    const { file, importLine, entryLine } = readmeJobBlocks(copy.read('README.md'));
    copy.write('functions/hourly-summary.ts', file);
    const index = copy.read('functions/index.ts');
    const withImport = index.replace(
      "import { handler as dailyReport } from './daily-report.js';",
      `${importLine}\nimport { handler as dailyReport } from './daily-report.js';`,
    );
    const withEntry = withImport.replace(
      'export const jobs = defineRegistry([\n',
      `export const jobs = defineRegistry([\n${entryLine}\n`,
    );
    expect(withEntry).not.toBe(withImport);
    copy.write('functions/index.ts', withEntry);
  });
  afterAll(() => copy?.remove());

  it('is deployed by cdk synth: its function, schedule, table and alarms', async () => {
    const { run, template } = await synthCopy(copy);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.code).toBe(0);
    if (!template) throw new Error('no template');
    const count = jobs.length + 1;
    const schedules = resourcesOf(template, 'AWS::Scheduler::Schedule');
    expect(schedules.map((s) => s.Name).sort()).toEqual(
      ['cronfence-sweeper', 'hourly-summary', ...jobs.map((j) => j.definition.name)].sort(),
    );
    expect(schedules.find((s) => s.Name === 'hourly-summary')).toMatchObject({
      ScheduleExpression: 'cron(0 * * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
    });
    const fn = resourcesOf(template, 'AWS::Lambda::Function').find(
      (f) => f.FunctionName === 'Cronfence-hourly-summary',
    );
    expect(fn?.Environment).toMatchObject({ Variables: { SUMMARIES_TABLE: expect.anything() } });
    const tables = resourcesOf(template, 'AWS::DynamoDB::Table');
    expect(
      tables.some((t) => JSON.stringify(t.KeySchema) === '[{"AttributeName":"hour","KeyType":"HASH"}]'),
    ).toBe(true);
    // Per job (the 2 example jobs and hourly-summary): 5 problem metrics, DLQ, throttles, event age,
    // dropped events, no success, and its own schedule's target errors, target throttles and dropped
    // invocations (13 each); 2 effect alarms for merchant-settlement, the one with effects; for the
    // sweeper: errors, DLQ and its schedule's three.
    expect(count).toBe(3);
    expect(resourcesOf(template, 'AWS::CloudWatch::Alarm')).toHaveLength(13 * 3 + 2 + 2 + 3);
  }, 240_000);

  it('is fired by npm start, which creates its table and verifies one run record per invocation', async () => {
    // 10:00Z-12:59:59Z on 2026-03-28 holds three hourly slots (11:00-13:00 Berlin) and no daily one.
    const r = await copy.tsx(
      'bin/dev.ts',
      [
        'start',
        '--from',
        '2026-03-28T10:00:00Z',
        '--to',
        '2026-03-28T12:59:59Z',
        '--copies',
        '0',
        '--late',
        '0',
      ],
      env(),
      240_000,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `Tables: cf-lib-add-${suffix}, cf-summaries-add-${suffix}, cf-reports-add-${suffix}, cf-settle-add-${suffix}`,
    );
    const runs = r.stdout.split('\n').filter((l) => l.startsWith('hourly-summary'));
    expect(runs.map((l) => l.split(/\s+/).slice(1, 4))).toEqual([
      ['2026-03-28T11:00', 'schedule', 'succeeded'],
      ['2026-03-28T12:00', 'schedule', 'succeeded'],
      ['2026-03-28T13:00', 'schedule', 'succeeded'],
    ]);
    expect(r.stdout).toContain(
      'PASS  hourly-summary: one run record per invocation: 3 invocations, 3 run records',
    );
    expect(r.stdout).toContain('PASS  hourly-summary: no lease left held: fence 3, released');
  }, 240_000);

  it('is known to the CLI, which reads its run records', async () => {
    const r = await copy.tsx('bin/cronfence.ts', ['runs', 'hourly-summary', '--json'], env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as { slot: string; outcome: string }[];
    expect(records.map((x) => [x.slot, x.outcome])).toEqual([
      ['2026-03-28T13:00', 'succeeded'],
      ['2026-03-28T12:00', 'succeeded'],
      ['2026-03-28T11:00', 'succeeded'],
    ]);
  }, 120_000);
});

describe('a broken job file', () => {
  let copy: RepoCopy;
  const message =
    'cronfence: invalid jobs "functions/index.ts": cannot be loaded: job "daily-report": invalid job definition: "lease.durationSeconds" = 600: must be <= the function timeout (timeoutSeconds = 120): a lease must not outlive the Lambda that holds it; fix that job file (`npx cdk synth` reports the same)\n';

  beforeAll(() => {
    copy = copyRepo();
    const file = copy.read('functions/daily-report.ts');
    copy.write(
      'functions/daily-report.ts',
      file.replace('lease: { durationSeconds: 60 }', 'lease: { durationSeconds: 600 }'),
    );
  });
  afterAll(() => copy?.remove());

  it.each([[['start']]])(
    'fails `cronfence %s` with exit 2 and one line naming the job',
    async (args) => {
      const r = await copy.tsx('bin/dev.ts', args, offlineEnv({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' }));
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: message });
    },
    120_000,
  );

  it('fails synth with exit 2 and one line naming the job, no stack trace', async () => {
    const { run } = await synthCopy(copy);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'cronfence: job "daily-report": invalid job definition: "lease.durationSeconds" = 600: must be <= the function timeout (timeoutSeconds = 120): a lease must not outlive the Lambda that holds it\n',
    );
  }, 120_000);

  it.each([
    [['lease', 'merchant-settlement']],
    [['runs', 'merchant-settlement']],
    [['effects', '--job', 'merchant-settlement']],
  ])(
    'leaves `cronfence %s` reading records: it imports no job code (here it reaches the unreachable endpoint)',
    async (args) => {
      const r = await copy.tsx(
        'bin/cronfence.ts',
        args,
        offlineEnv({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' }),
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^cronfence: DYNAMODB_ENDPOINT "http:\/\/127\.0\.0\.1:9" cannot be reached/);
    },
    120_000,
  );

  it('leaves the commands that need no jobs working', async () => {
    const help = await copy.tsx('bin/cronfence.ts', ['--help'], offlineEnv());
    expect(help.code).toBe(0);
    const list = await copy.tsx('bin/dev.ts', ['drill', '--list'], offlineEnv());
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('holder-killed-mid-run');
  }, 120_000);
});
