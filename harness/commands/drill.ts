/**
 * `cronfence drill`: named failure drills with the real handlers against the configured DynamoDB
 * (DynamoDB Local by default), a PASS/FAIL table citing run records, exit 1 on any FAIL.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { writableDirArg } from '../../cli/args.js';
import { checkedEndpoint } from '../../lib/store/client.js';
import type { LocalApp } from '../local/run-local.js';

/**
 * The drill harness, loaded only when `drill` runs: its catalog uses the example app's jobs, which an
 * installed package does not ship, so every other command must not import it.
 */
async function harness() {
  const [catalog, env, run, report] = await Promise.all([
    import('../drills/catalog/index.js'),
    import('../drills/dynamo-env.js'),
    import('../drills/run-drills.js'),
    import('../report/timeline.js'),
  ]);
  return { ...catalog, ...env, ...run, ...report };
}

/** Register `drill` on the program. @param app the app, or a loader of it (called when drills run). */
export function registerDrill(program: Command, app: LocalApp | (() => Promise<LocalApp>)): void {
  program
    .command('drill')
    .description(
      'Rehearse failure paths (kills, pauses, timeouts, skew, duplicates, throttling) with the real handlers and check one result per key',
    )
    .argument('[names...]', 'run only drills whose name contains one of these')
    .option('--list', 'list the drills and exit')
    .option(
      '--endpoint <url>',
      'DynamoDB endpoint (default: DYNAMODB_ENDPOINT, else DynamoDB Local started for the run)',
    )
    .option(
      '--aws',
      'use AWS DynamoDB from the environment (region, credentials); creates and deletes drill tables',
    )
    .option(
      '--report <dir>',
      'write one self-contained HTML timeline per drill into this directory (created if missing)',
      writableDirArg('--report'),
    )
    .action(
      async (
        names: string[],
        opts: { list?: boolean; endpoint?: string; aws?: boolean; report?: string },
      ) => {
        const { DRILLS, selectDrills, openTarget, runDrills, summaryTable, renderTimeline } = await harness();
        if (opts.list) {
          for (const d of DRILLS)
            console.log(`${d.name}\n    injected: ${d.injected}\n    expected: ${d.expected}`);
          return;
        }
        const drills = selectDrills(names);
        if (drills.length === 0) {
          console.error(`cronfence drill: no drill matches ${names.join(', ')} (see --list)`);
          process.exitCode = 2;
          return;
        }
        const theApp = typeof app === 'function' ? await app() : app;
        const target = await openTarget({
          ...(opts.aws && { aws: true }),
          ...(opts.endpoint !== undefined && { endpoint: checkedEndpoint('--endpoint', opts.endpoint) }),
        });
        console.log(`Drills against ${target.description}: ${drills.length} drill(s)\n`);
        try {
          const reports = await runDrills({ app: theApp, drills, target });
          console.log(`\n${summaryTable(reports).join('\n')}`);
          if (opts.report) {
            await mkdir(opts.report, { recursive: true });
            for (const r of reports)
              await writeFile(join(opts.report, `${r.name}.html`), renderTimeline(r.recording));
            console.log(`\nTimelines: ${opts.report}/<drill>.html`);
          }
          const failed = reports.filter((r) => !r.pass);
          console.log(
            failed.length
              ? `\n${failed.length} drill(s) FAILED: ${failed.map((r) => r.name).join(', ')}`
              : `\nAll ${reports.length} drills passed.`,
          );
          process.exitCode = failed.length ? 1 : 0;
        } finally {
          await target.stop();
        }
      },
    );
}
