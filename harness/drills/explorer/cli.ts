/**
 * `npm run explore` (`cronfence explore`, registered in harness/commands/explore.ts): a long seeded exploration of
 * histories on the in-memory store, plus an optional sample on DynamoDB (Local by default). Prints what
 * was explored, the invariants, faults by kind and outcomes; on a violation, the shrunk history as JSON
 * and a timeline of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { table } from '../../../cli/output.js';
import type { OverlapPolicyName } from '../../../lib/core/overlap.js';
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
  const counts = (o: Record<string, number>) =>
    table(
      Object.entries(o).sort(),
      [
        { header: 'what', cell: ([k]) => `    ${k}` },
        { header: 'count', cell: ([, v]) => String(v) },
      ],
      { header: false },
    );
  console.log('  faults injected, by kind:');
  console.log(counts(r.faults));
  console.log('  histories, by safety shape (listed deliveries):');
  console.log(counts(r.safetyShapes));
  console.log('  invocations, by outcome:');
  console.log(counts(r.outcomes));
  console.log('  histories, by liveness shape (Lambda model):');
  console.log(counts(r.shapes));
  console.log(`  violations: ${r.violations.safety} safety, ${r.violations.liveness} liveness`);
}

/** How often progress is printed when stderr is not a terminal (CI logs), ms. */
const PIPED_PROGRESS_EVERY_MS = 10_000;

/**
 * A progress bar on `stream` (stderr: stdout keeps only the report): redrawn in place on a terminal,
 * one line every {@link PIPED_PROGRESS_EVERY_MS} otherwise, and a last line at the end. Shrinking a
 * failure runs more histories than asked: the count goes on, the bar stays full.
 */
function progressBar(label: string, runs: number, stream: NodeJS.WritableStream) {
  const bar = new SingleBar({
    format: `${label}: [{bar}] {value}/{total} histories, {duration_formatted}`,
    stream,
    noTTYOutput: true,
    notTTYSchedule: PIPED_PROGRESS_EVERY_MS,
    hideCursor: true,
    gracefulExit: true,
  });
  let last = Date.now();
  bar.start(runs, 0);
  return {
    update(n: number) {
      bar.setTotal(Math.max(runs, n));
      bar.update(n);
      // Histories on the in-memory store chain promises without yielding to timers: draw here when due.
      const now = Date.now();
      if (now - last >= ((stream as { isTTY?: boolean }).isTTY ? 200 : PIPED_PROGRESS_EVERY_MS)) {
        last = now;
        bar.render();
      }
    },
    stop: () => bar.stop(),
  };
}

async function run(
  label: string,
  backend: BackendFactory,
  o: ExplorerOptions,
  runs: number,
): Promise<boolean> {
  const { seed, maxWorkers, report: reportDir } = o;
  const t = Date.now();
  const progress = o.progress === false ? undefined : progressBar(label, runs, o.progress ?? process.stderr);
  let r: ExploreReport;
  try {
    r = await explore({
      runs,
      backend,
      shape: { maxWorkers, ...(o.overlapPolicies && { overlapPolicies: o.overlapPolicies }) },
      ...(seed !== undefined && { seed }),
      ...(progress && { onHistory: (n: number) => progress.update(n) }),
    });
  } finally {
    progress?.stop();
  }
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

/** Options of {@link runExplorer} (validated by the `explore` subcommand). */
export interface ExplorerOptions {
  /** Histories on the in-memory store. */
  readonly runs: number;
  /** @default random */
  readonly seed?: number;
  /** Histories sampled on DynamoDB (Local unless DYNAMODB_ENDPOINT says otherwise) afterwards. */
  readonly dynamo: number;
  /** Most concurrent workers per history, 2-8. */
  readonly maxWorkers: number;
  /** Directory for the timeline of a violation. @default none */
  readonly report?: string;
  /** The overlap policies the overlap shapes draw from. @default every policy */
  readonly overlapPolicies?: readonly OverlapPolicyName[];
  /** Where the progress bar goes, or `false` for none. @default process.stderr */
  readonly progress?: NodeJS.WritableStream | false;
}

/** Explore in memory, then sample on DynamoDB. @returns true when every invariant held. */
export async function runExplorer(o: ExplorerOptions): Promise<boolean> {
  let ok = await run('In memory', memoryBackend, o, o.runs);
  if (ok && o.dynamo > 0) {
    const target = await openTarget();
    console.log(`\nSample on ${target.description}`);
    try {
      ok = await run('On DynamoDB', dynamoBackend(target), o, o.dynamo);
    } finally {
      await target.stop();
    }
  }
  console.log(ok ? '\nAll invariants held in every history.' : '\nAn invariant was violated (see above).');
  return ok;
}
