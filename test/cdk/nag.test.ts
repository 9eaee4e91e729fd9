/** cdk: the cdk-nag AwsSolutions pack finds nothing unacknowledged, and every acknowledgement says why. */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synthesize } from './support.js';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
}, 120_000);

function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id,
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('reports zero unacknowledged findings', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    const findings = report.violations.map(
      (v) =>
        `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('has a reason of at least one sentence for every acknowledgement', () => {
    const acks = acknowledgements(synth.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
  });

  it('acknowledges only the rules cronfence has decided on', () => {
    const ids = new Set(acknowledgements(synth.stack).map((a) => a.id.replace(/^annotation::/i, '')));
    expect([...ids].sort()).toEqual(['AwsSolutions-SNS2', 'AwsSolutions-SQS3']);
  });
});
