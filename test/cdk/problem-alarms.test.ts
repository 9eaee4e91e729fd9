/**
 * cdk: every problem a run or the sweeper records is counted by a synthesized alarm of the real app
 * (functions/index.ts, synthesized offline without bundling), and the alarms carry explicit names,
 * the table in their descriptions, and the platform's queue metrics (Lambda, Scheduler).
 * The problem list is derived from lib/core/outcomes.ts, so a new outcome or reason cannot be missed.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { asyncEventAgeThresholdMs } from '../../cdk/constructs/alarms.js';
import { jobs } from '../../functions/index.js';
import { problemMetric } from '../../lib/core/metrics.js';
import { isProblemRun, Outcome, PROBLEM_OUTCOMES, PROBLEM_REASONS, Reason } from '../../lib/core/outcomes.js';
import { logicalId, type Synthesized, synthesize } from './support.js';

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize(undefined, { bundle: false });
}, 120_000);

/** Every (outcome, reason) a run record can carry that lands in the problems index. */
const PROBLEMS = Object.values(Outcome).flatMap((outcome) =>
  [undefined, ...Object.values(Reason)]
    .filter((reason) => isProblemRun(outcome, reason))
    .map((reason) => ({ outcome, reason })),
);

const alarmsOf = (job: string) =>
  Object.values(
    synth.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmName: Match.stringLikeRegexp(`^CronfenceTest-cronfence-${job}-`) },
    }),
  ).map((a) => a.Properties as Record<string, unknown>);

describe('every problem is counted by an alarm', () => {
  it('maps the problem records named in the issue to their metrics', () => {
    const m = (outcome: Outcome, reason?: string) => problemMetric(outcome, reason);
    expect([
      m(Outcome.Skipped, Reason.NotOnSchedule),
      m(Outcome.Skipped, Reason.CatchUpLimit),
      m(Outcome.Abandoned, Reason.NotReleased),
      m(Outcome.Failed, Reason.SweepFailed),
      m(Outcome.Failed, Reason.Deadline),
      m(Outcome.Failed, Reason.Terminated),
      m(Outcome.Stale, Reason.LeaseLost),
      m(Outcome.Succeeded),
      m(Outcome.Skipped, Reason.LeaseHeld),
      m(Outcome.Skipped, Reason.BufferFull),
      m(Outcome.Skipped, Reason.WaitingTooLong),
      m(Outcome.Stale, Reason.Replaced),
      m(Outcome.Buffered),
      m(Outcome.Skipped, Reason.WaitingForPrevious),
    ]).toEqual([
      'SlotNotRun',
      'SlotNotRun',
      'RunAbandoned',
      'SweepFailed',
      'RunFailed',
      'RunFailed',
      'RunStale',
      undefined,
      undefined,
      'SlotNotRun',
      'SlotNotRun',
      'RunStale',
      undefined,
      undefined,
    ]);
    // failed / stale / abandoned with any reason (and none); every other outcome with a problem reason.
    const others = Object.values(Outcome).length - PROBLEM_OUTCOMES.length;
    expect(PROBLEMS.length).toBe(
      PROBLEM_OUTCOMES.length * (Object.values(Reason).length + 1) + others * PROBLEM_REASONS.length,
    );
    expect(PROBLEMS.length).toBe(85);
  });

  it.each(jobs.map((j) => j.definition.name))(
    'job %s: each problem outcome/reason has an alarm at 1 on its metric',
    (job) => {
      const alarms = alarmsOf(job);
      for (const p of PROBLEMS) {
        const metric = problemMetric(p.outcome, p.reason);
        const alarm = alarms.find((a) => a.MetricName === metric);
        expect(alarm, `${p.outcome} / ${p.reason} -> ${metric}`).toMatchObject({
          Namespace: 'cronfence',
          Dimensions: expect.arrayContaining([{ Name: 'job', Value: job }]),
          Statistic: 'Sum',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
      }
    },
  );
});

describe('alarm names, descriptions and effect alarms', () => {
  it('names every alarm <stack>-cronfence-<subject>-<what>, and names the job and the library table in its description', () => {
    const table = logicalId(synth, synth.stack.cronfence.libraryTable.table);
    const failed = alarmsOf('daily-report').find(
      (a) => a.AlarmName === 'CronfenceTest-cronfence-daily-report-RunFailed',
    );
    expect(failed?.AlarmDescription).toEqual({
      'Fn::Join': [
        '',
        [
          'cronfence job "daily-report" (library table ',
          { Ref: table },
          '): a run failed. Query the problems index of the library table (cronfence runs --failed).',
        ],
      ],
    });
    const all = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'));
    for (const a of all)
      expect(String(a.Properties.AlarmName)).toMatch(/^CronfenceTest-cronfence-[a-z0-9-]+-[A-Za-z]+$/);
  });

  it('gives effect alarms only to jobs with effects', () => {
    const effectAlarms = (job: string) =>
      alarmsOf(job)
        .map((a) => a.MetricName)
        .filter((n) => String(n).startsWith('Effect'))
        .sort();
    expect(effectAlarms('daily-report')).toEqual([]);
    expect(effectAlarms('merchant-settlement')).toEqual(['EffectNeedsReview', 'EffectUnsettled']);
  });
});

describe('the liveness alarms: Lambda queue and Scheduler hand-off', () => {
  it('alarms on throttles, async event age and dropped events of the job function', () => {
    const fn = logicalId(synth, synth.stack.cronfence.jobs[0]?.function as never);
    const byName = (what: string) =>
      alarmsOf('daily-report').find((a) => a.AlarmName === `CronfenceTest-cronfence-daily-report-${what}`);
    const lambda = {
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
      Period: 300,
    };
    expect(byName('Throttles')).toMatchObject({
      ...lambda,
      MetricName: 'Throttles',
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(byName('AsyncEventsDropped')).toMatchObject({
      ...lambda,
      MetricName: 'AsyncEventsDropped',
      Threshold: 1,
    });
    // timeoutSeconds 120: two attempts of 120 s + Lambda's 1 + 2 min backoff + 10 min of queueing.
    expect(asyncEventAgeThresholdMs(120)).toBe(1_020_000);
    expect(byName('AsyncEventAge')).toMatchObject({
      ...lambda,
      MetricName: 'AsyncEventAge',
      Statistic: 'Maximum',
      Threshold: 1_020_000,
    });
  });

  it.each([['daily-report'], ['merchant-settlement']])(
    "alarms on Scheduler's target errors, target throttles and dropped invocations of %s's own schedule",
    (job) => {
      const group = synth.stack.cronfence.jobScheduleGroups.get(job);
      const name = synth.stack.resolve(group?.scheduleGroupName);

      const inGroup = Object.values(synth.template.findResources('AWS::Scheduler::Schedule')).filter(
        (r) => JSON.stringify(r.Properties.GroupName) === JSON.stringify(name),
      );
      expect(inGroup.map((r) => r.Properties.Name)).toEqual([job]);
      for (const metric of ['TargetErrorCount', 'TargetErrorThrottledCount', 'InvocationDroppedCount']) {
        synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmName: `CronfenceTest-cronfence-${job}-${metric}`,
          Namespace: 'AWS/Scheduler',
          MetricName: metric,
          Dimensions: [{ Name: 'ScheduleGroup', Value: name }],
          Statistic: 'Sum',
          Period: 300,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
      }
    },
  );

  it('puts exactly one schedule in each job group, so the group metrics are the schedule metrics', () => {
    const schedules = Object.values(synth.template.findResources('AWS::Scheduler::Schedule'));
    const groups = schedules.map((s) => JSON.stringify(s.Properties.GroupName));
    expect(new Set(groups).size).toBe(schedules.length);
  });
});
