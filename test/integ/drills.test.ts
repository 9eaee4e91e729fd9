/**
 * Every named drill passes on DynamoDB Local with the example app's real handlers (the drills are
 * also the regression tests of the violations they found: writes after a lapsed lease or deadline,
 * unrecorded failed claims, success reported as failure when the release was throttled).
 */
import { describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { DRILLS } from '../../harness/drills/catalog/index.js';
import type { DrillTarget } from '../../harness/drills/dynamo-env.js';
import { formatReport, runDrill } from '../../harness/drills/run-drills.js';

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
