/**
 * integ (DynamoDB Local): trigger and backfill of an ECS job without `--local`. The job has no Lambda
 * function (its deployed runs are ECS tasks), so both refuse before anything is sent — no Lambda client
 * call, no lease change, no run record — with a message naming the ECS runtime and what to do instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMessage } from '../../cli/flags.js';
import { handler as nightlyExport } from '../../functions/nightly-export.js';
import { ErrorCategory } from '../../lib/core/error-model.js';
import { InvalidArgumentError } from '../../lib/core/input-errors.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { operatorOn, rejection } from './operate-harness.js';

let stack: LocalStack;
let op: Operator;
const job = nightlyExport.job.name;
const by = 'ops-alice';
const advice =
  "runs on the ECS runtime (runtime: 'ecs'): it has no Lambda function to invoke, and this command does not start ECS tasks. Pass `local: true` to run its handler in this process against the same table, or start one task of its task definition with ECS RunTask";

beforeAll(async () => {
  stack = await localStack();
  op = operatorOn(stack, { jobs: [nightlyExport] });
});
afterAll(() => op?.close());

describe('trigger and backfill of an ECS job', () => {
  it.each([
    [
      'trigger, invoking AWS',
      () => op.job(job).trigger({ invokeAws: true, requestedBy: by, reason: 'r' }),
      'local',
      '(not given)',
    ],
    [
      'trigger with --function',
      () => op.job(job).trigger({ functionName: `cronfence-${job}`, requestedBy: by, reason: 'r' }),
      'functionName',
      `cronfence-${job}`,
    ],
    [
      'backfill, invoking AWS',
      () =>
        op
          .job(job)
          .backfill({ from: '2026-03-27', to: '2026-03-28', invokeAws: true, requestedBy: by, reason: 'r' }),
      'local',
      '(not given)',
    ],
  ])('refuses %s before anything is sent, naming the ECS runtime', async (_what, call, field, value) => {
    const leaseBefore = JSON.stringify(await op.job(job).lease());
    const err = await rejection(call());
    expect(err).toBeInstanceOf(InvalidArgumentError);
    const e = err as InvalidArgumentError;
    expect([e.argument, e.value, e.category]).toEqual([field, value, ErrorCategory.Input]);
    expect(err.message).toContain(`job "${job}" ${advice}`);
    // The CLI names the flags: --local, --function.
    expect(cliMessage(err)).toContain('Pass --local to run its handler');
    expect(await stack.runRecords(job)).toEqual([]);
    expect(JSON.stringify(await op.job(job).lease())).toBe(leaseBefore);
  });
});
