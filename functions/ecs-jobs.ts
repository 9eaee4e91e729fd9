/**
 * The example app's ECS jobs module: what an ECS job's container names in `CRONFENCE_JOBS_MODULE`
 * (the task entry finds `CRONFENCE_JOB` among its `handlers`), and what `npm start -- --ecs` runs.
 */
import type { EcsLocalApp } from '../harness/local/run-ecs-local.js';
import { exportEmailKey, handler as nightlyExport } from './nightly-export.js';
import { exportsTable } from './tables.js';

export const handlers = [nightlyExport];

const PARTS = 6;

/** `npm start -- --ecs`: the nightly export with 6 parts of 400 ms. */
export const ecsLocalApp: EcsLocalApp = {
  handler: nightlyExport,
  jobsModule: 'functions/ecs-jobs.ts',
  table: exportsTable,
  env: { EXPORT_PARTS: String(PARTS), EXPORT_PART_MS: '400' },
  rowsPerOccurrence: PARTS + 1,
  emailKey: exportEmailKey,
};
