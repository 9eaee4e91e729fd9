/**
 * The CLI's project settings (cli/config.ts) and the packaged sweeper entry's job list
 * (lib/entries/sweeper.ts): what a project that installed cronfence relies on.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyProjectConfig, loadProjectConfig } from '../../../cli/config.js';
import { handler as dailyReport } from '../../../functions/daily-report.js';
import { definitionsFromEnvironment } from '../../../lib/entries/sweeper.js';
import { ConfigurationError } from '../../../lib/errors.js';

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
});

describe('cronfence/sweeper job list', () => {
  it('validates each definition with the job schema, as defineJob does', () => {
    const raw = JSON.stringify([{ name: 'daily-report', functionArn: 'arn:x', definition: dailyReport.job }]);
    const [entry] = definitionsFromEnvironment(raw);
    expect(entry?.definition).toEqual(dailyReport.job);
    expect(entry?.expression).toEqual(dailyReport.expression);
  });

  it('names the entry without a definition', () => {
    expect(() => definitionsFromEnvironment('[{"name":"a","functionArn":"arn:x"}]')).toThrow(
      'invalid configuration: CRONFENCE_JOBS[0].definition = undefined: must be the job definition object',
    );
  });
});
