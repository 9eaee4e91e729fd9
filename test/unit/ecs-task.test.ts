/**
 * unit: the ECS task's inputs (the occurrence, its environment) and its deadline. Bad input exits 2
 * before any store is touched; the run itself is drilled with child processes in
 * test/integ/ecs-task-drills.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { exportJob } from '../../functions/nightly-export.js';
import { InvalidEventError } from '../../lib/errors.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { parseOccurrence } from '../../lib/runtime/ecs-occurrence.js';
import { runEcsTask, STOP_RESERVE_MS, taskContext } from '../../lib/runtime/ecs-task-session.js';

const OK = '{"scheduledTime":"2026-06-01T23:30:00Z","attempt":"2","executionId":"e-1","trigger":"schedule"}';

describe('the occurrence of an ECS task (CRONFENCE_OCCURRENCE)', () => {
  it('reads scheduled time, attempt, execution id and trigger as the Lambda payload rules do (attempt 2: a retry)', () => {
    expect(parseOccurrence('nightly-export', OK)).toEqual({
      job: 'nightly-export',
      scheduledTimeMs: Date.parse('2026-06-01T23:30:00Z'),
      trigger: 'retry',
      executionId: 'e-1',
      attemptNumber: 2,
    });
  });

  it('takes a backfill as a manual run by its requester', () => {
    const e = parseOccurrence(
      'nightly-export',
      '{"scheduledTime":"2026-06-01T23:30:00Z","trigger":"backfill","requestedBy":"ops@example.com"}',
    );
    expect([e.trigger, e.requestedBy, e.reason]).toEqual(['manual', 'ops@example.com', 'backfill']);
  });

  it.each([
    [
      undefined,
      'invalid event: field "CRONFENCE_OCCURRENCE" = undefined: is not set: the task needs the occurrence JSON {"scheduledTime","attempt","executionId","trigger"} (the schedule target or the sweeper sets it)',
    ],
    [
      '{"scheduledTime":',
      'invalid event: field "CRONFENCE_OCCURRENCE" = "{\\"scheduledTime\\":": is not JSON',
    ],
    [
      '[1]',
      'invalid event: field "CRONFENCE_OCCURRENCE" = [1]: is not a JSON object {"scheduledTime","attempt","executionId","trigger"}',
    ],
    [
      '{"scheduledTime":"2026-06-01T23:30:00Z","atempt":1}',
      'invalid event: field "CRONFENCE_OCCURRENCE.atempt" = 1: is not an occurrence field (known: scheduledTime, attempt, executionId, trigger, slot, requestedBy, reason)',
    ],
    [
      '{"scheduledTime":"2026-06-01T23:30:00Z","trigger":"cron"}',
      'invalid event: field "CRONFENCE_OCCURRENCE.trigger" = "cron": must be one of "schedule", "catch-up", "manual", "backfill"',
    ],
    [
      '{"attempt":1}',
      'invalid event: field "CRONFENCE_OCCURRENCE.scheduledTime" = undefined: is required: the slot comes from <aws.scheduler.scheduled-time>, never from "now"',
    ],
    [
      '{"scheduledTime":"2026-06-01T23:30:00Z","attempt":"0x2"}',
      'invalid event: field "CRONFENCE_OCCURRENCE.attempt" = "0x2": must be a whole number in decimal digits, e.g. "1"',
    ],
    [
      '{"scheduledTime":"2026-06-31T23:30:00Z"}',
      'invalid event: field "CRONFENCE_OCCURRENCE.scheduledTime" = "2026-06-31T23:30:00Z": is not a real date and time',
    ],
    [
      '{"scheduledTime":"2026-06-01T23:30:00Z","trigger":"backfill"}',
      'invalid event: field "CRONFENCE_OCCURRENCE.requestedBy" = undefined: is required for a backfill run (who asked for it)',
    ],
  ])('refuses %s naming the field and value', (raw, message) => {
    let caught: unknown;
    try {
      parseOccurrence('nightly-export', raw);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidEventError);
    expect((caught as Error).message).toBe(message);
  });
});

/** Deps whose every store call fails the test: bad input must touch nothing. */
const untouchable = new Proxy({} as RuntimeDeps, {
  get: (_t, key) => {
    if (key === 'clock') return { now: () => Date.parse('2026-12-01T00:00:00Z') };
    throw new Error(`deps.${String(key)} touched`);
  },
});

const lambdaJob = defineJob({
  name: 'hourly',
  schedule: 'cron(0 * * * ? *)',
  lease: { durationSeconds: 30 },
  run: async () => undefined,
});

describe('runEcsTask with bad input', () => {
  const env = {
    CRONFENCE_TABLE: 'library',
    CRONFENCE_JOBS_MODULE: './jobs.js',
    CRONFENCE_JOB: 'nightly-export',
    CRONFENCE_OCCURRENCE: OK,
  };
  const handlers = [exportJob(), lambdaJob];

  it.each([
    [
      { CRONFENCE_JOB: undefined },
      'invalid configuration: CRONFENCE_JOB = undefined: is not set (the ECS job construct sets it on the container)',
    ],
    [
      { CRONFENCE_JOB: 'nightly' },
      'invalid configuration: CRONFENCE_JOB = "nightly": is not a job of ./jobs.js (known: "nightly-export", "hourly")',
    ],
    [
      { CRONFENCE_JOB: 'hourly' },
      `invalid configuration: CRONFENCE_JOB = "hourly": is a lambda job: only a job defined with runtime: 'ecs' runs as an ECS task (its timeoutSeconds is then the task's own deadline)`,
    ],
    [
      { CRONFENCE_OCCURRENCE: '{}' },
      'invalid event: field "CRONFENCE_OCCURRENCE.scheduledTime" = undefined: is required: the slot comes from <aws.scheduler.scheduled-time>, never from "now"',
    ],
    [
      { CRONFENCE_STOP_TIMEOUT_SECONDS: '300' },
      'invalid configuration: CRONFENCE_STOP_TIMEOUT_SECONDS = "300": must be an integer 2-120 (seconds, the ECS stopTimeout range)',
    ],
  ])('exits 2 for %o, writing nothing', async (patch, message) => {
    const result = await runEcsTask({ env: { ...env, ...patch }, handlers, deps: untouchable });
    expect(result).toEqual({ exitCode: 2, error: { name: expect.any(String), message } });
  });
});

describe('the task deadline', () => {
  it('is the job timeout from the start, and stopTimeout less the reserve from a SIGTERM on', () => {
    let now = 0;
    const stop = new AbortController();
    const ctx = taskContext({ now: () => now }, 4 * 3600_000, 30_000, 'task-1', stop.signal);
    now = 3_600_000;
    expect(ctx.getRemainingTimeInMillis()).toBe(3 * 3600_000);
    stop.abort(new Error('SIGTERM'));
    expect(ctx.getRemainingTimeInMillis()).toBe(30_000 - STOP_RESERVE_MS);
    expect(ctx.stopSignal?.aborted).toBe(true);
  });

  it.each([
    [2_000, 1_000],
    [5_000, 2_500],
    [10_000, 5_000],
    [120_000, 115_000],
  ])(
    'keeps a reserve of at most half a %i ms stop timeout: %i ms left after the SIGTERM, never a past deadline',
    (stopMs, leftMs) => {
      let now = 1_000;
      const stop = new AbortController();
      const ctx = taskContext({ now: () => now }, 6 * 3600_000, stopMs, 'task-1', stop.signal);
      now = 20_000;
      stop.abort(new Error('SIGTERM'));
      expect(ctx.getRemainingTimeInMillis()).toBe(leftMs);
      now += leftMs;
      expect(ctx.getRemainingTimeInMillis()).toBe(0);
    },
  );
});
