#!/usr/bin/env node
/**
 * The `cronfence` CLI, on commander (a maintained, typed argument parser with help and errors built in).
 * Each subcommand registers itself from lib/cli.
 */
import { Command } from 'commander';
import { exampleApp } from '../functions/example-app.js';
import { handlers } from '../functions/index.js';
import { registerBackfill } from '../lib/cli/backfill.js';
import { registerCheck } from '../lib/cli/check.js';
import { registerDrill } from '../lib/cli/drill.js';
import { registerEffects } from '../lib/cli/effects.js';
import { registerLease } from '../lib/cli/lease.js';
import { registerRuns } from '../lib/cli/runs.js';
import { registerStart } from '../lib/cli/start.js';

const program = new Command('cronfence')
  .description('One business effect per scheduled occurrence, on AWS.')
  .showHelpAfterError()
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

registerStart(program, exampleApp);
registerRuns(program, handlers);
registerLease(program, handlers);
registerBackfill(program, handlers);
registerEffects(program);
registerDrill(program, exampleApp);
registerCheck(program, handlers);

program.parseAsync().catch((err: Error) => {
  console.error(`cronfence: ${err.message}`);
  process.exitCode = 2;
});
