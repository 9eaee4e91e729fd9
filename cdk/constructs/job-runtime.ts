/**
 * Which runtime a job runs on, and its definition as the job schema validates it. The one place the
 * constructs read `definition.runtime` (`'lambda' | 'ecs'`, default `'lambda'`).
 */
import type { JobDefinition } from '../../lib/core/job-definition.js';
import { parseJobDefinition } from '../../lib/core/job-definition-schema.js';
import { InvalidJobDefinitionError } from '../../lib/errors.js';

/** Where a job's body runs: a Lambda invocation, or an ECS Fargate task. */
export type JobRuntime = 'lambda' | 'ecs';

/** The job's runtime: `definition.runtime`, `'lambda'` when absent. */
export function jobRuntimeOf(definition: JobDefinition): JobRuntime {
  return (definition as { readonly runtime?: unknown }).runtime === 'ecs' ? 'ecs' : 'lambda';
}

/**
 * The definition as the job schema takes it: whole when the schema knows the `runtime` option, else
 * without it (a schema that validates the Lambda fields only). Used where a definition is validated
 * or compiled into a bundle that validates it again (the sweeper).
 */
export function schemaDefinition(definition: JobDefinition): JobDefinition {
  if (!('runtime' in definition)) return definition;
  try {
    parseJobDefinition(definition, 0);
    return definition;
  } catch (error) {
    if (!(error instanceof InvalidJobDefinitionError) || error.field !== 'runtime') return definition;
    const { runtime: _runtime, ...rest } = definition as JobDefinition & { runtime?: unknown };
    return rest;
  }
}
