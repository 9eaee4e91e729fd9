/**
 * cdk: an app with one ECS job passes cdk-nag's AwsSolutions pack (every acknowledgement carries its
 * reason) and cfn-lint (the linter CI runs, with the repository's .cfnlintrc.yaml) on its template.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecsEntries, ecsProps } from './ecs-support.js';
import { acknowledgements, type Synthesized, synthesize } from './support.js';

let synth: Synthesized;
let dir: string;

beforeAll(() => {
  synth = synthesize(ecsProps(ecsEntries(['merchant-settlement'])));
  dir = mkdtempSync(join(tmpdir(), 'cronfence-ecs-lint-'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an app with one ECS job', () => {
  it('has zero unacknowledged cdk-nag AwsSolutions findings', () => {
    const report = new AwsSolutionsChecks().validateScope(synth.stack);
    const findings = report.violations.map(
      (v) =>
        `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description}`,
    );
    expect(findings).toEqual([]);
  });

  it('acknowledges only rules cronfence has decided on, each with its reason', () => {
    const acks = acknowledgements(synth.stack);
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
    // The CloudFormation-Validate ones are aws-cdk-lib's own: its Stack acknowledges W3010 (literal AZs)
    // once the Vpc asks for the stack's availability zones, its FlowLog F3002/F3003 (camelCase
    // DestinationOptions, which the service accepts).
    expect([...new Set(acks.map((a) => a.id.replace(/^annotation::/i, '')))].sort()).toEqual([
      'AwsSolutions-ECS2',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-SNS2',
      'AwsSolutions-SQS3',
      'CloudFormation-Validate::F3002',
      'CloudFormation-Validate::F3003',
      'CloudFormation-Validate::W3010',
    ]);
  });

  it('passes cfn-lint with the repository configuration', () => {
    const file = join(dir, 'CronfenceTest.template.json');
    writeFileSync(file, JSON.stringify(synth.template.toJSON()));
    const out = execFileSync('cfn-lint', ['--config-file', '.cfnlintrc.yaml', '--', file], {
      encoding: 'utf8',
    });
    expect(out).toBe('');
  }, 60_000);
});
