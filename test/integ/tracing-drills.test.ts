/**
 * integ (DynamoDB Local, virtual time, the SDK's in-memory span exporter): every failure drill run
 * with the example app's handlers and every worker traced — kills, pauses past the lease, lost
 * responses, throttling at every step, clock skew, the Lambda deadline, the sweeper's catch-ups, shard
 * runs: each run record has exactly one attempt span with its outcome, in its slot's trace.
 */
import { describe, expect, inject, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { DRILLS } from '../../harness/drills/catalog/index.js';
import type { DrillTarget } from '../../harness/drills/dynamo-env.js';
import { formatReport, runDrill } from '../../harness/drills/run-drills.js';
import { attemptMismatches, attemptSpans, tracedStage } from '../helpers/trace-invariant.js';

const target = (): DrillTarget => ({
  endpoint: inject('dynamoEndpoint'),
  description: 'shared DynamoDB Local',
  stop: async () => undefined,
});

describe('traces of the failure drills on DynamoDB Local', () => {
  it.each(DRILLS.map((d) => [d.name, d] as const))(
    'drill %s: one attempt span per run record',
    async (_n, drill) => {
      const t = tracedStage();
      const report = await runDrill(drill, {
        app: exampleApp,
        drills: [drill],
        target: target(),
        stage: t.stage,
      });
      expect(report.pass, formatReport(report).join('\n')).toBe(true);
      const spans = t.exporter.getFinishedSpans();
      expect(report.records.length).toBeGreaterThan(0);
      expect(attemptMismatches(report.records, spans)).toEqual([]);
      const jobs = new Set(report.records.map((r) => String(r.job)));
      const extra = attemptSpans(spans).filter((s) => !jobs.has(String(s.attributes['cronfence.job_key'])));
      expect(extra.map((s) => s.attributes['cronfence.job_key'])).toEqual([]);
    },
  );
});
