#!/usr/bin/env node
/**
 * The `cronfence` CLI, on commander (a maintained, typed argument parser with help and errors built in).
 * Each subcommand registers itself from cli/.
 */
import { Command } from 'commander';
import { registerBackfill } from '../cli/backfill.js';
import { registerDrill } from '../cli/drill.js';
import { registerEffects } from '../cli/effects.js';
import { registerLease } from '../cli/lease.js';
import { registerRuns } from '../cli/runs.js';
import { registerStart } from '../cli/start.js';
import { exampleApp } from '../functions/example-app.js';
import { handlers } from '../functions/index.js';

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

program.parseAsync().catch((err: Error) => {
  console.error(`cronfence: ${err.message}`);
  process.exitCode = 2;
});
