/**
 * cdk: the construct shows each job's overlap policy (its function's description and the construct's
 * `overlap`), the sweeper's compiled definitions carry it (ECS jobs: overlap-ecs.test.ts), and the problems the policies record are counted by the job's alarms: `skipped /
 * buffer-full` and `skipped / waiting-too-long` by SlotNotRun, `stale / replaced` by RunStale (no
 * bundling).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { problemMetric } from '../../lib/core/metrics.js';
import { Outcome, Reason } from '../../lib/core/outcomes.js';
import { overlapLabel, overlapOfJob } from '../../lib/core/overlap-check.js';
import { compiledDefinitions } from '../../lib/entries/sweeper.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { defineRegistry } from '../../lib/runtime/registry.js';
import { encodeSweeperDefinitions } from '../../lib/runtime/sweeper-handler.js';
import { NOW, type Synthesized, synthesize } from './support.js';

const job = (name: string, overlap: Parameters<typeof defineJob>[0]['overlap']) =>
  defineJob({
    name,
    schedule: 'rate(5 minutes)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 240,
    ...(overlap !== undefined && { overlap }),
    run: async () => undefined,
  });

let synth: Synthesized;
beforeAll(() => {
  const jobs = defineRegistry([
    { handler: dailyReport, entry: 'functions/daily-report.ts' },
    {
      handler: job('settle-buffered', { policy: 'buffer-all', maxBuffered: 4 }),
      entry: 'functions/daily-report.ts',
    },
    {
      handler: job('ledger-replace', { policy: 'replace', replaceAfterSeconds: 120 }),
      entry: 'functions/daily-report.ts',
    },
    { handler: job('ledger-ordered', 'after-previous'), entry: 'functions/daily-report.ts' },
    { handler: job('settle-one', 'buffer-one'), entry: 'functions/daily-report.ts' },
  ]);
  synth = synthesize({ jobs, applicationTables: [], now: NOW }, { bundle: false });
}, 120_000);

const alarm = (job: string, metric: string) =>
  Object.values(
    synth.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmName: `CronfenceTest-cronfence-${job}-${metric}` },
    }),
  ).map((a) => a.Properties as Record<string, unknown>);

describe('overlap policies in the CDK construct', () => {
  it.each([
    ['daily-report', 'cron(30 2 * * ? *) Europe/Berlin', 'skip'],
    ['settle-buffered', 'rate(5 minutes) UTC', 'buffer-all(4)'],
    ['ledger-replace', 'rate(5 minutes) UTC', 'replace(>120s)'],
    ['ledger-ordered', 'rate(5 minutes) UTC', 'after-previous(problem >600s)'],
    ['settle-one', 'rate(5 minutes) UTC', 'buffer-one'],
  ])("shows job %s's policy in its function's description", (name, schedule, label) => {
    expect(synth.stack.cronfence.jobs.find((j) => j.definition.name === name)?.overlap).toBe(label);
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: `CronfenceTest-${name}`,
      Description: `cronfence job ${name}: ${schedule}, overlap ${label}`,
    });
  });

  it('counts buffer-full and waiting-too-long by SlotNotRun and replaced by RunStale; buffered and waiting are no problem', () => {
    expect([
      problemMetric(Outcome.Skipped, Reason.BufferFull),
      problemMetric(Outcome.Skipped, Reason.WaitingTooLong),
      problemMetric(Outcome.Stale, Reason.Replaced),
      problemMetric(Outcome.Buffered, undefined),
      problemMetric(Outcome.Skipped, Reason.WaitingForPrevious),
    ]).toEqual(['SlotNotRun', 'SlotNotRun', 'RunStale', undefined, undefined]);
  });

  it.each([
    ['settle-buffered', 'SlotNotRun'],
    ['ledger-ordered', 'SlotNotRun'],
    ['ledger-replace', 'RunStale'],
  ])('gives job %s an alarm at 1 on %s naming what it counts', (name, metric) => {
    const [a] = alarm(name, metric);
    expect(a).toMatchObject({
      MetricName: metric,
      Namespace: 'cronfence',
      Dimensions: expect.arrayContaining([{ Name: 'job', Value: name }]),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const text = JSON.stringify(a?.AlarmDescription);
    expect(text).toContain(
      metric === 'SlotNotRun'
        ? 'a slot was given up or is held back (skipped not-on-schedule, catch-up-limit, buffer-full, waiting-too-long)'
        : 'a run went stale (lost its lease, met a higher fence, or was displaced by a newer occurrence: overlap replace)',
    );
  });

  it("compiles each job's policy into the sweeper, which decodes it as the job has it", () => {
    const jobs = synth.stack.cronfence.jobs;
    const decoded = compiledDefinitions(
      JSON.parse(encodeSweeperDefinitions(jobs.map((j) => j.definition))) as string,
    );
    expect(decoded.map((d) => overlapLabel(overlapOfJob(d.definition, d.expression, NOW.getTime())))).toEqual(
      ['skip', 'buffer-all(4)', 'replace(>120s)', 'after-previous(problem >600s)', 'buffer-one'],
    );
    expect(jobs.map((j) => j.overlap)).toEqual(
      decoded.map((d) => overlapLabel(overlapOfJob(d.definition, d.expression, NOW.getTime()))),
    );
  });

  it('names the function with its policy only once per job', () => {
    synth.template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      { Description: Match.stringLikeRegexp('overlap buffer-all\\(4\\)') },
      1,
    );
  });
});
