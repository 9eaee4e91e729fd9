/**
 * cdk: error names survive the Lambda bundle. Bundles the daily-report handler together with every
 * error class, with the CDK's own esbuild options (JOB_BUNDLING: minified ESM), then throws each class
 * in a fresh Node process and reads `error.name` back (minifiers rename classes; the names are literal).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_BUNDLING } from '../../cdk/constructs/job-function.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'cronfence-error-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every error class lib/errors.ts exports, with constructor arguments that make a valid instance. */
const ERRORS: Record<string, string> = {
  CronfenceError: `'STORE', 'transient', 'm'`,
  InvalidEventError: `'scheduledTime', 'x', 'bad'`,
  UnknownJobError: `'nope', ['daily-report']`,
  InvalidJobDefinitionError: `'name', '', 'empty'`,
  InvalidScheduleError: `'cron(x)', 'minutes', 'bad'`,
  LeaseHeldError: `'2026-03-28T01:00', 'r1', 0`,
  LeaseLostError: `'renew refused'`,
  StaleFenceError: `'reports k', 1, 2`,
  ResultConflictError: `'conflict'`,
  IdempotencyConflictError: `'k1'`,
  EffectOutcomeUnknownError: `'k1', 'timeout'`,
  DeadlineError: `500, 'claim'`,
  RunFinishedError: `'effect'`,
  TerminatedError: `'SIGTERM', 30000`,
  StoreError: `'PutItem (run record)', new Error('boom')`,
  InvalidArgumentError: `'--from', 'x', 'bad'`,
  EffectNotInReviewError: `'k1', undefined, 'pay'`,
  EffectChangedError: `'k1', 'needs-review:1:1:0', undefined`,
  EffectInFlightError: `'k1', { runId: 'r1', fence: 1 }, undefined`,
  LeaseBusyError: `'held', undefined`,
  LeaseChangedError: `'daily-report', '1:-', undefined`,
  ConfigurationError: `'CRONFENCE_TABLE', undefined, 'not set'`,
  EndpointUnreachableError: `'DYNAMODB_ENDPOINT', 'http://127.0.0.1:9', 'start it'`,
  JobPausedError: `'daily-report', { by: 'ops', atMs: 0, note: 'n' }, undefined`,
  JobNotPausedError: `'daily-report', undefined`,
};

describe('error names in the minified Lambda bundle', () => {
  it('keeps the class name of every error class, thrown from the bundled handler module', async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `export { handler } from ${JSON.stringify(join(ROOT, 'functions/daily-report.ts'))};\n` +
        `export * as errors from ${JSON.stringify(join(ROOT, 'lib/errors.ts'))};\n`,
    );
    const outfile = join(dir, 'index.mjs');
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: JOB_BUNDLING.target,
      minify: JOB_BUNDLING.minify,
      mainFields: [...(JOB_BUNDLING.mainFields ?? [])],
      banner: { js: JOB_BUNDLING.banner ?? '' },
      tsconfig: join(ROOT, 'tsconfig.json'),
      logLevel: 'silent',
    });
    const throws = Object.entries(ERRORS)
      .map(
        ([cls, args]) =>
          `try { throw new m.errors.${cls}(${args}); } catch (e) { out.push([${JSON.stringify(cls)}, e.name, e instanceof Error, typeof m.handler]); }`,
      )
      .join('\n');
    const script = `const m = await import(${JSON.stringify(pathToFileURL(outfile).href)}); const out = []; ${throws}; console.log(JSON.stringify(out));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, CRONFENCE_TABLE: 'cronfence', AWS_REGION: 'eu-central-1' },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(Object.keys(ERRORS).map((cls) => [cls, cls, true, 'function']));
  }, 120_000);

  it('covers every error class lib/errors.ts exports', async () => {
    const errors = await import('../../lib/errors.js');
    const classes = Object.entries(errors)
      .filter(([, v]) => typeof v === 'function' && v.prototype instanceof Error)
      .map(([k]) => k)
      .sort();
    expect(classes).toEqual(Object.keys(ERRORS).sort());
  });

  it('passes a cause through every error class (ErrorOptions)', async () => {
    const errors = (await import('../../lib/errors.js')) as unknown as Record<
      string,
      new (
        ...a: unknown[]
      ) => Error
    >;
    const cause = new Error('root');
    for (const [cls, args] of Object.entries(ERRORS)) {
      const argv = new Function(`return [${args}]`)() as unknown[];
      // The options object is the constructor's last parameter: after the required ones.
      const Ctor = errors[cls] as new (...a: unknown[]) => Error;
      const arity = Ctor.length;
      const padded = [...argv, ...Array(Math.max(arity - argv.length - 1, 0)).fill(undefined)];
      // StoreError's cause is the SDK error it wraps (its second argument).
      const expected = cls === 'StoreError' ? argv[1] : cause;
      expect([cls, new Ctor(...padded, { cause }).cause]).toEqual([cls, expected]);
    }
  });
});
