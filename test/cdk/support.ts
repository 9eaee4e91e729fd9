/**
 * Synthesis helpers for the cdk test project. Bundling makes synth the slow part, so each test
 * file synthesizes once (beforeAll) and asserts on the result.
 */

import { existsSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CronfenceStack, type CronfenceStackProps } from '../../cdk/stack.js';
import { jobs } from '../../functions/index.js';
import { exampleTables } from '../../functions/tables.js';
import { FIXTURE_SWEEPER } from './fixtures/jobs.js';

/** Reference instant for DST warnings, so the named dates do not move with the calendar. */
export const NOW = new Date('2026-01-15T00:00:00Z');

/** The props cdk/app.ts passes: the example jobs and tables (a fixture sweeper until functions/sweeper.ts exists). */
export function exampleProps(): CronfenceStackProps {
  const sweeper = existsSync('functions/sweeper.ts') ? {} : { sweeperEntry: FIXTURE_SWEEPER };
  return { jobs, applicationTables: exampleTables, ...sweeper, now: NOW };
}

/** A synthesized stack with its app and template. */
export interface Synthesized {
  readonly app: App;
  readonly stack: CronfenceStack;
  readonly template: Template;
}

/**
 * Build and synthesize a CronfenceStack. `bundle: false` skips esbuild (the CDK
 * `aws:cdk:bundling-stacks` context), for tests that only check validation.
 */
export function synthesize(
  props: CronfenceStackProps = exampleProps(),
  options: { bundle?: boolean } = {},
): Synthesized {
  const app = new App(options.bundle === false ? { context: { 'aws:cdk:bundling-stacks': [] } } : {});
  const stack = new CronfenceStack(app, 'CronfenceTest', props);
  return { app, stack, template: Template.fromStack(stack) };
}

/** Build a stack without bundling and return what the constructor threw (or undefined). */
export function synthError(props: CronfenceStackProps): Error | undefined {
  try {
    synthesize(props, { bundle: false });
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
