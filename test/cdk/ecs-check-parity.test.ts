/**
 * cdk: an ECS job with shards is refused by synth and by `cronfence check` (checkJob) in the same
 * words, so the check an operator runs before a deploy says what the deploy would say.
 */
import { describe, expect, it } from 'vitest';
import type { JobEntry } from '../../cdk/constructs/cronfence-jobs.js';
import { checkJob, ecsShardsProblem } from '../../lib/core/job-check.js';
import { ecsEntries, ecsProps } from './ecs-support.js';
import { NOW, synthError } from './support.js';

describe('an ECS job with shards', () => {
  it.each([2, 3, 10])('is refused with shards = %i by synth and by check, in the same words', (shards) => {
    const [entry] = ecsEntries(['merchant-settlement']) as [JobEntry];
    const definition = Object.create(Object.getPrototypeOf(entry.definition), {
      ...Object.getOwnPropertyDescriptors(entry.definition),
      shards: { value: shards, enumerable: true },
    }) as JobEntry['definition'];
    const problem = `shards = ${shards}: an ECS job runs unsharded (fan-out invokes Lambda shards)`;
    expect(ecsShardsProblem(shards)).toBe(problem);
    expect(synthError(ecsProps([{ ...entry, definition }]))?.message).toBe(
      `cronfence: job "merchant-settlement" at CronfenceTest/Default/merchant-settlement: ${problem}`,
    );
    expect(checkJob(definition, NOW.getTime()).errors).toEqual([{ code: 'runtime', message: problem }]);
  });

  it('is not refused by check when it has one shard', () => {
    const [entry] = ecsEntries(['merchant-settlement']) as [JobEntry];
    expect(checkJob(entry.definition, NOW.getTime()).errors).toEqual([]);
  });
});
