/**
 * Figure 4 — cold start: esbuild bundles (ESM, minified, AWS SDK included, node22 target) of a
 * cronfence job handler, a bare middy + DynamoDB Document client handler, and a handler made
 * idempotent with Powertools for AWS Lambda (idempotency utility, a devDependency used only here).
 * Reports bundle size (raw and gzip) and import time: each import in a fresh Node process (the
 * Lambda runtime's major), the three bundles interleaved, REPS repetitions, median.
 * Run: npx tsx bench/cold-start.ts [reps=15]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { emit, median, OUT_DIR, round } from './support/report.js';

const REPS = Number(process.argv[2] ?? 15);
const FIXTURES = {
  job: 'bench/fixtures/job-handler.ts',
  bare: 'bench/fixtures/bare-handler.ts',
  powertools: 'bench/fixtures/powertools-handler.ts',
  /** The job again, with lib/runtime/observability.ts (Powertools Logger + Metrics) stubbed out. */
  jobNoObservability: 'bench/fixtures/job-handler.ts',
  /** The job with OpenTelemetry tracing on (`cronfence/tracing`: withTracing + @opentelemetry/api). */
  jobTraced: 'bench/fixtures/traced-job-handler.ts',
} as const;

/** esbuild plugin: replace the runtime's observability module by a no-op observer factory. */
const withoutObservability: Plugin = {
  name: 'stub-observability',
  setup(b) {
    b.onResolve({ filter: /\/observability\.js$/ }, () => ({
      path: 'observability-stub',
      namespace: 'stub',
    }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: 'export const createObserver = () => undefined;',
      loader: 'js',
    }));
  },
};
type Name = keyof typeof FIXTURES;

/** Bundle one entry the way a Lambda deployment would (CDK NodejsFunction-like settings). */
async function bundle(name: Name): Promise<string> {
  const outfile = join(OUT_DIR, 'cold-start', `${name}.mjs`);
  await build({
    entryPoints: [FIXTURES[name]],
    plugins: name === 'jobNoObservability' ? [withoutObservability] : [],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    outfile,
    logLevel: 'error',
    // CommonJS dependencies (the SDK's) call require() for Node built-ins.
    banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  });
  return outfile;
}

/**
 * Import a bundle in a fresh Node process; returns the import time measured inside it, ms. With
 * `preloadIcu`, the process formats one date in a time zone first (loads ICU's zone data outside
 * the timer): separates that one-time cost from the bundle's own.
 */
function importMs(file: string, preloadIcu = false): number {
  const pre = preloadIcu ? "new Intl.DateTimeFormat('en-US',{timeZone:'Europe/Berlin'}).format(0);" : '';
  const script = `${pre}const t=performance.now();await import(${JSON.stringify(pathToFileURL(file).href)});process.stdout.write(String(performance.now()-t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, AWS_REGION: 'us-east-1', NODE_OPTIONS: '' },
    encoding: 'utf8',
  });
  return Number(out);
}

async function main(): Promise<void> {
  mkdirSync(join(OUT_DIR, 'cold-start'), { recursive: true });
  const names = Object.keys(FIXTURES) as Name[];
  const files = {} as Record<Name, string>;
  for (const n of names) files[n] = await bundle(n);
  const bytes = Object.fromEntries(names.map((n) => [n, statSync(files[n]).size])) as Record<Name, number>;
  const size = Object.fromEntries(
    names.map((n) => {
      return [
        n,
        { kb: round(bytes[n] / 1024, 1), gzipKb: round(gzipSync(readFileSync(files[n])).length / 1024, 1) },
      ];
    }),
  ) as Record<Name, { kb: number; gzipKb: number }>;
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
  for (const n of names) importMs(files[n]); // warm the file cache
  for (let r = 0; r < REPS; r++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(r + k) % names.length] as Name;
      samples[n].push(importMs(files[n]));
    }
  }
  const icu = { job: [] as number[], bare: [] as number[] };
  for (let r = 0; r < REPS; r++) {
    icu.job.push(importMs(files.job, true));
    icu.bare.push(importMs(files.bare, true));
  }
  const impIcu = { job: round(median(icu.job), 2), bare: round(median(icu.bare), 2) };
  const icuRatio = round(impIcu.job / impIcu.bare);
  const imp = Object.fromEntries(names.map((n) => [n, round(median(samples[n]), 2)])) as Record<Name, number>;
  const sizeRatio = round(size.job.kb / size.bare.kb);
  const importRatio = round(imp.job / imp.bare);
  const vsPowertools = {
    size: round(size.job.kb / size.powertools.kb),
    import: round(imp.job / imp.powertools),
  };
  emit(
    'cold-start',
    {
      command: 'npx tsx bench/cold-start.ts',
      reps: REPS,
      esbuild: { format: 'esm', platform: 'node', target: 'node22', minify: true, sdkIncluded: true },
      sizeKb: size,
      sizeBytes: bytes,
      importMedianMs: imp,
      importSamplesMs: samples,
      ratioToBare: { size: sizeRatio, import: importRatio },
      ratioToPowertools: vsPowertools,
      importMedianMsIcuPreloaded: impIcu,
      ratioToBareIcuPreloaded: icuRatio,
    },
    [
      { figure: 'bundle KB (gzip): job', value: `${size.job.kb} (${size.job.gzipKb})` },
      {
        figure: 'bundle KB (gzip): bare middy + DocumentClient',
        value: `${size.bare.kb} (${size.bare.gzipKb})`,
      },
      {
        figure: 'bundle KB (gzip): Powertools idempotency',
        value: `${size.powertools.kb} (${size.powertools.gzipKb})`,
      },
      {
        figure: 'bundle KB / import ms: job without Powertools observability',
        value: `${size.jobNoObservability.kb} (${round(size.jobNoObservability.kb / size.bare.kb)}x bare) / ${imp.jobNoObservability}`,
      },
      {
        figure: 'bundle KB (gzip) / import ms: job with tracing (cronfence/tracing)',
        value: `${size.jobTraced.kb} (${size.jobTraced.gzipKb}) / ${imp.jobTraced}`,
      },
      {
        figure: 'bundle bytes added by tracing (job with tracing - job)',
        value: bytes.jobTraced - bytes.job,
      },
      { figure: 'size: job / bare', value: sizeRatio, target: '<= 1.10', met: sizeRatio <= 1.1 },
      {
        figure: 'size: job / Powertools',
        value: vsPowertools.size,
        target: '< 1',
        met: vsPowertools.size < 1,
      },
      {
        figure: 'import ms, median: job | bare | Powertools',
        value: `${imp.job} | ${imp.bare} | ${imp.powertools}`,
      },
      { figure: 'import: job / bare', value: importRatio, target: '<= 1.10', met: importRatio <= 1.1 },
      {
        figure: 'import ms with ICU zone data preloaded: job | bare',
        value: `${impIcu.job} | ${impIcu.bare}`,
      },
      { figure: 'import with ICU preloaded: job / bare', value: icuRatio },
      {
        figure: 'import: job / Powertools',
        value: vsPowertools.import,
        target: '< 1',
        met: vsPowertools.import < 1,
      },
    ],
  );
}

await main();
process.exit(0);
