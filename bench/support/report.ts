/**
 * Statistics and output for benchmarks: percentiles, bounded worker pools, and the JSON + table
 * every benchmark prints (and saves under bench/out/ for `npm run bench`'s summary).
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from '../../cli/output.js';

/** Where results are saved (git-ignored). */
export const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'out');

/** The `q` quantile (0..1) of samples, nearest-rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Median of samples. */
export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Round to `digits` decimals. */
export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** High-resolution now, ms. */
export function nowMs(): number {
  return performance.now();
}

/**
 * Run `count` tasks with at most `concurrency` in flight. `task(i)` gets the index.
 * @returns the wall time, ms.
 */
export async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const start = nowMs();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return nowMs() - start;
}

/** One row of a benchmark's table: a figure, its value, its target and whether it is met. */
export interface FigureRow {
  readonly figure: string;
  readonly value: number | string;
  readonly target?: string;
  readonly met?: boolean;
}

/** Print a small fixed-width table. */
export function printTable(rows: readonly FigureRow[]): void {
  console.log(
    table(rows, [
      { header: 'figure', cell: (r) => r.figure, max: Number.POSITIVE_INFINITY },
      { header: 'value', cell: (r) => String(r.value), max: Number.POSITIVE_INFINITY },
      { header: 'target', cell: (r) => r.target ?? '', max: Number.POSITIVE_INFINITY },
      { header: '', cell: (r) => (r.met === undefined ? '' : r.met ? 'met' : 'MISSED') },
    ]),
  );
}

/**
 * Print a benchmark's result as one JSON line (prefixed `RESULT `) and its table, and save the JSON
 * to bench/out/<name>.json.
 */
export function emit(name: string, result: Record<string, unknown>, rows: readonly FigureRow[]): void {
  const doc = { bench: name, node: process.version, at: new Date().toISOString(), ...result, rows };
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, `${name}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`RESULT ${JSON.stringify(doc)}`);
  console.log('');
  printTable(rows);
}

/** Peak resident set size of this process so far, MB. */
export function peakRssMb(): number {
  return round(process.resourceUsage().maxRSS / 1024, 1);
}
