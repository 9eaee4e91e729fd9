/** unit: the one job schema — defineJob, synth (validateJobForDeploy) and `cronfence check` give one verdict and message. */
import { describe, expect, it } from 'vitest';
import { validateJobForDeploy } from '../../cdk/constructs/scheduled-job.js';
import { reportsTable } from '../../functions/tables.js';
import { ianaSpelling } from '../../lib/core/job-definition.js';
import { minLeaseSeconds, parseJobDefinition } from '../../lib/core/job-definition-schema.js';
import { ConfigurationError, InvalidJobDefinitionError, InvalidScheduleError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import { parseSweeperJobs } from '../../lib/runtime/sweeper-handler.js';
import { declaredUses } from '../../lib/store/job-access.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const ok = {
  name: 'nightly',
  schedule: 'cron(30 2 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 30 },
  run: async () => undefined,
};

function definitionError(patch: Record<string, unknown>): Error {
  try {
    defineJob({ ...ok, ...patch });
  } catch (error) {
    return error as Error;
  }
  throw new Error('defineJob accepted the definition');
}

describe('one schema for defineJob and synth', () => {
  it.each([
    [
      'a fractional timeout (passed defineJob and failed synth before)',
      { timeoutSeconds: 90.5 },
      'invalid job definition: "timeoutSeconds" = 90.5: must be an integer 1-900 (the Lambda maximum), or up to 604800 with runtime: \'ecs\'',
    ],
    [
      'a Lambda job with a 2 h timeout',
      { timeoutSeconds: 7200 },
      'invalid job definition: "timeoutSeconds" = 7200: must be an integer 1-900 (the Lambda maximum) for a Lambda job; a job that runs longer runs as an ECS Fargate task: set runtime: \'ecs\' (its timeoutSeconds, up to 604800, is enforced by the runtime)',
    ],
    [
      'an ECS job with a deadline above 7 days',
      { runtime: 'ecs', timeoutSeconds: 604801 },
      'invalid job definition: "timeoutSeconds" = 604801: must be an integer 1-900 (the Lambda maximum), or up to 604800 with runtime: \'ecs\'',
    ],
    [
      'an unknown runtime',
      { runtime: 'batch' },
      'invalid job definition: "runtime" = "batch": must be "lambda" or "ecs"',
    ],
    [
      "an ECS job's lease longer than its deadline",
      { runtime: 'ecs', lease: { durationSeconds: 120 }, timeoutSeconds: 60 },
      'invalid job definition: "lease.durationSeconds" = 120: must be <= the job\'s deadline (timeoutSeconds = 60): a lease must not outlive the task\'s deadline',
    ],
    [
      'a 0.5 s lease (below the 1.8 s minimum of docs/clock-skew.md)',
      { lease: { durationSeconds: 0.5 } },
      'invalid job definition: "lease.durationSeconds" = 0.5: must be > 1.8 s: the renewal sent at renewFraction × lease (0.333) must land before the lease ends minus the clock-skew budget (0.2 s), allowing 1 s for the renewal and its retries: lease > (0.2 s + 1 s) / (1 − 0.333) (docs/clock-skew.md); use at least 10 s',
    ],
    [
      'a 1 s lease renewed at 0.9 of it (minimum 12 s)',
      { lease: { durationSeconds: 1, renewFraction: 0.9 } },
      'invalid job definition: "lease.durationSeconds" = 1: must be > 12 s: the renewal sent at renewFraction × lease (0.9) must land before the lease ends minus the clock-skew budget (0.2 s), allowing 1 s for the renewal and its retries: lease > (0.2 s + 1 s) / (1 − 0.9) (docs/clock-skew.md); use at least 10 s',
    ],
    [
      'a lease longer than the timeout',
      { lease: { durationSeconds: 120 }, timeoutSeconds: 60 },
      'invalid job definition: "lease.durationSeconds" = 120: must be <= the function timeout (timeoutSeconds = 60): a lease must not outlive the Lambda that holds it',
    ],
    [
      'a rate anchor off the one-minute grid',
      { schedule: 'rate(1 day)', rateAnchor: '2026-01-01T00:00:30Z' },
      'invalid job definition: "rateAnchor" = "2026-01-01T00:00:30Z": must be a whole minute (Scheduler invokes on a one-minute grid), e.g. 2026-01-01T00:00:00Z',
    ],
    [
      'a rate anchor on a cron',
      { rateAnchor: '2026-01-01T00:00:00Z' },
      'invalid job definition: "rateAnchor" = "2026-01-01T00:00:00Z": only a rate() schedule has a rate grid; cron(30 2 * * ? *) fires at its own times',
    ],
    [
      'a catch-up since that is not an instant',
      { catchUp: { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3, since: '2026-11-04 14:00' } },
      'invalid job definition: "catchUp.since" = "2026-11-04 14:00": must be a Date or an ISO-8601 instant such as "2026-11-03T14:00:00Z"',
    ],
    [
      'an id that is not a job name',
      { id: 'settle#v1' },
      'invalid job definition: "id" = "settle#v1": must be 1-64 characters of A-Z a-z 0-9 _ -, starting with a letter',
    ],
    // Intl takes any letter case; Scheduler's ScheduleExpressionTimezone takes the IANA spelling only.
    [
      'a lower-case zone (Intl takes it, Scheduler does not)',
      { timeZone: 'europe/berlin' },
      'invalid job definition: "timeZone" = "europe/berlin": must be spelt as IANA spells it, "Europe/Berlin" (EventBridge Scheduler\'s ScheduleExpressionTimezone is case-sensitive)',
    ],
    [
      'a zone with one part mis-cased',
      { timeZone: 'America/port-au-prince' },
      'invalid job definition: "timeZone" = "America/port-au-prince": must be spelt as IANA spells it, "America/Port-au-Prince" (EventBridge Scheduler\'s ScheduleExpressionTimezone is case-sensitive)',
    ],
    [
      'a non-integer shard count',
      { shards: 2.5 },
      'invalid job definition: "shards" = 2.5: must be an integer from 1 to 1000',
    ],
  ])('refuses %s with the same message at definition and at synth', (_what, patch, message) => {
    const error = definitionError(patch);
    expect(error).toBeInstanceOf(InvalidJobDefinitionError);
    expect(error.message).toBe(`job "nightly": ${message}`);
    const { run: _run, ...options } = { ...ok, ...patch };
    const asDefinition = { ...options } as never;
    expect(() => validateJobForDeploy(asDefinition, new Date(NOW))).toThrow(
      `cronfence: job "nightly": ${message}`,
    );
  });

  it.each([['cron(0 0 30 2 ? *)'], ['cron(0 0 31 4,6,9,11 ? *)']])(
    'refuses %s, which matches no date and would never fire, naming the expression',
    (schedule) => {
      const error = definitionError({ schedule });
      expect(error).toBeInstanceOf(InvalidScheduleError);
      expect(error.message).toBe(
        `job "nightly": invalid schedule "${schedule}": fields: no date from 1970 to 2199 matches day-of-month, month, day-of-week and year together: the schedule would never fire`,
      );
    },
  );

  it.each([
    [
      { catchup: { mode: 'all', windowHours: 24 } },
      'job "nightly": invalid job definition: "catchup" = {"mode":"all","windowHours":24}: unknown option catchup — did you mean catchUp?',
    ],
    [
      { timeout: 60 },
      'job "nightly": invalid job definition: "timeout" = 60: unknown option timeout — did you mean timeoutSeconds?',
    ],
    [
      { timezone: 'UTC' },
      'job "nightly": invalid job definition: "timezone" = "UTC": unknown option timezone — did you mean timeZone?',
    ],
    [
      { lease: { durationSeconds: 30, renewfraction: 0.5 } },
      'job "nightly": invalid job definition: "lease.renewfraction" = 0.5: unknown option lease.renewfraction — did you mean lease.renewFraction?',
    ],
    [
      { catchUp: { mode: 'all', windowHours: 24, maxSlotsPerSweep: 4, maxSlots: 4 } },
      'job "nightly": invalid job definition: "catchUp.maxSlots" = 4: unknown option catchUp.maxSlots — did you mean catchUp.maxSlotsPerSweep?',
    ],
  ])('refuses an unknown option %j at defineJob, naming the nearest known one', (patch, message) => {
    const error = definitionError(patch);
    expect(error).toBeInstanceOf(InvalidJobDefinitionError);
    expect(error.message).toBe(message);
  });

  it.each([
    [
      { uses: { tables: [{ table: reportsTable, writes: ['put'] }] } },
      'job "nightly": invalid job definition: "uses.tables.0.writes.0" = "put": must be "fencedPut" or "insertOnce"',
    ],
    [
      { uses: { tables: [{ table: reportsTable, writes: [] }] } },
      'job "nightly": invalid job definition: "uses.tables.0.writes" = []: must name at least one write ("fencedPut", "insertOnce")',
    ],
    [
      { uses: { tables: [{ table: 'reports', writes: ['fencedPut'] }] } },
      'job "nightly": invalid job definition: "uses.tables.0.table" = "reports": must be a TableSchema { defaultName, envVar, partitionKey, ... }',
    ],
  ])('refuses a malformed uses %j at defineJob, naming the field', (patch, message) => {
    expect(definitionError(patch).message).toBe(message);
  });

  it.each([
    [
      { effects: 'runner' },
      'job "nightly": invalid job definition: "effects" = "runner": must be effectRunner from cronfence',
    ],
    [
      { uses: { effects: true } },
      'job "nightly": invalid job definition: "effects" = undefined: uses.effects declares ctx.effect calls: name the effect runner, effects: effectRunner from cronfence',
    ],
  ])('refuses effects %j at defineJob, naming the field', (patch, message) => {
    const error = definitionError(patch);
    expect(error).toBeInstanceOf(InvalidJobDefinitionError);
    expect(error.message).toBe(message);
  });

  it('keeps the declared uses on the handler and its definition (where the CDK reads it)', () => {
    const uses = { tables: [{ table: reportsTable, writes: ['fencedPut' as const] }], effects: true };
    const h = defineJob({ ...ok, uses, effects: effectRunner });
    expect(h.uses).toEqual(uses);
    expect(declaredUses(h.job)).toEqual(uses);
    expect(Object.keys(h.job)).not.toContain('uses');
    expect(defineJob(ok).uses).toBeUndefined();
  });

  it('accepts a lease just above the minimum and derives the minimum from renewFraction', () => {
    expect(minLeaseSeconds(1 / 3)).toBe(1.8);
    expect(minLeaseSeconds(0.5)).toBe(2.4);
    expect(minLeaseSeconds(0.9)).toBe(12);
    expect(defineJob({ ...ok, lease: { durationSeconds: 1.9 } }).job.lease.durationSeconds).toBe(1.9);
  });

  it('accepts an ECS job with an 8 h deadline and keeps its runtime; a Lambda job defaults to lambda', () => {
    const ecs = defineJob({ ...ok, runtime: 'ecs', timeoutSeconds: 8 * 3600 }).job;
    expect([ecs.runtime, ecs.timeoutSeconds]).toEqual(['ecs', 28_800]);
    expect(parseJobDefinition(ecs, NOW).definition).toEqual(ecs);
    expect(defineJob(ok).job.runtime).toBe('lambda');
  });

  it('is the identity on a definition it produced (synth re-checks handler.job)', () => {
    const { definition } = parseJobDefinition(
      { ...ok, schedule: 'rate(1 day)', rateAnchor: new Date('2026-01-01T22:30:00Z') },
      NOW,
    );
    expect(definition.rateAnchorMs).toBe(Date.parse('2026-01-01T22:30:00Z'));
    expect(parseJobDefinition(definition, NOW).definition).toEqual(definition);
  });

  it('keeps catchUp.since as sinceMs and id beside the name, and is the identity on the result', () => {
    const { definition } = parseJobDefinition(
      {
        ...ok,
        name: 'settle',
        id: 'settle-v1',
        catchUp: { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3, since: '2026-11-04T14:00:00Z' },
      },
      NOW,
    );
    expect(definition.id).toBe('settle-v1');
    expect(definition.catchUp).toEqual({
      mode: 'all',
      windowHours: 72,
      maxSlotsPerSweep: 3,
      sinceMs: Date.parse('2026-11-04T14:00:00Z'),
    });
    expect(parseJobDefinition(definition, NOW).definition).toEqual(definition);
    expect(parseJobDefinition({ ...ok, id: 'nightly' }, NOW).definition.id).toBeUndefined();
  });

  it('gives a rate job the Unix-epoch grid by default', () => {
    expect(defineJob({ ...ok, schedule: 'rate(5 minutes)' }).job.rateAnchorMs).toBe(0);
  });
});

describe("the sweeper's environment is configuration, not a job definition", () => {
  it.each([
    [
      undefined,
      'invalid configuration: CRONFENCE_JOBS = undefined: must be a JSON array of {"name","functionArn"?,"startMs"?,"ecs"?}',
    ],
    [
      '{"name":"x"}',
      'invalid configuration: CRONFENCE_JOBS = {"name":"x"}: must be a JSON array of {"name","functionArn"?,"startMs"?,"ecs"?}',
    ],
    [
      '[{"name":"a#b","functionArn":"arn"}]',
      'invalid configuration: CRONFENCE_JOBS[0]["name"] = "a#b": must be 1-64 characters of A-Z a-z 0-9 _ -, starting with a letter',
    ],
    [
      '[{"name":"ok","functionArn":"arn","startMs":1.5}]',
      'invalid configuration: CRONFENCE_JOBS[0]["startMs"] = 1.5: must be epoch ms',
    ],
  ])('refuses %s with ConfigurationError naming the variable', (raw, message) => {
    let caught: unknown;
    try {
      parseSweeperJobs(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    expect(caught).not.toBeInstanceOf(InvalidJobDefinitionError);
    expect((caught as Error).message).toBe(message);
  });

  it('a missing CRONFENCE_TABLE is a configuration error too', () => {
    const saved = process.env.CRONFENCE_TABLE;
    delete process.env.CRONFENCE_TABLE;
    try {
      expect(() => createDeps()).toThrow(
        new ConfigurationError(
          'CRONFENCE_TABLE',
          undefined,
          'environment variable naming the library table is not set',
        ),
      );
      expect(() => createDeps()).toThrow(
        'invalid configuration: CRONFENCE_TABLE = undefined: environment variable naming the library table is not set',
      );
    } finally {
      if (saved !== undefined) process.env.CRONFENCE_TABLE = saved;
    }
  });
});

describe('the IANA spelling of a zone', () => {
  it.each([
    ['Europe/Berlin', 'Europe/Berlin'],
    ['UTC', 'UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
    ['etc/gmt+5', 'Etc/GMT+5'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
  ])('of %s is %s', (zone, spelt) => {
    expect(ianaSpelling(zone)).toBe(spelt);
  });
});
