#!/usr/bin/env node
/**
 * The `cronfence` CLI (commander: a maintained, typed argument parser). Subcommands live in lib/cli
 * and bin/commands; `start` runs the example app on DynamoDB Local under the Scheduler emulator.
 */
import { Command, InvalidArgumentError as CommanderArgError } from 'commander';
import { exampleApp } from '../functions/example-app.js';
import { runLocal } from '../lib/local/run-local.js';

function instant(flag: string) {
  return (value: string): number => {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    if (Number.isNaN(ms)) throw new CommanderArgError(`${flag} ${JSON.stringify(value)} is not a date (yyyy-mm-dd or ISO-8601 instant)`);
    return ms;
  };
}

const program = new Command('cronfence').description('One business effect per scheduled occurrence, on AWS.').showHelpAfterError();

program
  .command('start')
  .description('Run the example jobs on DynamoDB Local under an EventBridge Scheduler emulator, with duplicate deliveries, and verify the invariants')
  .option('--from <date>', 'start of the emulated range (UTC date or ISO instant)', instant('--from'))
  .option('--to <date>', 'end of the emulated range (UTC date or ISO instant)', instant('--to'))
  .option('--copies <n>', 'concurrent duplicate deliveries per occurrence', (v) => Number.parseInt(v, 10), 2)
  .option('--late <n>', 'late Scheduler retries per occurrence', (v) => Number.parseInt(v, 10), 1)
  .action(async (opts: { from?: number; to?: number; copies: number; late: number }) => {
    const ok = await runLocal(exampleApp, {
      ...(opts.from !== undefined && { fromMs: opts.from }),
      ...(opts.to !== undefined && { toMs: opts.to }),
      concurrentCopies: opts.copies,
      lateCopies: opts.late,
    });
    process.exitCode = ok ? 0 : 1;
  });

program.parseAsync().catch((err: Error) => {
  console.error(`cronfence: ${err.message}`);
  process.exitCode = process.exitCode || 2;
});
