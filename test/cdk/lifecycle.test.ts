/** cdk: a job's identity and catch-up floor at synth — the warning synth prints, the grants keyed by the job's id. */
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../cdk/stack.js';
import { FIXTURE_HANDLER, FIXTURE_SWEEPER, jobDefinition } from './fixtures/jobs.js';
import { NOW, synthError, synthesize } from './support.js';

const props = (...jobs: JobEntry[]) => ({ jobs, sweeperEntry: FIXTURE_SWEEPER, now: NOW });
const job = (overrides: Parameters<typeof jobDefinition>[0]): JobEntry => ({
  definition: jobDefinition(overrides),
  entry: FIXTURE_HANDLER,
});
const catchUp = { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3 } as const;

describe('synth and a job’s lifecycle', () => {
  it('warns catch-up-start for catch-up with no catchUp.since, with the text cronfence check prints', () => {
    const { stack } = synthesize(props(job({ name: 'settle', catchUp })), { bundle: false });
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('catch-up-start|catchUp.since'),
    );
    expect(warnings.map((w) => String(w.entry.data))).toEqual([
      `job "settle": catchUp.mode = all with no catchUp.since: at its first deploy, or when it takes over from a renamed job without id, the first sweep catches up missing slots up to 72 h back (catchUp.windowHours), slots another scheduler or the old name may already have paid. If this job replaces another scheduler, set catchUp.since to its deploy instant (e.g. '2026-01-15T00:00:00Z'); if it renames a job, set id to the old name (its done set, run records and effects carry over) [ack: cronfence:catch-up-start]`,
    ]);
  });

  it('does not warn when catchUp.since is declared', () => {
    const { stack } = synthesize(
      props(job({ name: 'settle', catchUp: { ...catchUp, sinceMs: Date.parse('2026-11-04T14:00:00Z') } })),
      { bundle: false },
    );
    expect(
      Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('catchUp.since')),
    ).toHaveLength(0);
  });

  it('grants a renamed job (name settle, id settle-v1) its items under JOB#settle-v1, and names the schedule and function settle', () => {
    const { template } = synthesize(props(job({ name: 'settle', id: 'settle-v1' })), { bundle: false });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'dynamodb:UpdateItem',
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#settle-v1'] } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::Scheduler::Schedule', { Name: 'settle' });
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'CronfenceTest-settle' });
  });

  it('refuses two jobs with one id, naming it', () => {
    expect(synthError(props(job({ name: 'settle', id: 'pay' }), job({ name: 'pay' })))?.message).toMatch(
      /cronfence: duplicate job id "pay": used by .* and .*; a job's id \(default its name\) keys its lease, run records and effects \(JOB#<id>\), so two jobs cannot share one/,
    );
  });
});
