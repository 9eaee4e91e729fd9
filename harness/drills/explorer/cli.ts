/**
 * `npm run explore`: a long seeded exploration of histories on the in-memory store, plus an optional
 * sample on DynamoDB (Local by default). Prints what was explored, the invariants, faults by kind and
 * outcomes; on a violation, the shrunk history as JSON and a timeline of it. Exit 1 on a violation.
 *
 * Usage: npm run explore -- [--runs 5000] [--seed N] [--dynamo 10] [--max-workers 8] [--report dir]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderTimeline } from '../../report/timeline.js';
import { openTarget } from '../dynamo-env.js';
import { type BackendFactory, dynamoBackend, memoryBackend } from './backends.js';
import { type ExploreReport, explore } from './explore.js';
import { runHistory } from './run-history.js';

function print(label: string, r: ExploreReport, ms: number): void {
  console.log(
    `\n${label}: ${r.histories} histories (seed ${r.seed}), ${r.deliveries} deliveries, ${r.workers.min}-${r.workers.max} workers, ${(ms / 1000).toFixed(1)} s`,
  );
  console.log(`  invariants checked after each history (${r.checks} checks):`);
  for (const i of r.invariants)
    console.log(`    ${r.failure?.checks.find((c) => c.name === i && !c.ok) ? 'FAIL' : 'ok  '} ${i}`);
  console.log('  faults injected, by kind:');
  for (const [k, v] of Object.entries(r.faults).sort()) console.log(`    ${k.padEnd(32)} ${v}`);
  console.log('  invocations, by outcome:');
  for (const [k, v] of Object.entries(r.outcomes).sort()) console.log(`    ${k.padEnd(32)} ${v}`);
  console.log('  histories, by shape:');
  for (const [k, v] of Object.entries(r.shapes)) console.log(`    ${k.padEnd(32)} ${v}`);
  console.log(`  violations: ${r.violations.safety} safety, ${r.violations.liveness} liveness`);
}

async function run(
  label: string,
  backend: BackendFactory,
  runs: number,
  seed: number | undefined,
  maxWorkers: number,
  reportDir?: string,
): Promise<boolean> {
  const t = Date.now();
  const r = await explore({ runs, backend, shape: { maxWorkers }, ...(seed !== undefined && { seed }) });
  print(label, r, Date.now() - t);
  if (!r.failure) return true;
  console.log(`\nVIOLATION ${r.failure.message}`);
  for (const c of r.failure.checks.filter((x) => !x.ok)) console.log(`  ${c.name}: ${c.detail}`);
  console.log(
    `\nShrunk history (replay with replayHistory(JSON.parse(...))):\n${JSON.stringify(r.failure.history)}`,
  );
  if (reportDir) {
    const o = await runHistory(r.failure.history, backend);
    await mkdir(reportDir, { recursive: true });
    const file = join(reportDir, `violation-seed-${r.seed}.html`);
    await writeFile(
      file,
      renderTimeline({
        title: `Shrunk history, seed ${r.seed}`,
        meta: { seed: r.seed, message: r.failure.message },
        entries: o.entries,
      }),
    );
    console.log(`Timeline: ${file}`);
  }
  return false;
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5000' },
    seed: { type: 'string' },
    dynamo: { type: 'string', default: '0' },
    'max-workers': { type: 'string', default: '8' },
    report: { type: 'string' },
  },
});
const seed = values.seed === undefined ? undefined : Number(values.seed);
const maxWorkers = Math.min(8, Math.max(2, Number(values['max-workers'])));
let ok = await run('In memory', memoryBackend, Number(values.runs), seed, maxWorkers, values.report);
const sample = Number(values.dynamo);
if (ok && sample > 0) {
  const target = await openTarget();
  console.log(`\nSample on ${target.description}`);
  try {
    ok = await run('On DynamoDB', dynamoBackend(target), sample, seed, maxWorkers, values.report);
  } finally {
    await target.stop();
  }
}
console.log(ok ? '\nAll invariants held in every history.' : '\nAn invariant was violated (see above).');
// Killed runs never settle by design; middy's early-timeout timers would keep the process alive.
process.exit(ok ? 0 : 1);
