/** unit: `checkJob` — the warnings and notes `cronfence check` and synth print, from an injected "now". */
import { describe, expect, it } from 'vitest';
import { checkJob } from '../../lib/core/job-check.js';
import { parseScheduleExpression } from '../../lib/core/schedule/expression.js';
import { rateDateWarnings } from '../../lib/core/schedule/rate-dst.js';
import { instantSlotId } from '../../lib/core/schedule/slot.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const base = { lease: { durationSeconds: 30 } };
const codes = (w: readonly { code: string; message: string }[]) => w.map((x) => `${x.code}: ${x.message}`);

describe('checkJob', () => {
  it('a daily rate in Berlin on a 22:30Z grid: 2026-03-29 never occurs, 2026-10-25 occurs twice; use the cron', () => {
    const report = checkJob(
      {
        ...base,
        name: 'rate-berlin',
        schedule: 'rate(1 day)',
        timeZone: 'Europe/Berlin',
        rateAnchor: '2026-01-01T22:30:00Z',
      },
      NOW,
    );
    expect(codes(report.warnings)).toEqual([
      "rate-dst: rate(1 day) counts 24-hour periods, not local days: in Europe/Berlin business date 2026-03-29 never occurs (runs at 2026-03-28T23:30 and 2026-03-30T00:30 local); business date 2026-10-25 occurs twice (runs at 2026-10-25T00:30 and 2026-10-25T23:30 local). To run at 23:30 local time on every date use schedule 'cron(30 23 * * ? *)'",
    ]);
    expect(report.transitions).toEqual([
      {
        utc: '2026-03-29T01:00:00Z',
        kind: 'gap',
        local: '2026-03-29T02:00 → 2026-03-29T03:00',
        effect:
          'rate drift: occurrences move later by 1 h in local time; business date 2026-03-29 never occurs (runs at 2026-03-28T23:30 and 2026-03-30T00:30 local)',
      },
      {
        utc: '2026-10-25T01:00:00Z',
        kind: 'overlap',
        local: '2026-10-25T03:00 → 2026-10-25T02:00',
        effect:
          'rate drift: occurrences move earlier by 1 h in local time; business date 2026-10-25 occurs twice (runs at 2026-10-25T00:30 and 2026-10-25T23:30 local)',
      },
    ]);
  });

  it('a daily rate on the default (epoch) grid in Berlin drifts 01:00 ↔ 02:00 local but keeps every date; next occurrences are after now', () => {
    const report = checkJob({ ...base, name: 'r', schedule: 'rate(1 day)', timeZone: 'Europe/Berlin' }, NOW);
    expect(report.warnings).toEqual([]);
    expect(report.next.map((o) => `${o.slot} ${o.local}`)).toEqual([
      '2026-01-16T00:00:00Z 2026-01-16T01:00',
      '2026-01-17T00:00:00Z 2026-01-17T01:00',
      '2026-01-18T00:00:00Z 2026-01-18T01:00',
      '2026-01-19T00:00:00Z 2026-01-19T01:00',
      '2026-01-20T00:00:00Z 2026-01-20T01:00',
    ]);
  });

  it('a weekly rate whose step crosses midnight names the date that moved', () => {
    const expr = parseScheduleExpression('rate(7 days)');
    const warnings = rateDateWarnings(
      { schedule: expr, timeZone: 'Europe/Berlin', startMs: Date.parse('2026-03-21T22:30:00Z') },
      NOW,
      Date.parse('2026-04-30T00:00:00Z'),
    );
    expect(warnings.map((w) => w.message)).toEqual([
      'business date 2026-04-04 never occurs: the run after 2026-03-28 has 2026-04-05 (runs at 2026-03-28T23:30 and 2026-04-05T00:30 local)',
    ]);
  });

  it('a Berlin 02:30 cron: the DST warning synth gives, and what each transition does', () => {
    const report = checkJob(
      { ...base, name: 'b', schedule: 'cron(30 2 * * ? *)', timeZone: 'Europe/Berlin' },
      NOW,
    );
    expect(codes(report.warnings)).toEqual([
      'dst: cron(30 2 * * ? *) in Europe/Berlin meets DST transitions; occurrences in a gap are run by the sweeper after the gap (dstGap: shift): 2026-03-29 02:30 does not exist (Scheduler skips it); 2026-10-25 02:30 occurs twice (Scheduler runs it once); 2027-03-28 02:30 does not exist (Scheduler skips it); 2027-10-31 02:30 occurs twice (Scheduler runs it once); 2028-03-26 02:30 does not exist (Scheduler skips it); 2028-10-29 02:30 occurs twice (Scheduler runs it once)',
    ]);
    expect(report.transitions.map((t) => t.effect)).toEqual([
      '02:30 skipped by Scheduler → caught up by the sweeper at 03:00 local (2026-03-29T01:00:00Z) under its own slot id',
      '02:30 repeated → runs once, at the first: 2026-10-25T00:30:00Z',
    ]);
  });

  it('a leap-day cron is warned about: its next occurrence is more than 366 days away', () => {
    expect(codes(checkJob({ ...base, name: 'leap', schedule: 'cron(0 0 29 2 ? *)' }, NOW).warnings)).toEqual([
      'horizon: cron(0 0 29 2 ? *) next fires at 2028-02-29T00:00:00Z, more than 366 days after 2026-01-15T00:00:00Z: until then the job and its "no successful run" alarm stay silent',
    ]);
  });

  it('a cron whose years are over is warned about: it never fires again', () => {
    expect(codes(checkJob({ ...base, name: 'old', schedule: 'cron(0 0 1 1 ? 2020)' }, NOW).warnings)).toEqual(
      [
        'horizon: cron(0 0 1 1 ? 2020) has no occurrence after 2026-01-15T00:00:00Z: it will never fire again',
      ],
    );
  });

  it.each([['cron(0 0 30 2 ? *)'], ['cron(0 0 31 4,6,9,11 ? *)']])(
    'refuses %s as an error, naming the expression',
    (schedule) => {
      const report = checkJob({ ...base, name: 'never', schedule }, NOW);
      expect(report.errors).toEqual([
        {
          code: 'definition',
          message: `invalid schedule "${schedule}": fields: no date from 1970 to 2199 matches day-of-month, month, day-of-week and year together: the schedule would never fire`,
        },
      ]);
      expect(report.next).toEqual([]);
    },
  );

  it('warns about a lease under the 10 s recommendation and refuses one under the minimum', () => {
    expect(
      codes(
        checkJob({ name: 'short', schedule: 'cron(0 6 * * ? *)', lease: { durationSeconds: 5 } }, NOW)
          .warnings,
      ),
    ).toEqual([
      'lease: lease.durationSeconds = 5 is below the recommended 10 s (docs/clock-skew.md): one slow renewal can lose the lease and stop the run',
    ]);
    expect(
      checkJob(
        { name: 'short', schedule: 'cron(0 6 * * ? *)', lease: { durationSeconds: 1, renewFraction: 0.9 } },
        NOW,
      ).errors[0]?.message,
    ).toMatch(/^invalid job definition: "lease.durationSeconds" = 1: must be > 12 s: /);
  });

  it('puts rate and at() slot ids on the one-minute grid', () => {
    expect(instantSlotId(Date.parse('2026-01-15T10:20:42.500Z'))).toBe('2026-01-15T10:20:00Z');
  });
});

describe('checkJob: catch-up that could reach slots paid elsewhere', () => {
  const settle = {
    ...base,
    name: 'settle',
    schedule: 'cron(0 1 * * ? *)',
    catchUp: { mode: 'all', windowHours: 72, maxSlotsPerSweep: 3 },
  } as const;

  it('warns for catch-up with no catchUp.since, naming since with the deploy minute and id for a rename', () => {
    expect(codes(checkJob(settle, Date.parse('2026-11-04T13:59:30Z')).warnings)).toEqual([
      "catch-up-start: catchUp.mode = all with no catchUp.since: at its first deploy, or when it takes over from a renamed job without id, the first sweep catches up missing slots up to 72 h back (catchUp.windowHours), slots another scheduler or the old name may already have paid. If this job replaces another scheduler, set catchUp.since to its deploy instant (e.g. '2026-11-04T14:00:00Z'); if it renames a job, set id to the old name (its done set, run records and effects carry over)",
    ]);
  });

  it.each([
    ['catchUp.since declared', { ...settle, catchUp: { ...settle.catchUp, since: '2026-11-04T14:00:00Z' } }],
    ['catch-up none', { ...settle, catchUp: { mode: 'none', windowHours: 24, maxSlotsPerSweep: 1 } }],
    ['no catch-up', { ...base, name: 'settle', schedule: 'cron(0 1 * * ? *)' }],
  ])('does not warn with %s', (_, job) => {
    expect(checkJob(job, Date.parse('2026-11-04T14:00:00Z')).warnings).toEqual([]);
  });
});
