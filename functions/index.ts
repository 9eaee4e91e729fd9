/**
 * The app's job registry: the ONE list of jobs that the CDK app (`npx cdk synth`), the `cronfence` CLI,
 * `npm start` and the sweeper read. Add a job: write `functions/<job>.ts` (see the README), then import
 * its handler and add one entry below.
 */
import { defineRegistry, registryTables } from '../lib/runtime/registry.js';
import { handler as dailyReport } from './daily-report.js';
import { handler as merchantSettlement } from './merchant-settlement.js';

export type { RegisteredJob as JobEntry } from '../lib/runtime/registry.js';

/**
 * Every job of the app: its handler and the file exporting it. What each body uses (the application
 * tables it writes, with which `ctx` calls, and whether it records effects: the role gets exactly that)
 * is declared in its own `defineJob({ uses })`.
 */
export const jobs = defineRegistry([
  { handler: dailyReport, entry: 'functions/daily-report.ts' },
  { handler: merchantSettlement, entry: 'functions/merchant-settlement.ts' },
]);

/** Every application table the jobs use (created by `npm start` and the CDK app). */
export const tables = registryTables(jobs);

/** Job handlers by name (what `cronfence --jobs <module>` also accepts). */
export const handlers = Object.fromEntries(jobs.map((j) => [j.definition.name, j.handler]));
