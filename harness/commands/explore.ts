/**
 * `cronfence explore` (`npm run explore`): the seeded history explorer (harness/drills/explorer), with its
 * options parsed and checked by commander like every other subcommand.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { intArg, writableDirArg } from '../../cli/args.js';
import { OVERLAP_POLICIES, type OverlapPolicyName } from '../../lib/core/overlap.js';

interface ExploreFlags {
  readonly runs: number;
  readonly seed?: number;
  readonly dynamo: number;
  readonly maxWorkers: number;
  readonly report?: string;
  readonly overlap?: readonly OverlapPolicyName[];
}

/** `--overlap a,b`: overlap policies, each one of OVERLAP_POLICIES. */
function policiesArg(value: string): OverlapPolicyName[] {
  const list = value.split(',').map((p) => p.trim());
  for (const p of list)
    if (!(OVERLAP_POLICIES as readonly string[]).includes(p))
      throw new InvalidArgumentError(
        `--overlap ${JSON.stringify(value)}: ${JSON.stringify(p)} is not one of ${OVERLAP_POLICIES.join(', ')}`,
      );
  return list as OverlapPolicyName[];
}

/** Register `explore` on the program. Exit 0 when every invariant held, 1 on a violation, 2 for bad input. */
export function registerExplore(program: Command): void {
  program
    .command('explore')
    .description(
      'Explore seeded random histories (workers, faults, pauses) on the in-memory store, optionally sampled on DynamoDB, checking the invariants after each',
    )
    .option('--runs <n>', 'histories on the in-memory store', intArg('--runs', 1, 10_000_000), 5000)
    .option(
      '--seed <n>',
      'seed (default: random; printed, so a run can be replayed)',
      intArg('--seed', 0, 2 ** 31 - 1),
    )
    .option(
      '--dynamo <n>',
      'histories then sampled on DynamoDB (DynamoDB Local unless DYNAMODB_ENDPOINT is set)',
      intArg('--dynamo', 0, 100_000),
      0,
    )
    .option('--max-workers <n>', 'most concurrent workers per history', intArg('--max-workers', 2, 8), 8)
    .option(
      '--report <dir>',
      'write the HTML timeline of a violation into this directory (created if missing)',
      writableDirArg('--report'),
    )
    .option(
      '--overlap <policies>',
      `the overlap policies the overlap shapes draw from, comma-separated (default: all of ${OVERLAP_POLICIES.join(', ')})`,
      policiesArg,
    )
    .action(async (flags: ExploreFlags) => {
      // fast-check (a development dependency) loads only when the explorer runs, never with the CLI.
      const { runExplorer } = await import('../drills/explorer/cli.js');
      const ok = await runExplorer({
        runs: flags.runs,
        dynamo: flags.dynamo,
        maxWorkers: flags.maxWorkers,
        ...(flags.seed !== undefined && { seed: flags.seed }),
        ...(flags.report !== undefined && { report: flags.report }),
        ...(flags.overlap !== undefined && { overlapPolicies: flags.overlap }),
      });
      // Killed runs never settle by design; middy's early-timeout timers would keep the process alive.
      process.exit(ok ? 0 : 1);
    });
}
