/**
 * The esbuild options cdk/ deploys a job's function with (`JOB_BUNDLING` of
 * cdk/constructs/job-function.ts, which `NodejsFunction` passes to esbuild), for the benchmarks that
 * bundle a handler the way it ships: ESM, minified, the SDK inside, its target, main fields and banner.
 */
import type { BuildOptions } from 'esbuild';
import { ESBUILD_TARGET } from '../../cdk/constructs/defaults.js';
import { JOB_BUNDLING } from '../../cdk/constructs/job-function.js';

/** Build options for bundling `entry` into `outfile` as cdk/ bundles a job's function. */
export function jobBundleOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: ESBUILD_TARGET,
    minify: JOB_BUNDLING.minify ?? false,
    sourcemap: JOB_BUNDLING.sourceMap ? 'linked' : false,
    sourcesContent: JOB_BUNDLING.sourcesContent ?? true,
    mainFields: [...(JOB_BUNDLING.mainFields ?? [])],
    banner: { js: JOB_BUNDLING.banner ?? '' },
    outfile,
    logLevel: 'error',
  };
}
