/**
 * `cronfence jobs` against real deliveries (integ: the handler on DynamoDB Local; the binary once,
 * the rest in process on the operator API, `Operator.jobs` and `Operator.problems`): the LAST column is the newest occurrence of the schedule by its instant, never a
 * `not-on-schedule` record whose UTC-minute slot id sorts after the local slot ids as text. PROBLEMS
 * 7D counts exactly the records `runs --failed` lists (the junk skips, and a re-run of an old slot
 * that failed today), each with its reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { table } from '../../cli/output.js';
import { runColumns } from '../../cli/runs.js';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, runRecord, seedRuns, stackEnv } from './cli-harness.js';
import { operatorOn } from './operate-harness.js';

const DAY_MS = 86_400_000;
let stack: LocalStack;
let env: Record<string, string>;
/** daily-report's newest due occurrence whose slot id sorts before the junk ids (run, succeeded). */
let due: Slot;
/** The junk events' scheduled instants: now + 60 s, + 120 s, + 180 s (each a UTC minute apart). */
let junkMs: number[];

beforeAll(async () => {
  stack = await localStack();
  env = stackEnv(stack);
  const nowMs = Date.now();
  const slots = enumerateSlots(
    { schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' },
    nowMs - 2 * DAY_MS,
    nowMs,
  );
  junkMs = [1, 2, 3].map((m) => Math.floor(nowMs / 60_000) * 60_000 + (m + 1) * 60_000);
  // The mistake this file is about needs junk ids that sort after the real one as text. From 01:30 to
  // 02:30 UTC (Berlin in winter) today's `…T02:30` sorts after them: the run occurrence is then the
  // one a day before, still the newest the table holds.
  const firstJunkId = `${new Date(junkMs[0] as number).toISOString().slice(0, 16)}Z`;
  due = [...slots].reverse().find((s) => s.id < firstJunkId) as Slot;
  const h = dailyReport.withDeps(() => stack.worker().deps);
  const ran = await deliver(h, {
    job: 'daily-report',
    scheduledTimeMs: due.scheduledTimeMs,
    label: 'on-time',
  });
  expect(ran.summary?.outcome, String(ran.error)).toBe('succeeded');
  for (const ms of junkMs) {
    const r = await deliver(h, { job: 'daily-report', scheduledTimeMs: ms, label: 'junk' });
    expect([r.summary?.outcome, r.summary?.reason]).toEqual(['skipped', 'not-on-schedule']);
  }
  // A re-run of a slot 40 days old that failed 30 minutes ago: outside the slot-id range of the last
  // 8 days, inside the problems window.
  await seedRuns(stack, [
    runRecord({
      job: 'daily-report',
      slot: '2026-01-05T02:30',
      scheduledTime: '2026-01-05T01:30:00Z',
      runId: 'old-rerun',
      trigger: 'manual',
      outcome: 'failed',
      reason: 'error',
      fence: 7,
      error: { name: 'Error', message: 'template missing' },
      startedAtMs: nowMs - 30 * 60_000,
    }),
  ]);
}, 120_000);

describe('cronfence jobs', () => {
  it('shows the real succeeded occurrence as LAST, not a not-on-schedule record whose UTC slot id sorts later', async () => {
    const records = await stack.runRecords('daily-report');
    const junkSlots = records.filter((r) => r.reason === 'not-on-schedule').map((r) => r.slot);
    expect(junkSlots.sort()).toEqual(junkMs.map((ms) => `${new Date(ms).toISOString().slice(0, 16)}Z`));
    // The very mistake: as text, every junk slot id sorts after the real local slot id.
    expect(junkSlots.every((s) => String(s) > due.id)).toBe(true);

    const r = await cli(['jobs'], env);
    expect(r.code, r.stderr).toBe(0);
    const row = r.stdout.split('\n').find((l) => l.startsWith('daily-report '));
    // LAST, then HOLDER and WAITING (none), then PROBLEMS 7D.
    expect(row).toMatch(new RegExp(`\\s${due.id} succeeded\\s+-\\s+-\\s+4$`));
  }, 60_000);

  it('counts as PROBLEMS 7D exactly the records runs --failed lists, not-on-schedule skips included', async () => {
    const op = operatorOn(stack);
    try {
      const rows = await op.jobs();
      expect(rows.map((r) => [r.job, r.problems7d])).toEqual([
        ['daily-report', 4],
        ['merchant-settlement', 0],
      ]);
      const listed = await op.problems({ sinceMs: Date.now() - 7 * DAY_MS });
      expect(listed.map((r) => [r.job, r.slot, r.outcome, r.reason]).sort()).toEqual(
        [
          ...junkMs.map((ms) => [
            'daily-report',
            `${new Date(ms).toISOString().slice(0, 16)}Z`,
            'skipped',
            'not-on-schedule',
          ]),
          ['daily-report', '2026-01-05T02:30', 'failed', 'error'],
        ].sort(),
      );

      // The tester's case: --since 1h found nothing; now the table names each skip's reason.
      const skipped = await op.problems({ sinceMs: Date.now() - 3_600_000, outcomes: ['skipped'] });
      const lines = table(skipped, runColumns(true)).split('\n');
      expect(lines).toHaveLength(2 + junkMs.length);
      for (const ms of junkMs) {
        const slot = `${new Date(ms).toISOString().slice(0, 16)}Z`;
        expect(lines.find((l) => l.includes(slot))).toMatch(
          new RegExp(`^daily-report\\s+${slot}\\s+schedule\\s+skipped\\s+not-on-schedule\\s`),
        );
      }
    } finally {
      op.close();
    }
  }, 60_000);
});
