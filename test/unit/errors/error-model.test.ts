/**
 * Error model (unit): every error class cronfence exports has a category, and the category decides
 * the CLI's exit code and whether a Lambda handler rethrows for a retry. The brand check works across
 * two copies of the library (two esbuild bundles of lib/errors.ts loaded in one process).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import * as cdk from '../../../cdk/constructs/index.js';
import { validateJobForDeploy } from '../../../cdk/constructs/scheduled-job.js';
import * as errors from '../../../lib/errors.js';
import { CronfenceError, exitCodeOf, isCronfenceError, shouldRetry } from '../../../lib/errors.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

type Ctor = new (...args: never[]) => CronfenceError;

/** Each error class with arguments for one instance, and the category, exit code and retry it maps to. */
const CLASSES: ReadonlyArray<readonly [string, () => CronfenceError, string, number, boolean]> = [
  ['InvalidEventError', () => new errors.InvalidEventError('scheduledTime', 'x', 'bad'), 'input', 2, false],
  ['UnknownJobError', () => new errors.UnknownJobError('nope', ['daily-report']), 'input', 2, false],
  [
    'InvalidJobDefinitionError',
    () => new errors.InvalidJobDefinitionError('name', '', 'empty'),
    'input',
    2,
    false,
  ],
  [
    'InvalidScheduleError',
    () => new errors.InvalidScheduleError('cron(x)', 'minutes', 'bad'),
    'input',
    2,
    false,
  ],
  ['InvalidArgumentError', () => new errors.InvalidArgumentError('--from', 'x', 'bad'), 'input', 2, false],
  [
    'EffectNotInReviewError',
    () => new errors.EffectNotInReviewError('k1', undefined, 'pay'),
    'input',
    2,
    false,
  ],
  [
    'ConfigurationError',
    () => new errors.ConfigurationError('CRONFENCE_TABLE', undefined, 'not set'),
    'configuration',
    2,
    false,
  ],
  [
    'CronfenceValidationError',
    () => new cdk.CronfenceValidationError('bad props'),
    'configuration',
    2,
    false,
  ],
  ['ResultConflictError', () => new errors.ResultConflictError('conflict'), 'conflict', 1, false],
  ['IdempotencyConflictError', () => new errors.IdempotencyConflictError('k1'), 'conflict', 1, false],
  [
    'EffectChangedError',
    () => new errors.EffectChangedError('k1', 'needs-review:1:1:0', undefined),
    'conflict',
    1,
    false,
  ],
  [
    'EffectInFlightError',
    () => new errors.EffectInFlightError('k1', { runId: 'r1', fence: 1 }, undefined),
    'conflict',
    1,
    false,
  ],
  ['LeaseBusyError', () => new errors.LeaseBusyError('held', undefined), 'conflict', 1, false],
  [
    'LeaseChangedError',
    () => new errors.LeaseChangedError('daily-report', '1:-', undefined),
    'conflict',
    1,
    false,
  ],
  [
    'JobPausedError',
    () => new errors.JobPausedError('daily-report', { by: 'ops', atMs: 0, note: 'n' }, undefined),
    'conflict',
    1,
    false,
  ],
  ['JobNotPausedError', () => new errors.JobNotPausedError('daily-report', undefined), 'conflict', 1, false],
  ['LeaseLostError', () => new errors.LeaseLostError('renew refused'), 'superseded', 1, false],
  ['StaleFenceError', () => new errors.StaleFenceError('reports k', 1, 2), 'superseded', 1, false],
  ['RunFinishedError', () => new errors.RunFinishedError('effect'), 'superseded', 1, false],
  [
    'StoreError',
    () => new errors.StoreError('PutItem (run record)', new Error('boom')),
    'transient',
    1,
    true,
  ],
  [
    'EndpointUnreachableError',
    () => new errors.EndpointUnreachableError('DYNAMODB_ENDPOINT', 'http://127.0.0.1:9', 'start it'),
    'transient',
    1,
    true,
  ],
  ['LeaseHeldError', () => new errors.LeaseHeldError('2026-03-28T01:00', 'r1', 0), 'transient', 1, true],
  ['DeadlineError', () => new errors.DeadlineError(500, 'claim'), 'transient', 1, true],
  ['TerminatedError', () => new errors.TerminatedError('SIGTERM', 30_000), 'transient', 1, true],
  [
    'EffectOutcomeUnknownError',
    () => new errors.EffectOutcomeUnknownError('k1', 'timeout'),
    'transient',
    1,
    true,
  ],
];

/** Every exported class deriving from CronfenceError, by name (lib/errors.ts and cronfence/cdk). */
function exportedClasses(): string[] {
  return Object.entries({ ...errors, ...cdk })
    .filter(([, v]) => typeof v === 'function' && (v as Ctor).prototype instanceof CronfenceError)
    .map(([k]) => k)
    .sort();
}

describe('error categories', () => {
  it('lists every error class cronfence exports (lib/errors.ts and cronfence/cdk)', () => {
    expect(CLASSES.map(([name]) => name).sort()).toEqual(exportedClasses());
  });

  it.each(CLASSES)(
    '%s is %s: exit code %i, retried by the handler: %s',
    (name, make, category, exit, retry) => {
      const err = make();
      expect([err.name, err.category, exitCodeOf(err), shouldRetry(err), isCronfenceError(err)]).toEqual([
        name,
        category,
        exit,
        retry,
        true,
      ]);
    },
  );

  it("maps an error that is not cronfence's to exit code 1 and a retry (a job body's own failure)", () => {
    const err = new Error('downstream unavailable');
    expect([isCronfenceError(err), exitCodeOf(err), shouldRetry(err)]).toEqual([false, 1, true]);
  });

  it('names the construct path on a construct error', () => {
    const err = new cdk.CronfenceValidationError('bad', { node: { path: 'MyJobs/Jobs/nightly' } } as never);
    expect([err.message, err.constructPath]).toEqual(['cronfence: bad', 'MyJobs/Jobs/nightly']);
  });
});

/** The TypeScript files under `dir` (repository-relative), recursively. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => join(d.parentPath, d.name));
}

describe('where errors come from', () => {
  it('throws no plain Error from cdk/ (every construct error is a CronfenceValidationError)', () => {
    const plain = sources('cdk').filter((f) => /new Error\(/.test(readFileSync(f, 'utf8')));
    expect(plain).toEqual([]);
  });

  it('casts no error payload through unknown in lib/ or cdk/', () => {
    const casts = [...sources('lib'), ...sources('cdk')].filter((f) =>
      /as unknown as Record<string, unknown>/.test(readFileSync(f, 'utf8')),
    );
    expect(casts).toEqual([]);
  });

  it("keeps the definition error's class at synth, its message naming the job", () => {
    let caught: unknown;
    try {
      validateJobForDeploy(
        {
          name: 'nightly',
          schedule: 'cron(30 2 * * ? *)',
          timeZone: 'Mars/Olympus',
          lease: { durationSeconds: 30 },
        } as never,
        new Date('2026-03-01T00:00:00Z'),
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(errors.InvalidJobDefinitionError);
    expect([(caught as errors.InvalidJobDefinitionError).field, (caught as Error).message]).toEqual([
      'timeZone',
      expect.stringMatching(
        /^cronfence: job "nightly": invalid job definition: "timeZone" = "Mars\/Olympus"/,
      ),
    ]);
  });
});

describe('the brand check across two copies of the library', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cronfence-brand-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A separate bundle of lib/errors.ts: its own classes, as a second installed copy would have. */
  async function copy(name: string): Promise<typeof errors> {
    const outfile = join(dir, `${name}.mjs`);
    await build({
      entryPoints: [join(ROOT, 'lib/errors.ts')],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      logLevel: 'silent',
    });
    return (await import(pathToFileURL(outfile).href)) as typeof errors;
  }

  it('recognises an error of the other copy, which instanceof does not', async () => {
    const [a, b] = await Promise.all([copy('a'), copy('b')]);
    const fromB = new b.StaleFenceError('reports k', 1, 2);
    expect([
      fromB instanceof a.CronfenceError,
      a.isCronfenceError(fromB),
      a.CronfenceError.isCronfenceError(fromB),
      isCronfenceError(fromB),
      a.exitCodeOf(fromB),
      a.shouldRetry(fromB),
      a.isCronfenceError(new Error('plain')),
      a.isCronfenceError({ name: 'StaleFenceError', code: 'STALE_FENCE' }),
    ]).toEqual([false, true, true, true, 1, false, false, false]);
  }, 60_000);
});
