/**
 * `npm run explore` (`cronfence explore`, registered in cli/explore.ts): a long seeded exploration of
 * histories on the in-memory store, plus an optional sample on DynamoDB (Local by default). Prints what
 * was explored, the invariants, faults by kind and outcomes; on a violation, the shrunk history as JSON
 * and a timeline of it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { table } from '../../../cli/output.js';
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
}

/** Explore in memory, then sample on DynamoDB. @returns true when every invariant held. */
export async function runExplorer(o: ExplorerOptions): Promise<boolean> {
  let ok = await run('In memory', memoryBackend, o.runs, o.seed, o.maxWorkers, o.report);
  if (ok && o.dynamo > 0) {
    const target = await openTarget();
    console.log(`\nSample on ${target.description}`);
    try {
      ok = await run('On DynamoDB', dynamoBackend(target), o.dynamo, o.seed, o.maxWorkers, o.report);
    } finally {
      await target.stop();
    }
  }
  console.log(ok ? '\nAll invariants held in every history.' : '\nAn invariant was violated (see above).');
  return ok;
}
