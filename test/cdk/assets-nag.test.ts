/** cdk: the bundled Lambda assets of the example app, and the cdk-nag AwsSolutions pack (one synth). */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { acknowledgements, assetDirOf, type Synthesized, sweeperOf, synthesize } from './support.js';

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
}, 120_000);

const sweeper = () => sweeperOf(synth);
const assetDir = (owner: { function: IConstruct }) => assetDirOf(synth, owner);

describe('the bundled assets', () => {
  it('are minified ESM (index.mjs exporting handler) with a source map, built by local esbuild', () => {
    for (const job of [...synth.stack.cronfence.jobs, sweeper()]) {
      const dir = assetDir(job);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      const source = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(source).toMatch(/^import\{createRequire\}from'node:module'/);
      expect(source).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(source).not.toMatch(/module\.exports/);
      expect(source.trimEnd()).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map$/);
      // Minified: newlines survive only inside template literals (a tiny fixture is too small to tell).
      if (source.length > 10_000) expect(source.length / source.split('\n').length).toBeGreaterThan(1000);
    }
  });

  it.each([
    ['daily-report', 'function daily-report'],
    ['merchant-settlement', 'function merchant-settlement'],
    ['cronfence-sweeper', 'function undefined'],
  ])('load as ESM on this Node and export the %s handler', (name, expected) => {
    const owner =
      name === 'cronfence-sweeper'
        ? sweeper()
        : synth.stack.cronfence.jobs.find((j) => j.definition.name === name);
    if (!owner) throw new Error(`no function ${name}`);
    const url = pathToFileURL(join(assetDir(owner), 'index.mjs')).href;
    const script = `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler, m.handler.job?.name);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, CRONFENCE_TABLE: 'cronfence', AWS_REGION: 'eu-central-1' },
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(expected);
  });
});

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
