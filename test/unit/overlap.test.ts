/** unit: the `overlap` job option — normalized defaults, and each bad value refused naming its field. */
import { describe, expect, it } from 'vitest';
import { parseJobDefinition } from '../../lib/core/job-definition-schema.js';
import {
  DEFAULT_WAITING_PROBLEM_AFTER_SECONDS,
  MAX_BUFFERED,
  overlapOf,
  storedOverlap,
} from '../../lib/core/overlap.js';
import { InvalidJobDefinitionError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const hourly = {
  name: 'hourly',
  schedule: 'cron(0 * * * ? *)',
  lease: { durationSeconds: 30 },
  timeoutSeconds: 120,
};

function errorOf(overlap: unknown): InvalidJobDefinitionError {
  try {
    parseJobDefinition({ ...hourly, overlap }, NOW);
  } catch (error) {
    if (error instanceof InvalidJobDefinitionError) return error;
    throw error;
  }
  throw new Error('the definition was accepted');
}

describe('overlapOf', () => {
  it('is skip, with today’s behaviour, when the option is absent, and the definition stores nothing', () => {
    expect(overlapOf({})).toEqual({
      policy: 'skip',
      maxBuffered: 0,
      replaceAfterSeconds: 0,
      waitingProblemAfterSeconds: DEFAULT_WAITING_PROBLEM_AFTER_SECONDS,
    });
    expect(parseJobDefinition(hourly, NOW).definition).not.toHaveProperty('overlap');
    expect(parseJobDefinition({ ...hourly, overlap: 'skip' }, NOW).definition).not.toHaveProperty('overlap');
  });

  it.each([
    ['buffer-one', { policy: 'buffer-one', maxBuffered: 1 }],
    [
      { policy: 'buffer-all', maxBuffered: 3 },
      { policy: 'buffer-all', maxBuffered: 3 },
    ],
    ['replace', { policy: 'replace', replaceAfterSeconds: 0 }],
    [
      { policy: 'replace', replaceAfterSeconds: 90 },
      { policy: 'replace', replaceAfterSeconds: 90 },
    ],
    // two periods of an hourly cron
    ['after-previous', { policy: 'after-previous', waitingProblemAfterSeconds: 7200 }],
    [
      { policy: 'after-previous', waitingProblemAfterSeconds: 600 },
      { policy: 'after-previous', waitingProblemAfterSeconds: 600 },
    ],
  ])('stores %j as %j on the definition', (overlap, stored) => {
    const { definition } = parseJobDefinition({ ...hourly, overlap }, NOW);
    expect(definition.overlap).toEqual(stored);
    // parsing the validated definition again is the identity
    expect(parseJobDefinition(definition, NOW).definition).toEqual(definition);
    expect(storedOverlap(overlapOf(definition))).toEqual(stored);
  });

  it('fills the normalized fields for buffer-all', () => {
    expect(overlapOf({ overlap: { policy: 'buffer-all', maxBuffered: MAX_BUFFERED } })).toEqual({
      policy: 'buffer-all',
      maxBuffered: 24,
      replaceAfterSeconds: 0,
      waitingProblemAfterSeconds: 86_400,
    });
  });

  it.each([
    ['cron(30 2 * * ? *)', 172_800],
    ['rate(15 minutes)', 1_800],
  ])('defaults waitingProblemAfterSeconds of %s to two periods: %i s', (schedule, seconds) => {
    const { definition } = parseJobDefinition({ ...hourly, schedule, overlap: 'after-previous' }, NOW);
    expect(definition.overlap?.waitingProblemAfterSeconds).toBe(seconds);
  });

  it.each([
    ['nope', 'overlap', 'nope', 'must be one of skip, buffer-one, buffer-all, replace, after-previous'],
    [{ policy: 'Skip' }, 'overlap.policy', 'Skip', 'must be one of skip'],
    [7, 'overlap', 7, 'must be a policy name'],
    [
      { policy: 'buffer-all' },
      'overlap.maxBuffered',
      undefined,
      'buffer-all requires an integer from 1 to 24',
    ],
    [{ policy: 'buffer-all', maxBuffered: 25 }, 'overlap.maxBuffered', 25, 'from 1 to 24'],
    [{ policy: 'buffer-all', maxBuffered: 1.5 }, 'overlap.maxBuffered', 1.5, 'from 1 to 24'],
    [{ policy: 'buffer-all', maxBuffered: 0 }, 'overlap.maxBuffered', 0, 'from 1 to 24'],
    [{ policy: 'buffer-one', maxBuffered: 2 }, 'overlap.maxBuffered', 2, 'use policy buffer-all'],
    [
      { policy: 'skip', maxBuffered: 2 },
      'overlap.maxBuffered',
      2,
      'applies to policy buffer-one or buffer-all only',
    ],
    [{ policy: 'replace', maxBuffered: 1 }, 'overlap.maxBuffered', 1, 'policy is replace'],
    [
      { policy: 'buffer-one', replaceAfterSeconds: 5 },
      'overlap.replaceAfterSeconds',
      5,
      'policy replace only',
    ],
    [
      { policy: 'replace', replaceAfterSeconds: -1 },
      'overlap.replaceAfterSeconds',
      -1,
      '≥ 0 and < timeoutSeconds (120)',
    ],
    [
      { policy: 'replace', replaceAfterSeconds: 120 },
      'overlap.replaceAfterSeconds',
      120,
      '< timeoutSeconds (120)',
    ],
    [
      { policy: 'skip', waitingProblemAfterSeconds: 60 },
      'overlap.waitingProblemAfterSeconds',
      60,
      'after-previous only',
    ],
    [
      { policy: 'after-previous', waitingProblemAfterSeconds: 0 },
      'overlap.waitingProblemAfterSeconds',
      0,
      '> 0',
    ],
    [{ policy: 'buffer-all', maxbuffered: 2 }, 'overlap.maxbuffered', 2, 'did you mean overlap.maxBuffered?'],
  ])('refuses %j naming %s = %j', (overlap, field, value, problem) => {
    const e = errorOf(overlap);
    expect(e.field).toBe(field);
    expect(e.value).toEqual(value);
    expect(e.message).toContain(problem);
  });

  it('is validated by defineJob at definition time and carried on handler.job', () => {
    const handler = defineJob({
      ...hourly,
      overlap: { policy: 'buffer-all', maxBuffered: 2 },
      run: async () => 1,
    });
    expect(handler.job.overlap).toEqual({ policy: 'buffer-all', maxBuffered: 2 });
    expect(() =>
      defineJob({ ...hourly, overlap: { policy: 'buffer-all' } as never, run: async () => 1 }),
    ).toThrow('invalid job definition: "overlap.maxBuffered" = undefined: buffer-all requires an integer');
  });
});
