/** unit: how `--slot` (trigger) and `--from`/`--to` (backfill) read a local slot time. */
import { describe, expect, it } from 'vitest';
import { planBackfill } from '../../../cli/backfill-plan.js';
import { triggerSlot } from '../../../cli/trigger.js';
import { defineJob } from '../../../lib/runtime/define-job.js';

/** daily-report's schedule: 02:30 Berlin every day. */
const berlin = defineJob({
  name: 'berlin-daily',
  schedule: 'cron(30 2 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async () => undefined,
});
const NOW = Date.parse('2026-12-01T12:00:00Z');
const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('a local slot time with seconds', () => {
  it('reads :00 seconds as the same minute: --slot 2026-11-30T02:30:00 is slot 2026-11-30T02:30', () => {
    const slot = triggerSlot(berlin, '2026-11-30T02:30:00', NOW);
    expect([slot.id, new Date(slot.scheduledTimeMs).toISOString()]).toEqual([
      '2026-11-30T02:30',
      '2026-11-30T01:30:00.000Z',
    ]);
  });

  it('backfills the same slots for --from/--to with :00 seconds as without', () => {
    const ids = (from: string, to: string) =>
      planBackfill(berlin.job, berlin.expression, { from, to }, NOW).slots.map((s) => s.id);
    expect(ids('2026-11-28T02:30:00', '2026-11-30T02:30:00')).toEqual([
      '2026-11-28T02:30',
      '2026-11-29T02:30',
      '2026-11-30T02:30',
    ]);
  });

  it.each([['2026-11-30T02:30:15'], ['2026-11-30T02:30:00.000']])(
    'refuses %s as malformed (other seconds name no slot; never read as an instant)',
    (value) => {
      expect(message(() => triggerSlot(berlin, value, NOW))).toBe(
        `invalid --slot "${value}": is not a date (yyyy-mm-dd, a whole day in Europe/Berlin), a local slot time (yyyy-mm-ddTHH:mm in Europe/Berlin, seconds only :00) or an ISO-8601 instant with Z or an offset`,
      );
    },
  );

  it('still refuses a local minute that is not a slot, naming the nearest', () => {
    expect(message(() => triggerSlot(berlin, '2026-11-30T02:31:00', NOW))).toBe(
      'invalid --slot "2026-11-30T02:31:00": is not a slot of job berlin-daily (cron(30 2 * * ? *), Europe/Berlin); nearest slots: 2026-11-30T02:30, 2026-12-01T02:30',
    );
  });
});
