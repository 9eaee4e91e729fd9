/** An app of ECS jobs for the cdk and IAM tests: the example jobs, deployed with `runtime: 'ecs'`. */

import type { JobEntry } from '../../cdk/constructs/cronfence-jobs.js';
import type { CronfenceStackProps } from '../../cdk/stack.js';
import { jobs, tables } from '../../functions/index.js';
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { NOW } from './support.js';

/** A job definition with `runtime: 'ecs'` (its non-enumerable `uses` kept). */
export function asEcs(definition: JobDefinition): JobDefinition {
  const copy = Object.create(
    Object.getPrototypeOf(definition),
    Object.getOwnPropertyDescriptors(definition),
  ) as JobDefinition & { runtime?: string };
  copy.runtime = 'ecs';
  return copy;
}

/** The registry's jobs (or those named) as ECS jobs, with `ecs` options. */
export function ecsEntries(names?: readonly string[], ecs: JobEntry['ecs'] = {}): JobEntry[] {
  return jobs
    .filter((j) => names === undefined || names.includes(j.definition.name))
    .map((j) => ({ ...j, definition: asEcs(j.definition), ecs: { ...ecs } }));
}

/** Stack props of an app whose jobs are the given ECS jobs. */
export function ecsProps(entries: readonly JobEntry[]): CronfenceStackProps {
  return { jobs: entries, applicationTables: tables, now: NOW };
}
