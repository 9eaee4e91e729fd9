/**
 * Synthesis helpers for the cdk test project. Bundling makes synth the slow part, so each test
 * file synthesizes once (beforeAll) and asserts on the result.
 */

import { join } from 'node:path';
import { App, type CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { Sweeper } from '../../cdk/constructs/sweeper.js';
import { CronfenceStack, type CronfenceStackProps } from '../../cdk/stack.js';
import { jobs, tables } from '../../functions/index.js';

/** Reference instant for DST warnings, so the named dates do not move with the calendar. */
export const NOW = new Date('2026-01-15T00:00:00Z');

/** The props cdk/app.ts passes: the registry's jobs and tables (and cronfence's own sweeper entry). */
export function exampleProps(): CronfenceStackProps {
  return { jobs, applicationTables: tables, now: NOW };
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

/** The stack's sweeper (always present in the example app). */
export function sweeperOf(synth: Synthesized): Sweeper {
  if (!synth.stack.cronfence.sweeper) throw new Error('the example stack has no sweeper');
  return synth.stack.cronfence.sweeper;
}

/** The cloud-assembly directory holding a function's bundled asset. */
export function assetDirOf(synth: Synthesized, owner: { function: IConstruct }): string {
  const code = synth.stack.resolve((owner.function.node.defaultChild as CfnFunction).code) as {
    s3Key: string;
  };
  return join(synth.app.synth().directory, `asset.${code.s3Key.replace(/\.zip$/, '')}`);
}

/** The logical id of a construct's CloudFormation resource. */
export function logicalId(synth: Synthesized, construct: IConstruct): string {
  return synth.stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

/** Every cdk-nag acknowledgement (`Validations.of(x).acknowledge`) under `root`. */
export function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id,
          reason,
        })),
      ),
  );
}
