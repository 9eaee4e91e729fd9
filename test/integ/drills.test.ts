/**
 * Every named drill passes on DynamoDB Local with the example app's real handlers (the drills are
 * also the regression tests of the violations they found: writes after a lapsed lease or deadline,
 * unrecorded failed claims, success reported as failure when the release was throttled).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { DRILLS } from '../../harness/drills/catalog/index.js';
import type { DrillTarget } from '../../harness/drills/dynamo-env.js';
import { formatReport, runDrill } from '../../harness/drills/run-drills.js';
import { offlineEnv, ROOT } from './repo-copy.js';

const target = (): DrillTarget => ({
  endpoint: inject('dynamoEndpoint'),
  description: 'shared DynamoDB Local',
  stop: async () => undefined,
});

describe('failure drills on DynamoDB Local', () => {
  it.each(DRILLS.map((d) => [d.name, d] as const))('passes drill %s', async (_name, drill) => {
    const report = await runDrill(drill, { app: exampleApp, drills: [drill], target: target() });
    expect(report.pass, formatReport(report).join('\n')).toBe(true);
    expect(report.evidence.length).toBeGreaterThan(0);
  });
});

describe('npm run drill as a process', () => {
  it('exits as soon as the last drill is done: no timer of a killed run keeps it alive, no timer warnings', async () => {
    // The killed run of holder-killed-mid-run never settles; a timer tied to it (such as middy's early
    // timeout, for the job's whole 300 s timeout) would hold the process long past this limit.
    const r = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        resolve(ROOT, 'node_modules/.bin/tsx'),
        [
          resolve(ROOT, 'bin/dev.ts'),
          'drill',
          'holder-killed-mid-run',
          '--endpoint',
          inject('dynamoEndpoint'),
        ],
        { cwd: ROOT, env: offlineEnv(), timeout: 150_000 },
        (err, stdout, stderr) =>
          done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('All 1 drills passed.');
  }, 180_000);
});
