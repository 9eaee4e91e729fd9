/**
 * `cronfence why` as an operator runs it (integ: the CLI as a subprocess on DynamoDB Local): `--json`
 * for scripts, the human lines, exit 0 for a read, 2 for bad input, and a job whose code is not loaded
 * (no schedule to enumerate on DynamoDB Local) answered from its records, saying what it could not read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, runRecord, seedRuns, stackEnv } from './cli-harness.js';

let stack: LocalStack;
const STARTED = Date.parse('2026-11-18T01:30:00Z');

beforeAll(async () => {
  stack = await localStack();
  await seedRuns(stack, [
    runRecord({
      job: 'daily-report',
      slot: '2026-11-18T02:30',
      scheduledTime: '2026-11-18T01:30:00Z',
      runId: 'run-ok',
      outcome: 'succeeded',
      fence: 4,
      startedAtMs: STARTED,
      durationMs: 120,
    }),
    runRecord({
      job: 'daily-report',
      slot: '2026-11-19T02:30',
      scheduledTime: '2026-11-19T01:30:00Z',
      runId: 'run-bad',
      outcome: 'failed',
      reason: 'error',
      fence: 5,
      startedAtMs: STARTED + 86_400_000,
      error: { name: 'Error', message: 'mail server down' },
    }),
    runRecord({
      job: 'old-job',
      slot: '2026-11-18T05:00:00Z',
      scheduledTime: '2026-11-18T05:00:00Z',
      runId: 'run-old',
      outcome: 'succeeded',
      fence: 9,
      startedAtMs: STARTED,
    }),
  ]);
}, 30_000);

describe('cronfence why', () => {
  it('prints one line per occurrence, and the same as JSON with --json (exit 0)', async () => {
    const env = stackEnv(stack);
    const args = ['why', 'daily-report', '--from', '2026-11-18', '--to', '2026-11-20'];
    const [text, asJson] = await Promise.all([cli(args, env), cli([...args, '--json'], env)]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(1, 4)).toEqual([
      '2026-11-18T02:30      succeeded             ran: run run-ok succeeded in 120ms, fence 4 (schedule)',
      '2026-11-19T02:30      failed                failed (error): Error: mail server down — run run-bad, fence 5',
      '2026-11-20T02:30      not-recorded          no record',
    ]);
    expect(asJson.code).toBe(0);
    const report = json<{
      lines: { slot: string; class: string }[];
      jobCode: string;
      unreadable: { source: string }[];
    }>(asJson);
    expect(report.lines.map((l) => [l.slot, l.class])).toEqual([
      ['2026-11-18T02:30', 'succeeded'],
      ['2026-11-19T02:30', 'failed'],
      ['2026-11-20T02:30', 'not-recorded'],
    ]);
    expect(report.jobCode).toBe('loaded');
    expect(report.unreadable.map((u) => u.source)).toEqual(['AWS evidence']);
  }, 60_000);

  it('refuses --slot with --from (exit 2, naming the flag), and answers a job without code from its records', async () => {
    const env = stackEnv(stack);
    const [bad, noCode] = await Promise.all([
      cli(['why', 'daily-report', '--slot', '2026-11-18', '--from', '2026-11-18'], env),
      cli(['why', 'old-job', '--from', '2026-11-18', '--to', '2026-11-20', '--json'], env),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'cronfence: invalid --slot "2026-11-18": cannot be combined with --from/--to',
    );
    expect(noCode.code).toBe(0);
    const report = json<{
      scheduleSource: string;
      lines: { slot: string; class: string; verdict: string }[];
      unreadable: { reason: string }[];
    }>(noCode);
    expect(report.scheduleSource).toBe('none');
    expect(report.lines.map((l) => [l.slot, l.class, l.verdict])).toEqual([
      ['2026-11-18T05:00:00Z', 'succeeded', 'ran: run run-old succeeded in 100ms, fence 9 (schedule)'],
    ]);
    expect(report.unreadable[0]?.reason).toMatch(/^not read: the table is on DynamoDB Local/);
  }, 60_000);
});
