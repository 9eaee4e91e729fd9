#!/usr/bin/env node
/**
 * The `cronfence` CLI, on commander (a maintained, typed argument parser with help and errors built in).
 * Each subcommand registers itself from cli/. The app's modules (the job registry, the `npm start`
 * app) are imported only when a command needs them, so a broken job file fails those commands with
 * exit 2 and a message naming the job, and never breaks `--help`, `drill --list` or `explore`. The
 * commands that only read records (`runs`, `lease`, `effects`) never import job code: the job's name
 * and the table are all they need.
 *
 * In a project that installed cronfence, `cronfence.config.json` (or package.json's `cronfence` key)
 * names the jobs module, the table and the region (cli/config.ts); in this repository the example
 * registry (functions/index.ts) is the default. Installed, this file runs as compiled JavaScript.
 */
import { Command, Help } from 'commander';
import { registerBackfill } from '../cli/backfill.js';
import { registerCheck } from '../cli/check.js';
import { applyProjectConfig, CONFIG_FILE, loadProjectConfig, type ProjectConfig } from '../cli/config.js';
import { registerDrill } from '../cli/drill.js';
import { registerEffects } from '../cli/effects.js';
import { registerExplore } from '../cli/explore.js';
import { registerJobs } from '../cli/jobs.js';
import { registerLease } from '../cli/lease.js';
import { registerLocal } from '../cli/local.js';
import { registerPause } from '../cli/pause.js';
import {
  DEFAULT_REGISTRY,
  type HandlerList,
  type HandlerLoader,
  loadOrExplain,
  projectJobs,
} from '../cli/registry.js';
import { registerReport } from '../cli/report.js';
import { registerRuns } from '../cli/runs.js';
import { registerStart } from '../cli/start.js';
import { registerTrigger } from '../cli/trigger.js';
import { registerWhy } from '../cli/why.js';

// The AWS SDK's notice that its releases after January 2027 need Node 22 (8 lines on stderr before every
// command on Node 20) is switched off by the SDK's documented variable, unless the user set it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

let config: ProjectConfig | undefined;
try {
  config = loadProjectConfig(process.cwd());
  if (config) applyProjectConfig(config);
} catch (err) {
  console.error(`cronfence: ${(err as Error).message}`);
  process.exit(2);
}
// The project's jobs module when configured; else this repository's example registry (only this
// repository has it; an installed package points at the project's).
const handlers: HandlerLoader =
  config?.jobs !== undefined
    ? projectJobs(config.jobs)
    : async (): Promise<HandlerList> => {
        const example = '../functions/index.js';
        return (
          await import(example).catch((err: Error & { code?: string }) => {
            // A broken job file is reported as it is; only a missing registry means "not configured".
            if (
              err.code !== 'ERR_MODULE_NOT_FOUND' ||
              !/module '[^']*functions\/index\.js'/.test(err.message)
            )
              throw err;
            throw new Error(
              `no jobs module configured: add ${CONFIG_FILE} with {"jobs": "./dist/jobs.js"} (or pass --jobs)`,
            );
          })
        ).jobs as HandlerList; // registry entries: their `uses` name the tables (`cronfence local`)
      };
const app = () =>
  loadOrExplain(DEFAULT_REGISTRY, async () => (await import('../functions/example-app.js')).exampleApp);

const program = new Command('cronfence')
  .description('One business effect per scheduled occurrence, on AWS.')
  // One line per error (the field and the value), then a pointer to --help rather than the whole usage text.
  .showHelpAfterError('(run with --help for usage)')
  // --help marks each required option, so a user learns them all at once, not one error at a time.
  .configureHelp({
    optionDescription(option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `${text} (required)` : text;
    },
  })
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

registerStart(program, app, async () => (await import('../functions/ecs-jobs.js')).ecsLocalApp);
registerRuns(program);
registerLease(program);
registerBackfill(program, handlers);
registerEffects(program);
registerDrill(program, app);
registerExplore(program);
registerCheck(program, handlers);
// Operators' controls (issue 16).
registerJobs(program, handlers);
registerPause(program, handlers);
registerTrigger(program, handlers);
registerWhy(program, handlers);
registerReport(program, handlers);
registerLocal(program, handlers);

program.parseAsync().catch((err: Error) => {
  console.error(`cronfence: ${err.message}`);
  process.exitCode = 2;
});
