/**
 * integ: `cronfence/testing`'s `sweep` on DynamoDB Local — a team's own test of an overlap policy that
 * leaves work to the sweeper (after-previous, the chain started by 09:55): the failed 10:00 is re-run by the first sweep while 10:05
 * waits for it (and is counted waiting-too-long), and the next sweep starts 10:05, each run the job's
 * handler in this process on the test clock, as `local(handler)` gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineJob } from '../../lib/runtime/define-job.js';
import { ControlledClock, deliver, type LocalCronfence, startLocalCronfence } from '../../testing/index.js';

const T = (hhmm: string) => Date.parse(`2026-06-01T${hhmm}:00Z`);
let local: LocalCronfence;
let failing = false;
const ran: string[] = [];
const ledger = defineJob({
  name: 'ledger-day',
  schedule: 'cron(0/5 * * * ? *)',
  lease: { durationSeconds: 60 },
  overlap: 'after-previous',
  run: async (ctx) => {
    ran.push(ctx.slot.id);
    if (failing) throw new Error('ledger down');
  },
});

beforeAll(async () => {
  local = await startLocalCronfence();
}, 120_000);
afterAll(async () => {
  await local?.stop();
});

describe('startLocalCronfence().sweep', () => {
  it('re-runs the failed slot, then starts the one waiting for it, one per sweep, in slot order', async () => {
    const clock = new ControlledClock();
    const job = local.local(ledger, { clock });
    const at = async (hhmm: string) => {
      clock.setTo(T(hhmm) + 1_000);
      return (await deliver(job, { job: 'ledger-day', scheduledTimeMs: T(hhmm), label: hhmm })).summary;
    };
    // The chain starts at the first success (no catchUp.since): 09:55.
    expect(await at('09:55')).toMatchObject({ outcome: 'succeeded' });
    failing = true;
    expect(await at('10:00')).toMatchObject({ outcome: 'failed', reason: 'error' });
    expect(await at('10:05')).toMatchObject({ outcome: 'skipped', reason: 'waiting-for-previous' });
    failing = false;
    clock.setTo(T('10:30'));
    const first = await local.sweep([ledger], { clock });
    expect(first.decisions.filter((d) => d.action === 'triggered').map((d) => d.slot)).toEqual([
      '2026-06-01T10:00',
    ]);
    expect(first.problems.map((p) => `${p.slot} ${p.outcome}/${p.reason}`)).toEqual([
      '2026-06-01T10:05 skipped/waiting-too-long',
    ]);
    expect(first.runs.map((r) => `${r.summary?.slot} ${r.summary?.trigger} ${r.summary?.outcome}`)).toEqual([
      '2026-06-01T10:00 catch-up succeeded',
    ]);
    clock.setTo(T('10:31'));
    const second = await local.sweep([ledger], { clock });
    expect(second.runs.map((r) => `${r.summary?.slot} ${r.summary?.trigger} ${r.summary?.outcome}`)).toEqual([
      '2026-06-01T10:05 catch-up succeeded',
    ]);
    expect(ran).toEqual(['2026-06-01T09:55', '2026-06-01T10:00', '2026-06-01T10:00', '2026-06-01T10:05']);
  }, 120_000);
});
