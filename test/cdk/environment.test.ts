/**
 * cdk: the app is environment-agnostic: a plain `npx cdk synth` — where the CDK CLI
 * sets CDK_DEFAULT_REGION (us-east-1 when nothing is configured) — must not bake a region or an
 * account into any ARN; a trust policy with a literal region denies Scheduler everywhere else.
 * Synthesizes cdk/app.ts itself (bundling skipped through the CLI's context variable).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { pinnedEnvironment } from '../../cdk/environment.js';
import { exampleProps, synthesize } from './support.js';

const run = promisify(execFile);

/** Synthesize cdk/app.ts as the CDK CLI runs it, with these extra variables. */
async function synthApp(vars: Record<string, string>): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), 'cronfence-env-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(CDK_DEFAULT_|CRONFENCE_(ACCOUNT|REGION))/.test(k)) env[k] = v;
  }
  Object.assign(env, vars, {
    CDK_OUTDIR: outdir,
    CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }),
  });
  try {
    await run(process.execPath, ['--import', 'tsx', 'cdk/app.ts'], { env, timeout: 120_000 });
    return JSON.stringify(JSON.parse(readFileSync(join(outdir, 'Cronfence.template.json'), 'utf8')));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every string in the template that is (part of) an ARN and names a region or an account literally. */
function literalArnParts(template: string): string[] {
  const strings: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(JSON.parse(template));
  return strings.filter(
    (s) =>
      /arn:aws[\w-]*:[\w-]+:([a-z]{2}(-gov)?-[a-z]+-\d)?:?\d{12}?/.test(s) ||
      /:[a-z]{2}-[a-z]+-\d:|:\d{12}:/.test(s),
  );
}

describe('the synthesized app', () => {
  it('is the same template with CDK_DEFAULT_REGION/ACCOUNT set (as the CLI does) and unset, with no literal region or account in any ARN', async () => {
    const [unset, cliDefaults] = await Promise.all([
      synthApp({}),
      synthApp({ CDK_DEFAULT_REGION: 'us-east-1', CDK_DEFAULT_ACCOUNT: '123456789012' }),
    ]);
    expect(cliDefaults).toBe(unset);
    expect(literalArnParts(unset)).toEqual([]);
    expect(unset).not.toContain('us-east-1');
    expect(unset).not.toContain('123456789012');
    expect(unset).toContain('"Ref":"AWS::Region"');
  }, 180_000);

  it('pins account and region only when asked: a pinned stack carries the literal account', () => {
    const env = pinnedEnvironment({ CRONFENCE_ACCOUNT: '123456789012', CRONFENCE_REGION: 'eu-west-3' });
    const { template } = synthesize({ ...exampleProps(), ...(env ? { env } : {}) }, { bundle: false });
    const pinned = JSON.stringify(template.toJSON());
    expect(pinned).toContain('"aws:SourceAccount":"123456789012"');
    expect(pinned).not.toContain('"Ref":"AWS::AccountId"');
  });
});

describe('pinnedEnvironment', () => {
  it.each([
    [{}, undefined],
    [{ CDK_DEFAULT_REGION: 'us-east-1', CDK_DEFAULT_ACCOUNT: '123456789012' }, undefined],
    [
      { CRONFENCE_ACCOUNT: '123456789012', CRONFENCE_REGION: 'eu-west-3' },
      { account: '123456789012', region: 'eu-west-3' },
    ],
  ])('%j -> %j', (vars, expected) => {
    expect(pinnedEnvironment(vars)).toEqual(expected);
  });

  it.each([
    [{ CRONFENCE_ACCOUNT: '123456789012' }, 'cronfence: CRONFENCE_REGION is not set'],
    [{ CRONFENCE_REGION: 'eu-west-3' }, 'cronfence: CRONFENCE_ACCOUNT is not set'],
    [
      { CRONFENCE_ACCOUNT: '1234', CRONFENCE_REGION: 'eu-west-3' },
      'cronfence: CRONFENCE_ACCOUNT = "1234": must be a 12-digit AWS account id',
    ],
  ])('rejects %j', (vars, message) => {
    expect(() => pinnedEnvironment(vars)).toThrow(message);
  });
});
