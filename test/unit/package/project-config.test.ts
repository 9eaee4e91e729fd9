/**
 * The CLI's project settings (operate/config.ts) and the packaged sweeper entry's job list
 * (lib/entries/sweeper.ts): what a project that installed cronfence relies on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../../functions/daily-report.js';
import { compiledDefinitions } from '../../../lib/entries/sweeper.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { encodeSweeperDefinitions } from '../../../lib/runtime/sweeper-handler.js';
import {
  applyProjectConfig,
  loadProjectConfig,
  type ProjectConfig,
  settingName,
} from '../../../operate/config.js';

describe('project config', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cronfence-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the cronfence key of package.json, resolving the jobs module against the project', () => {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'x',
        cronfence: { jobs: './dist/jobs.js', table: 'my-table', region: 'eu-central-1' },
      }),
    );
    expect(loadProjectConfig(dir)).toEqual({
      source: 'package.json#cronfence',
      jobs: join(dir, 'dist/jobs.js'),
      table: 'my-table',
      region: 'eu-central-1',
    });
  });

  it('prefers cronfence.config.json, and is undefined without either', () => {
    expect(loadProjectConfig(dir)).toBeUndefined();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x' }));
    expect(loadProjectConfig(dir)).toBeUndefined();
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ table: 'other' }));
    expect(loadProjectConfig(dir)).toEqual({ source: 'cronfence.config.json', table: 'other' });
  });

  it('names the file, the field and the value for a bad setting', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ region: 'Frankfurt' }));
    expect(() => loadProjectConfig(dir)).toThrow(
      'invalid configuration: cronfence.config.json.region = "Frankfurt": must be an AWS region such as eu-central-1',
    );
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ tabel: 'x' }));
    expect(() => loadProjectConfig(dir)).toThrow(ConfigurationError);
  });

  it('fills CRONFENCE_TABLE and AWS_REGION only where the environment does not set them', () => {
    const env: NodeJS.ProcessEnv = { AWS_REGION: 'us-west-2' };
    applyProjectConfig({ source: 'x', table: 't1', region: 'eu-central-1' }, env);
    expect(env).toEqual({ AWS_REGION: 'us-west-2', CRONFENCE_TABLE: 't1' });
  });

  it('reads "stack" and names the config field that filled CRONFENCE_STACK', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ cronfence: { stack: 'MyJobs' } }));
    const config = loadProjectConfig(dir);
    expect(config).toEqual({ source: 'package.json#cronfence', stack: 'MyJobs' });
    const env: NodeJS.ProcessEnv = {};
    applyProjectConfig(config as ProjectConfig, env);
    expect(env).toEqual({ CRONFENCE_STACK: 'MyJobs' });
    expect(settingName(env, 'CRONFENCE_STACK')).toBe('package.json#cronfence.stack');
    const own: NodeJS.ProcessEnv = { CRONFENCE_STACK: 'Prod' };
    applyProjectConfig(config as ProjectConfig, own);
    expect(own).toEqual({ CRONFENCE_STACK: 'Prod' });
    expect(settingName(own, 'CRONFENCE_STACK')).toBe('CRONFENCE_STACK');
  });

  it('refuses a stack name CloudFormation would not take, naming the field', () => {
    writeFileSync(join(dir, 'cronfence.config.json'), JSON.stringify({ stack: 'my_jobs' }));
    expect(() => loadProjectConfig(dir)).toThrow(
      'invalid configuration: cronfence.config.json.stack = "my_jobs": must be a CloudFormation stack name (a letter, then letters, digits and hyphens; at most 128)',
    );
  });
});

describe('cronfence/sweeper compiled definitions', () => {
  const encode = (x: unknown): string => JSON.parse(encodeSweeperDefinitions(x as unknown[])) as string;

  it('validates each definition with the job schema, as defineJob does', () => {
    const [entry] = compiledDefinitions(encode([dailyReport.job]));
    expect(entry?.definition).toEqual(dailyReport.job);
    expect(entry?.expression).toEqual(dailyReport.expression);
  });

  it('names the constant when the bundle was not built by the Sweeper construct', () => {
    expect(() => compiledDefinitions(undefined)).toThrow(
      'invalid configuration: __CRONFENCE_SWEEPER_DEFINITIONS__ = undefined: is not defined: bundle this entry with the CDK Sweeper construct (it compiles the job definitions in)',
    );
  });

  it('names the entry that is not a definition', () => {
    expect(() => compiledDefinitions(encode([dailyReport.job, 'x']))).toThrow(
      'invalid configuration: __CRONFENCE_SWEEPER_DEFINITIONS__[1] = "x": must be a job definition object',
    );
  });
});
