/** unit: how `--slot` (trigger) and `--from`/`--to` (backfill) read a local slot time. */
import { describe, expect, it } from 'vitest';
import { dayOrInstantArg, instantArg, sinceArg } from '../../../cli/args.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { planBackfill } from '../../../operate/backfill-plan.js';
import { triggerSlot } from '../../../operate/trigger.js';

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
        `invalid slot "${value}": is not a date (yyyy-mm-dd, a whole day in Europe/Berlin), a local slot time (yyyy-mm-ddTHH:mm in Europe/Berlin, seconds only :00) or an ISO-8601 instant with Z or an offset`,
      );
    },
  );

  it('still refuses a local minute that is not a slot, naming the nearest', () => {
    expect(message(() => triggerSlot(berlin, '2026-11-30T02:31:00', NOW))).toBe(
      'invalid slot "2026-11-30T02:31:00": is not a slot of job berlin-daily (cron(30 2 * * ? *), Europe/Berlin); nearest slots: 2026-11-30T02:30, 2026-12-01T02:30',
    );
  });
});

const REASON =
  "before 1970-01-01T00:00:00Z: no slot is earlier (the handler refuses a scheduledTime before 1970, Scheduler's cron years start there)";

describe('a bound before 1970 (the handler refuses such times: never silently cut)', () => {
  it.each([
    ['--from', '1969-12-30', '1970-01-02', 'starts at 1969-12-29T23:00:00Z in Europe/Berlin, '],
    ['--from', '1970-01-01T00:30', '1970-01-02', 'starts at 1969-12-31T23:30:00Z in Europe/Berlin, '],
    ['--from', '1969-12-31T23:30:00Z', '1970-01-02', 'is '],
    ['--to', '1969-12-31', '1969-12-31', 'starts at 1969-12-30T23:00:00Z in Europe/Berlin, '],
  ])('refuses %s %s', (flag, from, to, what) => {
    const value = flag === '--from' ? from : to;
    expect(
      message(() =>
        planBackfill(
          berlin.job,
          berlin.expression,
          { from: flag === '--from' ? from : '1970-01-05', to },
          NOW,
        ),
      ),
    ).toBe(`invalid ${flag.slice(2)} "${value}": ${what}${REASON}`);
  });

  it('refuses --slot before 1970', () => {
    expect(message(() => triggerSlot(berlin, '1969-07-20T20:17:00Z', NOW))).toBe(
      `invalid slot "1969-07-20T20:17:00Z": is ${REASON}`,
    );
  });

  it.each([
    ['instantArg (pause --until, check --now)', '--until', '1969-12-31', instantArg],
    ['dayOrInstantArg (start/report --from)', '--from', '1969-12-31T23:59:59+00:00', dayOrInstantArg],
    ['sinceArg with a date (runs/effects --since)', '--since', '1969-12-31', sinceArg],
  ])('%s refuses a date before 1970 naming the flag and value', (_name, flag, value, arg) => {
    expect(message(() => arg(flag)(value))).toBe(`${flag} "${value}" is ${REASON}`);
  });

  it('takes 1970-01-01 itself (UTC), as epoch 0', () => {
    expect(dayOrInstantArg('--from')('1970-01-01')).toEqual({ firstMs: 0, lastMs: 86_400_000 - 1 });
  });
});
