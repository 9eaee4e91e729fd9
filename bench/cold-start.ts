/**
 * Figure 4 — cold start: esbuild bundles (the settings cdk/ deploys a job with, `JOB_BUNDLING`) of a
 * cronfence job handler with the default observability off (no `observe`) and on (`observe:
 * createObserver`, Powertools Logger + Metrics), a bare middy + DynamoDB Document client handler, and
 * a handler made idempotent with Powertools for AWS Lambda (idempotency utility, a devDependency).
 * Reports bundle size (raw and gzip) and import time: each import in a fresh Node process (the
 * Lambda runtime's major), the three bundles interleaved, REPS repetitions, median.
 * Run: npx tsx bench/cold-start.ts [reps=15]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { ESBUILD_TARGET } from '../cdk/constructs/defaults.js';
import { JOB_BUNDLING } from '../cdk/constructs/job-function.js';
import { jobBundleOptions } from './support/job-bundle.js';
import { emit, median, OUT_DIR, round } from './support/report.js';

const REPS = Number(process.argv[2] ?? 15);
const FIXTURES = {
  /** The job with the default observability off: no `observe`, so no Powertools in the bundle. */
  job: 'bench/fixtures/job-handler.ts',
  /** The same job with the default observability on (`observe: createObserver`). */
  jobObserved: 'bench/fixtures/job-handler-observed.ts',
  bare: 'bench/fixtures/bare-handler.ts',
  powertools: 'bench/fixtures/powertools-handler.ts',
  /** The job with OpenTelemetry tracing on (`cronfence/tracing`: withTracing + @opentelemetry/api). */
  jobTraced: 'bench/fixtures/traced-job-handler.ts',
} as const;
type Name = keyof typeof FIXTURES;
const LABEL: Record<Name, string> = {
  job: 'job, observability off',
  jobObserved: 'job, observability on (Powertools Logger + Metrics)',
  bare: 'bare middy + DocumentClient',
  powertools: 'Powertools idempotency',
  jobTraced: 'job with tracing (cronfence/tracing), observability off',
};

/**
 * Bundle one entry as cdk/ bundles a job's function (`JOB_BUNDLING` of cdk/constructs/job-function.ts,
 * which `NodejsFunction` passes to esbuild): ESM, minified, the SDK inside, its target and main fields,
 * its banner and a linked source map (written beside the bundle, not counted in its size).
 */
async function bundle(name: Name): Promise<string> {
  const outfile = join(OUT_DIR, 'cold-start', `${name}.mjs`);
  await build(jobBundleOptions(FIXTURES[name], outfile));
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
  const ratios = (n: 'job' | 'jobObserved') => ({
    size: round(size[n].kb / size.bare.kb),
    import: round(imp[n] / imp.bare),
    sizeVsPowertools: round(size[n].kb / size.powertools.kb),
    importVsPowertools: round(imp[n] / imp.powertools),
  });
  const off = ratios('job');
  const on = ratios('jobObserved');
  emit(
    'cold-start',
    {
      command: 'npx tsx bench/cold-start.ts',
      reps: REPS,
      esbuild: {
        format: 'esm',
        platform: 'node',
        target: ESBUILD_TARGET,
        mainFields: JOB_BUNDLING.mainFields,
        minify: JOB_BUNDLING.minify,
        sdkIncluded: JOB_BUNDLING.bundleAwsSDK,
      },
      sizeKb: size,
      sizeBytes: bytes,
      importMedianMs: imp,
      importSamplesMs: samples,
      ratioToBare: { size: off.size, import: off.import },
      ratioToPowertools: { size: off.sizeVsPowertools, import: off.importVsPowertools },
      observedRatioToBare: { size: on.size, import: on.import },
      observedRatioToPowertools: { size: on.sizeVsPowertools, import: on.importVsPowertools },
      importMedianMsIcuPreloaded: impIcu,
      ratioToBareIcuPreloaded: icuRatio,
    },
    [
      ...(['job', 'jobObserved', 'jobTraced', 'bare', 'powertools'] as const).map((n) => ({
        figure: `bundle KB (gzip) / import ms: ${LABEL[n]}`,
        value: `${size[n].kb} (${size[n].gzipKb}) / ${imp[n]}`,
      })),
      ...(
        [
          ['observability off', off],
          ['observability on', on],
        ] as const
      ).flatMap(([label, r]) => [
        { figure: `size: job / bare, ${label}`, value: r.size, target: '<= 1.10', met: r.size <= 1.1 },
        {
          figure: `size: job / Powertools, ${label}`,
          value: r.sizeVsPowertools,
          target: '<= 1.0',
          met: r.sizeVsPowertools <= 1,
        },
        { figure: `import: job / bare, ${label}`, value: r.import, target: '<= 1.10', met: r.import <= 1.1 },
        { figure: `import: job / Powertools, ${label}`, value: r.importVsPowertools },
      ]),
      {
        figure: 'bundle bytes added by tracing (job with tracing - job)',
        value: bytes.jobTraced - bytes.job,
      },
      {
        figure: 'import ms with ICU zone data preloaded: job | bare',
        value: `${impIcu.job} | ${impIcu.bare}`,
      },
      { figure: 'import with ICU preloaded: job / bare', value: icuRatio },
    ],
  );
}

await main();
process.exit(0);
