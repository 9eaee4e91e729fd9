/**
 * `npm run bench`: every benchmark, one after another, each in its own Node process (its own
 * DynamoDB Local, its own peak RSS), then one summary table of every figure with its target.
 * Pass names to run a subset: `npm run bench -- protocol-cost cold-start`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FigureRow, OUT_DIR, printTable } from './support/report.js';

/** Every benchmark, in the order they run (fast and independent first). */
export const BENCHES = [
  'protocol-cost',
  'claim-latency',
  'throughput',
  'cold-start',
  'scale',
  'fan-out',
  'peer',
  'peer-shapes',
] as const;

function main(): number {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !(BENCHES as readonly string[]).includes(w));
  if (unknown.length > 0) {
    console.error(
      `bench: unknown benchmark ${unknown.map((u) => JSON.stringify(u)).join(', ')} (known: ${BENCHES.join(', ')})`,
    );
    return 2;
  }
  const names = wanted.length > 0 ? BENCHES.filter((b) => wanted.includes(b)) : [...BENCHES];
  const summary: FigureRow[] = [];
  let failures = 0;
  for (const name of names) {
    const file = join('bench', `${name}.ts`);
    console.log(`\n=== ${name}: npx tsx ${file}`);
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    if (r.status !== 0) {
      failures++;
      summary.push({ figure: `${name}: FAILED (exit ${r.status})`, value: `${seconds}s` });
      continue;
    }
    const result = JSON.parse(readFileSync(join(OUT_DIR, `${name}.json`), 'utf8')) as { rows: FigureRow[] };
    for (const row of result.rows.filter((x) => x.target !== undefined))
      summary.push({ ...row, figure: `${name}: ${row.figure}` });
    summary.push({ figure: `${name}: took`, value: `${seconds}s` });
  }
  console.log('\n=== summary (targets only; details in bench/out/*.json)');
  printTable(summary);
  return failures === 0 ? 0 : 1;
}

process.exit(main());
