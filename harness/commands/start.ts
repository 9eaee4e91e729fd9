/**
 * `cronfence start` (`npm start`): the app on DynamoDB Local under the Scheduler emulator.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { type DayOrInstant, dayOrInstantArg, intArg } from '../../cli/args.js';
import { type EcsLocalApp, runEcsLocal } from '../local/run-ecs-local.js';
import { DEFAULT_RANGE_DAYS, type LocalApp, runLocal } from '../local/run-local.js';

interface StartFlags {
  readonly from?: DayOrInstant;
  readonly to?: DayOrInstant;
  readonly copies: number;
  readonly late: number;
  readonly hold?: boolean;
  readonly yes?: boolean;
  readonly chaos?: boolean | string;
  readonly ecs?: boolean;
}

function chaosSeed(chaos: boolean | string | undefined): number | undefined {
  if (chaos === undefined) return undefined;
  const seed = chaos === true ? Date.now() % 1_000_000 : Number(chaos);
  if (!Number.isInteger(seed))
    throw new InvalidArgumentError(`--chaos ${JSON.stringify(chaos)} must be an integer seed`);
  return seed;
}

/**
 * Register `start` on the program. @param app the app, or a loader of it (called when the command runs).
 * @param ecs the ECS job `--ecs` runs, a loader (the example's in this repository).
 */
export function registerStart(
  program: Command,
  app: LocalApp | (() => Promise<LocalApp>),
  ecs?: () => Promise<EcsLocalApp>,
): void {
  program
    .command('start')
    .description(
      'Run the jobs on DynamoDB Local under an EventBridge Scheduler emulator, with duplicate deliveries, and verify the invariants',
    )
    .option(
      '--from <date>',
      `first day (yyyy-mm-dd, a whole UTC day) or instant (ISO-8601 with Z or an offset), inclusive (default: ${DEFAULT_RANGE_DAYS} days before --to)`,
      dayOrInstantArg('--from'),
    )
    .option(
      '--to <date>',
      'last day (yyyy-mm-dd, through its last UTC instant; today ends now) or instant, inclusive; not in the future (default: now)',
      dayOrInstantArg('--to'),
    )
    .option('--copies <n>', 'concurrent duplicate deliveries per occurrence', intArg('--copies', 0, 100), 2)
    .option('--late <n>', 'late Scheduler retries per occurrence', intArg('--late', 0, 100), 1)
    .option('--yes', 'play more than 1,000 occurrences')
    .option('--hold', 'keep DynamoDB Local up afterwards for the cronfence CLI, until Ctrl-C')
    .option(
      '--chaos [seed]',
      'inject a seeded mix of faults (throttling, lost responses, slow requests, pauses); still verifies the invariants',
    )
    .option(
      '--ecs',
      'run the example ECS job (functions/nightly-export.ts) as ECS runs it: its task entry as child processes on DynamoDB Local, two tasks for one occurrence, a SIGTERM half way and its retry',
    )
    .action(async (opts: StartFlags) => {
      if (opts.ecs) {
        if (!ecs) throw new InvalidArgumentError('--ecs: this program has no ECS job to run');
        process.exitCode = (await runEcsLocal(await ecs())) ? 0 : 1;
        return;
      }
      const seed = chaosSeed(opts.chaos);
      // A `--to` day of today ends now (like backfill); a `--to` that starts after now is refused.
      const nowMs = Date.now();
      const toMs = opts.to && (opts.to.firstMs > nowMs ? opts.to.firstMs : Math.min(opts.to.lastMs, nowMs));
      const ok = await runLocal(typeof app === 'function' ? await app() : app, {
        ...(opts.from !== undefined && { fromMs: opts.from.firstMs }),
        ...(toMs !== undefined && { toMs }),
        concurrentCopies: opts.copies,
        lateCopies: opts.late,
        ...(opts.hold && { hold: true }),
        ...(opts.yes && { yes: true }),
        ...(seed !== undefined && { chaos: { seed } }),
      });
      process.exitCode = ok ? 0 : 1;
    });
}
