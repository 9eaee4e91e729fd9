#!/usr/bin/env node
/**
 * The `cronfence` CLI, on commander (a maintained, typed argument parser with help and errors built in).
 * Each subcommand registers itself from cli/. The app's modules (the job registry, the `npm start`
 * app) are imported only when a command needs them, so a broken job file fails those commands with
 * exit 2 and a message naming the job, and never breaks `--help`, `drill --list` or `explore`.
 */
import { Command } from 'commander';
import { registerBackfill } from '../cli/backfill.js';
import { registerCheck } from '../cli/check.js';
import { registerDrill } from '../cli/drill.js';
import { registerEffects } from '../cli/effects.js';
import { registerExplore } from '../cli/explore.js';
import { registerLease } from '../cli/lease.js';
import { DEFAULT_REGISTRY, loadOrExplain } from '../cli/registry.js';
import { registerRuns } from '../cli/runs.js';
import { registerStart } from '../cli/start.js';

const handlers = async () => (await import('../functions/index.js')).handlers;
const app = () =>
  loadOrExplain(DEFAULT_REGISTRY, async () => (await import('../functions/example-app.js')).exampleApp);

const program = new Command('cronfence')
  .description('One business effect per scheduled occurrence, on AWS.')
  // One line per error (the field and the value), then a pointer to --help rather than the whole usage text.
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

registerStart(program, app);
registerRuns(program, handlers);
registerLease(program, handlers);
registerBackfill(program, handlers);
registerEffects(program, handlers);
registerDrill(program, app);
registerExplore(program);
registerCheck(program, handlers);

program.parseAsync().catch((err: Error) => {
  console.error(`cronfence: ${err.message}`);
  process.exitCode = 2;
});
