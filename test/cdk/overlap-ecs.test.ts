/**
 * cdk: an ECS job (`runtime: 'ecs'`) shows its overlap policy like a Lambda job does (overlap.test.ts):
 * the construct's `overlap` token and its EventBridge Scheduler schedule's `Description` (the
 * `AWS::Scheduler::Schedule` property the Scheduler API reference gives as `Description`, at most 512
 * characters), for every policy, on the synthesized app (the image staged offline, not built); and
 * the sweeper, whose bundle compiles the jobs' definitions in, decodes each policy as the job has it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { overlapLabel, overlapOfJob } from '../../lib/core/overlap-check.js';
import { compiledDefinitions } from '../../lib/entries/sweeper.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { defineRegistry } from '../../lib/runtime/registry.js';
import { encodeSweeperDefinitions } from '../../lib/runtime/sweeper-handler.js';
import { NOW, type Synthesized, synthesize } from './support.js';

const job = (name: string, overlap: Parameters<typeof defineJob>[0]['overlap']) =>
  defineJob({
    name,
    runtime: 'ecs',
    schedule: 'rate(5 minutes)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 240,
    ...(overlap !== undefined && { overlap }),
    run: async () => undefined,
  });

const CASES: [string, Parameters<typeof defineJob>[0]['overlap'], string][] = [
  ['ecs-skip', undefined, 'skip'],
  ['ecs-buffer-one', 'buffer-one', 'buffer-one'],
  ['ecs-buffer-all', { policy: 'buffer-all', maxBuffered: 4 }, 'buffer-all(4)'],
  ['ecs-replace', { policy: 'replace', replaceAfterSeconds: 120 }, 'replace(>120s)'],
  ['ecs-after-previous', 'after-previous', 'after-previous(problem >600s)'],
];

/**
 * Two apps: the sweeper's `CRONFENCE_JOBS` names each ECS job's cluster, task definition and network
 * (about 860 bytes a job), so five ECS jobs pass Lambda's 4 KB environment limit in one stack.
 */
const GROUPS = [CASES.slice(0, 3), CASES.slice(3)];
const synths: Synthesized[] = [];
beforeAll(() => {
  for (const group of GROUPS) {
    const jobs = defineRegistry(
      group.map(([name, overlap]) => ({ handler: job(name, overlap), entry: 'functions/daily-report.ts' })),
    );
    synths.push(synthesize({ jobs, applicationTables: [], now: NOW }, { bundle: false }));
  }
}, 240_000);

const synthOf = (name: string): Synthesized => {
  const s = synths[GROUPS.findIndex((g) => g.some(([n]) => n === name))];
  if (!s) throw new Error(`no app has job ${name}`);
  return s;
};

describe('overlap policies of ECS jobs in the CDK construct', () => {
  it.each(CASES)(
    "shows job %s's policy on the construct and in its schedule's description",
    (name, _o, label) => {
      const synth = synthOf(name);
      const ecs = synth.stack.cronfence.ecsJobs.find((j) => j.definition.name === name);
      expect(ecs?.overlap).toBe(label);
      synth.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        Name: name,
        Description: `cronfence job ${name} (ECS): rate(5 minutes) UTC, overlap ${label}`,
      });
    },
  );

  it("compiles each ECS job's policy into the sweeper, which decodes it as the job has it", () => {
    for (const synth of synths) {
      const definitions = synth.stack.cronfence.ecsJobs.map((j) => j.definition);
      const decoded = compiledDefinitions(JSON.parse(encodeSweeperDefinitions(definitions)) as string);
      expect(
        decoded.map((d) => overlapLabel(overlapOfJob(d.definition, d.expression, NOW.getTime()))),
      ).toEqual(synth.stack.cronfence.ecsJobs.map((j) => j.overlap));
    }
    expect(synths.flatMap((s) => s.stack.cronfence.ecsJobs.map((j) => j.overlap))).toEqual(
      CASES.map(([, , label]) => label),
    );
  });
});
