/**
 * Figure 4's breakdown: which modules a job's bundle holds, in bytes of the minified output (esbuild
 * metafile `bytesInOutput`), bundled as cdk/ deploys (`JOB_BUNDLING`). Bundles the cold-start job
 * fixture, the bare middy + DocumentClient handler and the Powertools idempotency handler, groups the
 * job's modules by part (SDK beyond the bare handler's, validation, schedule, protocol and stores, run
 * use case, ...) and prints what the library adds over the bare handler against the two size budgets
 * of figure 4 (≤ 1.10 × bare, ≤ 1.0 × Powertools).
 * Run: npx tsx bench/bundle-breakdown.ts [entry=bench/fixtures/job-handler.ts]
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { jobBundleOptions } from './support/job-bundle.js';
import { emit, OUT_DIR, round } from './support/report.js';

const ENTRY = process.argv[2] ?? 'bench/fixtures/job-handler.ts';
const BARE = 'bench/fixtures/bare-handler.ts';
const POWERTOOLS = 'bench/fixtures/powertools-handler.ts';

/** The part a module of the job's bundle belongs to (first match wins). */
const PARTS: readonly (readonly [string, RegExp])[] = [
  ['AWS SDK and Smithy', /^node_modules\/(@aws-sdk|@smithy)\//],
  ['valibot', /^node_modules\/valibot\//],
  ['other packages', /^node_modules\//],
  ['effects', /(^lib\/effects\/|effect|restore-guard)/],
  ['overlap policies', /overlap/],
  ['check-ins', /check-in/],
  ['validation (job schema, uses, unknown options)', /(job-definition-schema|unknown-options|job-access)/],
  ['schedule (cron, zones, slots, DST)', /^lib\/core\/schedule\//],
  ['protocol declarations and stores', /^lib\/store\//],
  ['run use case (session, keeper, middleware, context)', /^lib\/runtime\//],
  ['core decisions, outcomes, errors', /^lib\/core\//],
  ['the fixture', /^bench\//],
];

/** Bytes per input module in the one output of a bundle of `entry`, and the output's size. */
async function modules(entry: string, name: string): Promise<{ bytes: number; inputs: Map<string, number> }> {
  const outfile = join(OUT_DIR, 'bundle-breakdown', `${name}.mjs`);
  const r = await build({ ...jobBundleOptions(entry, outfile), metafile: true });
  const out = Object.values((r.metafile as Metafile).outputs).find((o) => o.entryPoint !== undefined);
  if (!out) throw new Error(`esbuild wrote no entry output for ${entry}`);
  const inputs = new Map<string, number>();
  for (const [path, i] of Object.entries(out.inputs))
    if (i.bytesInOutput > 0) inputs.set(path, i.bytesInOutput);
  return { bytes: out.bytes, inputs };
}

function partOf(path: string): string {
  return PARTS.find(([, re]) => re.test(path))?.[0] ?? 'unsorted';
}

async function main(): Promise<void> {
  mkdirSync(join(OUT_DIR, 'bundle-breakdown'), { recursive: true });
  const job = await modules(ENTRY, 'job');
  const bare = await modules(BARE, 'bare');
  const powertools = await modules(POWERTOOLS, 'powertools');
  const parts = new Map<string, number>();
  for (const [path, b] of job.inputs) parts.set(partOf(path), (parts.get(partOf(path)) ?? 0) + b);
  // The packages the bare handler bundles too (the SDK's clients, middy) count only beyond its bytes.
  for (const [path, b] of bare.inputs) {
    const part = partOf(path);
    if (part === 'AWS SDK and Smithy' || part === 'other packages')
      parts.set(part, (parts.get(part) ?? 0) - b);
  }
  const added = job.bytes - bare.bytes;
  const budgetBare = Math.floor(bare.bytes * 1.1) - bare.bytes;
  const budgetPowertools = powertools.bytes - bare.bytes;
  const ownModules = [...job.inputs]
    .filter(([p]) => p.startsWith('lib/'))
    .sort((a, b) => b[1] - a[1])
    .map(([path, bytes]) => ({ path, bytes }));
  const byPart = [...parts].sort((a, b) => b[1] - a[1]);
  emit(
    'bundle-breakdown',
    {
      command: `npx tsx bench/bundle-breakdown.ts ${ENTRY}`,
      bytes: { job: job.bytes, bare: bare.bytes, powertools: powertools.bytes },
      addedOverBare: added,
      budgetOverBare: { '1.10xBare': budgetBare, powertools: budgetPowertools },
      parts: Object.fromEntries(byPart),
      ownModules,
    },
    [
      { figure: 'job bundle bytes', value: job.bytes },
      { figure: 'bytes the job adds over bare middy + DocumentClient', value: added },
      {
        figure: 'budget: ≤ 1.10 × bare / ≤ Powertools',
        value: `${budgetBare} / ${budgetPowertools}`,
        target: `≥ ${added}`,
        met: added <= Math.min(budgetBare, budgetPowertools),
      },
      ...byPart.map(([part, b]) => ({
        figure: /packages|SDK/.test(part) ? `${part} (beyond the bare handler's)` : part,
        value: `${b} (${round((100 * b) / added, 1)}% of the added bytes)`,
      })),
    ],
  );
}

await main();
