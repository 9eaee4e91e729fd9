/**
 * Which runtime a job runs on: the one place the constructs read `definition.runtime`
 * (`'lambda' | 'ecs'`, always set by the job schema; `'lambda'` by default).
 */
import type { JobDefinition } from '../../lib/core/job-definition.js';

/** Where a job's body runs: a Lambda invocation, or an ECS Fargate task. */
export type JobRuntime = JobDefinition['runtime'];

/** The job's runtime (`definition.runtime`). */
export function jobRuntimeOf(definition: JobDefinition): JobRuntime {
  return definition.runtime;
}
