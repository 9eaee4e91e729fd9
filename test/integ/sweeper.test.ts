/**
 * Sweeper and catch-up (integ: DynamoDB Local): DST gaps, dropped deliveries, caps and overlaps.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as dailyReport } from '../../functions/daily-report.js';
import { handler as settlement } from '../../functions/merchant-settlement.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { emulate } from '../../harness/local/emulate.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { sweep } from '../../lib/runtime/sweeper.js';
import { gate, type LocalStack, localStack } from '../helpers/local-stack.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

const quiet = { delivery: () => undefined, sweep: () => undefined };

describe('the emulated timeline with the sweeper', () => {
  it('runs Berlin’s nonexistent 2026-03-29 02:30 exactly once by catch-up, at or after 01:00Z, and 03-30 still runs its own', async () => {
    const w = stack.worker();
    const h = dailyReport.withDeps(() => w.deps);
    const out = await emulate(
      [h],
      w.deps,
      {
        fromMs: Date.parse('2026-03-27T00:00Z'),
        toMs: Date.parse('2026-04-01T00:00Z'),
        concurrentCopies: 1,
        lateCopies: 1,
      },
      quiet,
    );
    const ran = out.summaries
      .filter((s) => s.outcome === 'succeeded')
      .map((s) => [s.slot, s.trigger, s.scheduledTime]);
    expect(ran).toEqual([
      ['2026-03-27T02:30', 'schedule', '2026-03-27T01:30:00.000Z'],
      ['2026-03-28T02:30', 'schedule', '2026-03-28T01:30:00.000Z'],
      ['2026-03-29T02:30', 'catch-up', '2026-03-29T01:00:00.000Z'],
      ['2026-03-30T02:30', 'schedule', '2026-03-30T00:30:00.000Z'],
      ['2026-03-31T02:30', 'schedule', '2026-03-31T00:30:00.000Z'],
    ]);
    const reports = await stack.scan(stack.reports);
    expect(reports.map((r) => r.reportDate).sort()).toEqual([
      '2026-03-27',
      '2026-03-28',
      '2026-03-29',
      '2026-03-30',
      '2026-03-31',
    ]);
    expect(out.sweepDecisions).toEqual([
      { job: 'daily-report', slot: '2026-03-29T02:30', action: 'triggered', reason: 'dst-gap-shift' },
    ]);
  });

  it('treats a delivery carrying 2026-10-25T01:30Z as the same Berlin slot as 00:30Z: skipped already-succeeded', async () => {
    const w = stack.worker();
    const h = dailyReport.withDeps(() => w.deps);
    const first = await deliver(h, {
      job: 'daily-report',
      scheduledTimeMs: Date.parse('2026-10-25T00:30:00Z'),
      label: 'first instant',
    });
    const second = await deliver(h, {
      job: 'daily-report',
      scheduledTimeMs: Date.parse('2026-10-25T01:30:00Z'),
      label: 'second instant',
    });
    expect(first.summary).toMatchObject({ slot: '2026-10-25T02:30', outcome: 'succeeded' });
    expect(second.summary).toMatchObject({
      slot: '2026-10-25T02:30',
      outcome: 'skipped',
      reason: 'already-succeeded',
    });
  });

  it('finds nothing missing for a half-hourly Sydney job across the 2026-04-05 fall-back (no false "missed")', async () => {
    const job = defineJob({
      name: 'sydney-poll',
      schedule: 'cron(0/30 * * * ? *)',
      timeZone: 'Australia/Sydney',
      lease: { durationSeconds: 10 },
      catchUp: { mode: 'all', windowHours: 12, maxSlotsPerSweep: 100 },
      run: async () => undefined,
    });
    const w = stack.worker();
    const h = job.withDeps(() => w.deps);
    const out = await emulate(
      [h],
      w.deps,
      {
        fromMs: Date.parse('2026-04-04T13:00Z'),
        toMs: Date.parse('2026-04-04T18:00Z'),
        concurrentCopies: 0,
        lateCopies: 0,
      },
      quiet,
    );
    expect(out.summaries.map((s) => s.scheduledTime.slice(11, 16))).toEqual([
      '13:30',
      '14:00',
      '14:30',
      '15:00',
      '15:30',
      '17:00',
      '17:30',
      '18:00',
    ]);
    expect(out.sweepDecisions).toEqual([]);
  });
});

describe('catch-up of dropped deliveries', () => {
  it('re-triggers at most the cap per sweep (oldest first) and records the rest skipped catch-up-limit', async () => {
    const w = stack.worker();
    const invoked: string[] = [];
    const target = {
      definition: settlement.job,
      expression: settlement.expression,
      invoke: async (payload: Record<string, unknown>) => {
        invoked.push(String(payload.scheduledTime));
        await settlement.withDeps(() => w.deps)(
          payload,
          (await import('../../harness/local/scheduler-emulator.js')).lambdaContext(
            'merchant-settlement',
            300,
          ),
        );
      },
    };
    // No delivery ever arrived; the sweep at 2026-03-06T00:00Z looks at (03-03T00:00Z, 03-05T23:50Z] (72 h, 10 min grace), cap 3.
    const clock = new ControlledClock(Date.parse('2026-03-06T00:00:00Z') - Date.now());
    const report = await sweep({ leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined }, [
      target,
    ]);
    expect(report.jobs).toEqual([{ job: 'merchant-settlement', expected: 3, succeeded: 0, missing: 3 }]);
    expect(invoked).toEqual(['2026-03-03T17:00:00Z', '2026-03-04T17:00:00Z', '2026-03-05T17:00:00Z']);
    const records = await stack.runRecords('merchant-settlement');
    expect(records.filter((r) => r.outcome === 'succeeded').map((r) => r.trigger)).toEqual([
      'catch-up',
      'catch-up',
      'catch-up',
    ]);
    // A second sweep finds nothing missing.
    const again = await sweep({ leases: w.deps.leases, runs: w.deps.runs, clock, log: () => undefined }, [
      target,
    ]);
    expect(again.decisions).toEqual([]);
  });

  it('records excess missed slots as skipped catch-up-limit once, however often the sweeper runs', async () => {
    const job = defineJob({
      name: 'hourly',
      schedule: 'cron(0 * * * ? *)',
      timeZone: 'UTC',
      lease: { durationSeconds: 10 },
      catchUp: { mode: 'all', windowHours: 6, maxSlotsPerSweep: 2 },
      run: async () => undefined,
    });
    const w = stack.worker();
    const target = { definition: job.job, expression: job.expression, invoke: async () => undefined };
    const clock = new ControlledClock(Date.parse('2026-05-01T12:00:00Z') - Date.now());
    const deps = {
      leases: w.deps.leases,
      runs: w.deps.runs,
      clock,
      log: () => undefined,
    };
    const first = await sweep(deps, [target]);
    await sweep(deps, [target]);
    // Window (06:00Z, 11:50Z]: five hourly slots, none succeeded; cap 2 (the invoker drops them: still missing next time).
    expect(first.decisions.map((d) => `${d.slot} ${d.action} ${d.reason}`)).toEqual([
      '2026-05-01T07:00 triggered missed',
      '2026-05-01T08:00 triggered missed',
      '2026-05-01T09:00 skipped catch-up-limit',
      '2026-05-01T10:00 skipped catch-up-limit',
      '2026-05-01T11:00 skipped catch-up-limit',
    ]);
    const records = await stack.runRecords('hourly');
    expect(records.map((r) => [r.slot, r.outcome, r.reason])).toEqual([
      ['2026-05-01T09:00', 'skipped', 'catch-up-limit'],
      ['2026-05-01T10:00', 'skipped', 'catch-up-limit'],
      ['2026-05-01T11:00', 'skipped', 'catch-up-limit'],
    ]);
  });
});

describe('overlap', () => {
  it('skips a slot that finds the lease held by another slot’s run, reason overlap, naming that slot', async () => {
    const release = gate();
    const w = stack.worker({
      pausePoint: (name) => (name === 'after-claim' ? release.promise : Promise.resolve()),
    });
    const h = settlement.withDeps(() => w.deps);
    const long = deliver(h, {
      job: 'merchant-settlement',
      scheduledTimeMs: Date.parse('2026-03-01T17:00:00Z'),
      label: 'slow',
    });
    await new Promise((r) => setTimeout(r, 200));
    const w2 = stack.worker();
    const next = await deliver(
      settlement.withDeps(() => w2.deps),
      { job: 'merchant-settlement', scheduledTimeMs: Date.parse('2026-03-02T17:00:00Z'), label: 'next' },
    );
    release.open();
    await long;
    expect(next.summary).toMatchObject({
      outcome: 'skipped',
      reason: 'overlap',
      holderSeen: { slot: '2026-03-02T01:00' },
    });
  });
});
