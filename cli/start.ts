/**
 * `cronfence start`: the example app on DynamoDB Local under the Scheduler emulator.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { LocalApp } from '../harness/local/run-local.js';
import { runLocal } from '../harness/local/run-local.js';
import { instantArg, intArg } from './args.js';

/** Register `start` on the program. */
export function registerStart(program: Command, app: LocalApp): void {
  program
    .command('start')
    .description(
      'Run the example jobs on DynamoDB Local under an EventBridge Scheduler emulator, with duplicate deliveries, and verify the invariants',
    )
    .option(
      '--from <date>',
      'start of the emulated range, exclusive (UTC date or ISO instant; default: 3 days ago)',
      instantArg('--from'),
    )
    .option(
      '--to <date>',
      'end of the emulated range, inclusive (UTC date or ISO instant; default: now)',
      instantArg('--to'),
    )
    .option('--copies <n>', 'concurrent duplicate deliveries per occurrence', intArg('--copies', 0, 100), 2)
    .option('--late <n>', 'late Scheduler retries per occurrence', intArg('--late', 0, 100), 1)
    .option('--yes', 'play more than 1,000 occurrences')
    .option('--hold', 'keep DynamoDB Local up afterwards for the cronfence CLI, until Ctrl-C')
    .option(
      '--chaos [seed]',
      'inject a seeded mix of faults (throttling, lost responses, slow requests, pauses); still verifies the invariants',
    )
    .action(
      async (opts: {
        from?: number;
        to?: number;
        copies: number;
        late: number;
        hold?: boolean;
        yes?: boolean;
        chaos?: boolean | string;
      }) => {
        const seed =
          opts.chaos === undefined
            ? undefined
            : opts.chaos === true
              ? Date.now() % 1_000_000
              : Number(opts.chaos);
        if (seed !== undefined && !Number.isInteger(seed))
          throw new InvalidArgumentError(`--chaos ${JSON.stringify(opts.chaos)} must be an integer seed`);
        const ok = await runLocal(app, {
          ...(opts.from !== undefined && { fromMs: opts.from }),
          ...(opts.to !== undefined && { toMs: opts.to }),
          concurrentCopies: opts.copies,
          lateCopies: opts.late,
          ...(opts.hold && { hold: true }),
          ...(opts.yes && { yes: true }),
          ...(seed !== undefined && { chaos: { seed } }),
        });
        process.exitCode = ok ? 0 : 1;
      },
    );
}
