/**
 * Unit: what a job's Lambda bundle holds, bundled as cdk/ deploys a job's function (`JOB_BUNDLING`,
 * esbuild metafile; no network). The optional parts stay out of a job that does not name them: the
 * effect runner without `defineJob({ effects })`, Powertools without `observe`, OpenTelemetry without
 * `cronfence/tracing`; and a job that names the effect runner bundles it.
 */
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { jobBundleOptions } from '../../../bench/support/job-bundle.js';

/** The input modules with bytes in the bundle of `entry` (not written to disk). */
async function bundledModules(entry: string): Promise<string[]> {
  const r = await build({
    ...jobBundleOptions(entry, 'out.mjs'),
    write: false,
    sourcemap: false,
    metafile: true,
  });
  const out = Object.values((r.metafile as Metafile).outputs).find((o) => o.entryPoint !== undefined);
  return Object.entries(out?.inputs ?? {})
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([path]) => path);
}

/** The modules only the effect runner reaches. */
const EFFECT_MODULES = [
  'lib/effects/runner.ts',
  'lib/effects/decide.ts',
  'lib/effects/keys.ts',
  'lib/store/effect-run-store.ts',
  'lib/store/protocol/effect-operations.ts',
  'lib/runtime/effect-runner.ts',
  'lib/runtime/restore-guard.ts',
];

describe('a job bundle holds only the parts its definition names', () => {
  it('leaves out the effect runner, Powertools and OpenTelemetry from a job without effects, observe or tracing', async () => {
    const modules = await bundledModules('bench/fixtures/job-handler.ts');
    expect(modules).toContain('lib/runtime/run-session.ts');
    expect(modules.filter((m) => EFFECT_MODULES.includes(m))).toEqual([]);
    expect(modules.filter((m) => /@aws-lambda-powertools|@opentelemetry/.test(m))).toEqual([]);
  }, 60_000);

  it('bundles the effect runner into a job that names it (effects: effectRunner)', async () => {
    const modules = await bundledModules('functions/merchant-settlement.ts');
    expect(EFFECT_MODULES.filter((m) => !modules.includes(m))).toEqual([]);
  }, 60_000);
});
