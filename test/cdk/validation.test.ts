/** cdk: synth-time validation — bad job definitions fail synth with a message naming job, field and value. */
import { App, Lazy, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { describe, expect, it } from 'vitest';
import { LibraryTable } from '../../cdk/constructs/library-table.js';
import { ScheduledJob } from '../../cdk/constructs/scheduled-job.js';
import { Sweeper } from '../../cdk/constructs/sweeper.js';
import { CronfenceStack, type JobEntry } from '../../cdk/stack.js';
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { declareUses } from '../../lib/store/job-access.js';
import { FIXTURE_HANDLER, FIXTURE_SWEEPER, jobDefinition } from './fixtures/jobs.js';
import { NOW, synthError, synthesize } from './support.js';

const props = (...jobs: JobEntry[]) => ({ jobs, sweeperEntry: FIXTURE_SWEEPER, now: NOW });
const job = (overrides: Parameters<typeof jobDefinition>[0]): JobEntry => ({
  definition: jobDefinition(overrides),
  entry: FIXTURE_HANDLER,
});

describe('synth fails with a clear message', () => {
  it.each([
    [
      'a 5-field cron',
      { schedule: 'cron(30 2 * * ?)' },
      /job "bad": invalid schedule "cron\(30 2 \* \* \?\)": fields/,
    ],
    ['a cron with both day fields set', { schedule: 'cron(0 6 1 * MON *)' }, /day-of-month\/day-of-week/],
    [
      'an hour out of range',
      { schedule: 'cron(0 24 * * ? *)' },
      /invalid schedule "cron\(0 24 \* \* \? \*\)": hours: 24 is outside 0-23/,
    ],
    ['rate(0 minutes)', { schedule: 'rate(0 minutes)' }, /invalid schedule "rate\(0 minutes\)"/],
    ['rate(1 minutes)', { schedule: 'rate(1 minutes)' }, /invalid schedule "rate\(1 minutes\)"/],
    [
      'an expression of no known kind',
      { schedule: 'every day' },
      /expected cron\(...\), rate\(...\) or at\(...\)/,
    ],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, /job "bad": .*"timeZone" = "Mars\/Olympus"/],
    ['an abbreviation instead of a zone', { timeZone: 'CET' }, /"timeZone" = "CET"/],
    [
      'a zone not spelt as IANA spells it',
      { timeZone: 'EUROPE/BERLIN' },
      /job "bad": invalid job definition: "timeZone" = "EUROPE\/BERLIN": must be spelt as IANA spells it, "Europe\/Berlin" \(EventBridge Scheduler's ScheduleExpressionTimezone is case-sensitive\)/,
    ],
    [
      'a lease longer than the timeout',
      { lease: { durationSeconds: 301, renewFraction: 1 / 3 }, timeoutSeconds: 300 },
      /job "bad": invalid job definition: "lease.durationSeconds" = 301: must be <= the function timeout \(timeoutSeconds = 300\)/,
    ],
    [
      'a zero lease',
      { lease: { durationSeconds: 0, renewFraction: 1 / 3 } },
      /"lease.durationSeconds" = 0: must be a number > 0/,
    ],
    [
      'a timeout above the Lambda maximum',
      { timeoutSeconds: 901 },
      /"timeoutSeconds" = 901: must be an integer 1-900 \(the Lambda maximum\)/,
    ],
    [
      'run records kept for less than the oldest delivery (24 h Scheduler + 6 h Lambda)',
      { runRetentionDays: 1 },
      /runRetentionDays = 1 must exceed the oldest delivery the schedule and function allow \(108000 s/,
    ],
  ])('for %s', (_what, overrides, message) => {
    const error = synthError(props(job({ name: 'bad', ...overrides })));
    expect(error?.message).toMatch(message);
  });

  it.each([
    [
      { catchup: { mode: 'all', windowHours: 24, maxSlotsPerSweep: 5 } },
      'cronfence: job "bad": invalid job definition: "catchup" = {"mode":"all","windowHours":24,"maxSlotsPerSweep":5}: unknown option catchup — did you mean catchUp?',
    ],
    [
      { lease: { durationSeconds: 60, renewFraction: 1 / 3, renewFractoin: 0.5 } },
      'cronfence: job "bad": invalid job definition: "lease.renewFractoin" = 0.5: unknown option lease.renewFractoin — did you mean lease.renewFraction?',
    ],
  ])('for an unknown option %j, naming it and the nearest known one', (extra, message) => {
    const definition = { ...jobDefinition({ name: 'bad' }), ...extra } as JobDefinition;
    expect(synthError(props({ definition, entry: FIXTURE_HANDLER }))?.message).toBe(message);
  });

  it('for an unknown option near no known one, listing the known ones', () => {
    const definition = { ...jobDefinition({ name: 'bad' }), owner: 'team-a' } as JobDefinition;
    expect(synthError(props({ definition, entry: FIXTURE_HANDLER }))?.message).toMatch(
      /^cronfence: job "bad": invalid job definition: "owner" = "team-a": unknown option owner; the known options here are name, id, schedule, timeZone, lease, timeoutSeconds, /,
    );
  });

  it('for a job name that is not a valid schedule name and key part', () => {
    expect(synthError(props(job({ name: 'daily#report' })))?.message).toMatch(/"name" = "daily#report"/);
  });

  it('for two jobs with the same name, naming both handler files', () => {
    const error = synthError(
      props(job({ name: 'twice' }), { ...job({ name: 'twice' }), entry: 'functions/other.ts' }),
    );
    expect(error?.message).toMatch(
      /duplicate job name "twice": defined by functions\/other.ts and test\/cdk\/fixtures\/handler.ts/,
    );
  });

  it("for a job that takes the sweeper's name", () => {
    expect(synthError(props(job({ name: 'cronfence-sweeper' })))?.message).toMatch(
      /duplicate job name "cronfence-sweeper".*the sweeper/,
    );
  });

  it('for a job that declares uses both in defineJob and in its entry', () => {
    const ghost = { defaultName: 'ghost', envVar: 'GHOST', partitionKey: { name: 'id', type: 'S' as const } };
    const definition = declareUses(jobDefinition({ name: 'twice' }), {
      tables: [{ table: ghost, writes: ['insertOnce'] }],
    });
    const entry = { definition, entry: FIXTURE_HANDLER, uses: { effects: true } };
    expect(synthError(props(entry))?.message).toBe(
      'cronfence: job "twice" (test/cdk/fixtures/handler.ts) declares uses both in defineJob and in its entry: keep the one in defineJob, beside the code',
    );
  });
});

describe('synth warns about DST', () => {
  it('names the dates a Berlin 02:30 cron does not exist or repeats, without failing', () => {
    const { stack } = synthesize(
      props(job({ name: 'berlin', schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' })),
    );
    const warnings = Annotations.fromStack(stack).findWarning(
      '/CronfenceTest/Default/berlin',
      Match.stringLikeRegexp('DST'),
    );
    expect(warnings).toHaveLength(1);
    const text = String(warnings[0]?.entry.data);
    expect(text).toContain('2026-03-29 02:30 does not exist (Scheduler skips it)');
    expect(text).toContain('2026-10-25 02:30 occurs twice (Scheduler runs it once)');
    expect(text).toContain('2028-03-26 02:30 does not exist');
    expect(text).toContain('dstGap: shift');
  });

  it('names the New York 02:30 gap on 2026-03-08', () => {
    const { stack } = synthesize(
      props(job({ name: 'ny', schedule: 'cron(30 2 * * ? *)', timeZone: 'America/New_York' })),
    );
    const [warning] = Annotations.fromStack(stack).findWarning(
      '/CronfenceTest/Default/ny',
      Match.stringLikeRegexp('DST'),
    );
    expect(String(warning?.entry.data)).toContain('2026-03-08 02:30 does not exist');
  });

  it("is acknowledged as docs/deploy.md shows: Validations.of(job).acknowledge('Annotation::cronfence:dst')", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new CronfenceStack(
      app,
      'CronfenceTest',
      props(job({ name: 'ny', schedule: 'cron(30 2 * * ? *)', timeZone: 'America/New_York' })),
    );
    const ny = stack.cronfence.jobs.find((j) => j.definition.name === 'ny');
    if (!ny) throw new Error('no job ny');
    Validations.of(ny).acknowledge({
      id: 'Annotation::cronfence:dst',
      reason: 'the sweeper runs the gap slot',
    });
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('DST'))).toHaveLength(0);
  });

  it.each([
    ['a UTC cron', 'cron(30 2 * * ? *)', 'UTC'],
    ['a Berlin cron outside the transition hours', 'cron(0 6 * * ? *)', 'Europe/Berlin'],
    ['a rate', 'rate(5 minutes)', 'Europe/Berlin'],
  ])('stays quiet for %s', (_what, schedule, timeZone) => {
    const { stack } = synthesize(props(job({ name: 'quiet', schedule, timeZone })));
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('DST'))).toHaveLength(0);
  });
});

describe('synth warns about schedules the alarms or the sweeper cannot fully follow', () => {
  const warningsOf = (entry: JobEntry) =>
    Annotations.fromStack(synthesize(props(entry)).stack)
      .findWarning('*', Match.anyValue())
      .map((w) => String(w.entry.data));

  it('a weekly job: the no-success alarm looks back 7 days, not two periods', () => {
    const warnings = warningsOf(
      job({ name: 'weekly', schedule: 'cron(0 12 ? * SUN *)', timeZone: 'Europe/Berlin' }),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(/job "weekly": its period is 604800 s; .* looks back 7 days/),
    );
  });

  it('a daily rate in Berlin: the business dates it misses and repeats, and the cron to use', () => {
    const warnings = warningsOf(
      job({
        name: 'rate-berlin',
        schedule: 'rate(1 day)',
        timeZone: 'Europe/Berlin',
        rateAnchorMs: Date.parse('2026-01-01T22:30:00Z'),
      }),
    );
    expect(warnings).toContainEqual(
      expect.stringContaining(
        'job "rate-berlin": rate(1 day) counts 24-hour periods, not local days: in Europe/Berlin business date ' +
          '2026-03-29 never occurs (runs at 2026-03-28T23:30 and 2026-03-30T00:30 local); business date ' +
          '2026-10-25 occurs twice (runs at 2026-10-25T00:30 and 2026-10-25T23:30 local). To run at 23:30 ' +
          "local time on every date use schedule 'cron(30 23 * * ? *)'",
      ),
    );
  });

  it('a one-time at() already in the past: it will never fire', () => {
    const warnings = warningsOf(job({ name: 'once', schedule: 'at(2020-01-01T00:00:00)' }));
    expect(warnings).toContainEqual(
      expect.stringMatching(/job "once": .*at\(\) is in the past .* never fire again/),
    );
  });
});

describe("a rate job's StartDate", () => {
  const rate = job({ name: 'every5', schedule: 'rate(5 minutes)', rateAnchorMs: 60_000 });

  it('is the next instant of its rate grid after synth, so slot ids survive redeploys', () => {
    const synth = synthesize(props(rate), { bundle: false });
    synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'every5',
      StartDate: '2026-01-15T00:01:00.000Z',
    });
    expect(synth.stack.cronfence.jobs[0]?.startMs).toBe(60_000);
  });

  it('refuses the docs/deploy.md example of old: a start more than 5 minutes in the past', () => {
    const error = synthError({
      ...props(rate),
      jobs: [{ ...rate, start: new Date('2026-01-01T00:00:00Z') }],
    });
    expect(error?.message).toBe(
      'cronfence: job "every5": start = 2026-01-01T00:00:00Z: is more than 5 minutes before now ' +
        '(2026-01-15T00:00:00Z): EventBridge Scheduler refuses such a StartDate when it creates or updates ' +
        "the schedule. Remove `start`; to keep the rate grid, set `rateAnchor: '2026-01-01T00:00:00Z'` in " +
        "defineJob: each synth then deploys the grid's next instant (2026-01-15T00:01:00Z) as StartDate and " +
        'slot ids stay the same',
    );
  });

  it('refuses a start off the rate grid', () => {
    const error = synthError({
      ...props(rate),
      jobs: [{ ...rate, start: new Date('2026-01-15T00:03:00Z') }],
    });
    expect(error?.message).toBe(
      'cronfence: job "every5": start = 2026-01-15T00:03:00Z: is not on the job\'s rate grid ' +
        "(rateAnchor 1970-01-01T00:01:00Z + k × 5 min): slot ids would not match Scheduler's invocations; " +
        'use 2026-01-15T00:06:00Z or remove `start`',
    );
  });
});

describe('a sharded job', () => {
  it('may invoke its own function (the fan-out), by its name derived from the stack', () => {
    const { template } = synthesize(props(job({ name: 'fanned', shards: 4 })));
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'lambda:InvokeFunction',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(':function:CronfenceTest-fanned$')])],
            },
          }),
        ]),
      },
    });
  });
});

// Lambda caps a function's environment at 4 KB in all (AWS Lambda Developer Guide, "Lambda quotas").
// The sweeper's definitions are compiled into its bundle; CRONFENCE_JOBS keeps the job names and each
// function's name (a name known only at deploy time goes as its ARN, counted at its longest: 135 bytes).
describe("the sweeper's environment stays under Lambda's 4 KB", () => {
  function sweeperWith(n: number, functionName?: (i: number) => string): Error | undefined {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Env');
    const libraryTable = new LibraryTable(stack, 'Library');
    const scheduleGroup = new ScheduleGroup(stack, 'Group', { scheduleGroupName: 'cronfence' });
    const jobs = Array.from(
      { length: n },
      (_, i) =>
        new ScheduledJob(stack, `Job${i}`, {
          definition: jobDefinition({ name: `job-${String(i).padStart(2, '0')}-${'x'.repeat(47)}` }),
          entry: FIXTURE_HANDLER,
          projectRoot: process.cwd(),
          libraryTable,
          scheduleGroup,
          now: NOW,
          ...(functionName ? { functionName: functionName(i) } : {}),
        }),
    );
    try {
      new Sweeper(stack, 'Sweeper', { projectRoot: process.cwd(), libraryTable, jobs, scheduleGroup });
      return undefined;
    } catch (error) {
      return error as Error;
    }
  }
  const own = (i: number) => Lazy.string({ produce: () => `team-fn-${i}` });

  it('fails synth naming the construct, the variable and the size when ARNs could pass it', () => {
    expect(sweeperWith(19, own)?.message).toBe(
      "cronfence: Env/Sweeper: the function's environment variables can reach 4300 bytes " +
        "(CRONFENCE_JOBS: 3929 bytes), over Lambda's limit of 4096 bytes for all variables of a function; " +
        'split the jobs across stacks (one sweeper each)',
    );
  });

  it('passes as many functions named at deploy time as fit, and 26 jobs with the names derived from the stack', () => {
    expect(sweeperWith(18, own)?.message).toBeUndefined();
    expect(sweeperWith(26)?.message).toBeUndefined();
    expect(sweeperWith(27)?.message).toMatch(
      /^cronfence: Env\/Sweeper: the function's environment variables can reach \d+ bytes/,
    );
  });
});
