/**
 * The `cronfence` CLI's program, on commander (a maintained, typed argument parser with help and
 * errors built in): the commands that work in a user's project, each a thin shell over the operator
 * API (operate/). The project's jobs module is imported only when a command needs it, so a broken job
 * file fails those commands with exit 2 and a message naming the job, and never breaks `--help`. The
 * commands that only read records (`runs`, `lease`, `effects`) never import job code.
 *
 * In a project that installed cronfence, `cronfence.config.json` (or package.json's `cronfence` key)
 * names the jobs module, the table and the region (operate/config.ts); in this repository the example
 * registry (functions/index.ts) is the default.
 */
import { Command, Help } from 'commander';
import { applyProjectConfig, CONFIG_FILE, loadProjectConfig, type ProjectConfig } from '../operate/config.js';
import { type HandlerList, type HandlerLoader, projectJobs } from '../operate/registry.js';
import { registerBackfill } from './backfill.js';
import { registerCheck } from './check.js';
import { registerEffects } from './effects.js';
import { registerJobs } from './jobs.js';
import { registerLease } from './lease.js';
import { registerLocal } from './local.js';
import { registerPause } from './pause.js';
import { registerReport } from './report.js';
import { registerRuns } from './runs.js';
import { registerTrigger } from './trigger.js';
import { registerWhy } from './why.js';

/** The jobs module the CLI uses: the project's configured one, else this repository's example registry. */
function jobsLoader(config: ProjectConfig | undefined): HandlerLoader {
  if (config?.jobs !== undefined) return projectJobs(config.jobs);
  return async (): Promise<HandlerList> => {
    const example = '../functions/index.js';
    return (
      await import(example).catch((err: Error & { code?: string }) => {
        // A broken job file is reported as it is; only a missing registry means "not configured".
        if (err.code !== 'ERR_MODULE_NOT_FOUND' || !/module '[^']*functions\/index\.js'/.test(err.message))
          throw err;
        throw new Error(
          `no jobs module configured: add ${CONFIG_FILE} with {"jobs": "./dist/jobs.js"} (or pass --jobs)`,
        );
      })
    ).jobs as HandlerList; // registry entries: their `uses` name the tables (`cronfence local`)
  };
}

/**
 * Build the program: read the project config (exit 2 naming the file and field when it is bad),
 * register the user commands, then `extend` (the repository's development commands).
 */
export function cronfenceProgram(extend?: (program: Command) => void): Command {
  // The AWS SDK's notice that its releases after January 2027 need Node 22 (8 lines on stderr before
  // every command on Node 20) is switched off by the SDK's documented variable, unless the user set it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let config: ProjectConfig | undefined;
  try {
    config = loadProjectConfig(process.cwd());
    if (config) applyProjectConfig(config);
  } catch (err) {
    console.error(`cronfence: ${(err as Error).message}`);
    process.exit(2);
  }
  const handlers = jobsLoader(config);
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
  registerRuns(program);
  registerLease(program);
  registerBackfill(program, handlers);
  registerEffects(program);
  registerCheck(program, handlers);
  registerJobs(program, handlers);
  registerPause(program, handlers);
  registerTrigger(program, handlers);
  registerWhy(program, handlers);
  registerReport(program, handlers);
  registerLocal(program, handlers);
  extend?.(program);
  return program;
}

/** Parse `process.argv` and run the command; an error nothing else caught exits 2. */
export function runProgram(program: Command): void {
  program.parseAsync().catch((err: Error) => {
    console.error(`cronfence: ${err.message}`);
    process.exitCode = 2;
  });
}
