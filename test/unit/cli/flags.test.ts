/**
 * unit: the operator API's refusals name its options (it is called from code), and the CLI prints the
 * same refusal with the flags its user typed (cli/flags.ts). Each case: the API's message, exactly, and
 * the CLI's line, exactly.
 */
import { describe, expect, it } from 'vitest';
import { CLI_FLAGS, cliMessage } from '../../../cli/flags.js';
import { validatePause } from '../../../lib/core/pause.js';
import { beforeStartRefusal } from '../../../lib/core/schedule/catch-up.js';
import { EndpointUnreachableError, InvalidArgumentError } from '../../../lib/errors.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { planBackfill } from '../../../operate/backfill-plan.js';
import { usage } from '../../../operate/input.js';

const daily = defineJob({
  name: 'flags-daily',
  schedule: 'cron(0 3 * * ? *)',
  timeZone: 'UTC',
  lease: { durationSeconds: 60 },
  run: async () => {},
});
const NOW = Date.parse('2026-12-01T12:00:00Z');
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
};
const early = beforeStartRefusal({ sinceMs: Date.parse('2026-11-20T00:00:00Z') }, [
  { id: '2026-11-19T03:00Z', scheduledTimeMs: Date.parse('2026-11-19T03:00:00Z') },
]);

describe('a refusal of the operator API, as the API says it and as the CLI prints it', () => {
  it.each([
    [
      'a slot before the job start (trigger, backfill)',
      () => {
        throw usage('slot', '2026-11-19T03:00', early?.message ?? '');
      },
      `invalid slot "2026-11-19T03:00": slot 2026-11-19T03:00Z is before the job's start (catchUp.since 2026-11-20T00:00:00Z): it may have been paid by the scheduler this job replaced; nothing invoked; check it was not paid, then pass \`beforeStart: true\` to run it`,
      `invalid --slot "2026-11-19T03:00": slot 2026-11-19T03:00Z is before the job's start (catchUp.since 2026-11-20T00:00:00Z): it may have been paid by the scheduler this job replaced; nothing invoked; check it was not paid, then pass --before-start to run it`,
    ],
    [
      'a backfill range whose end is before its start',
      () => planBackfill(daily.job, daily.expression, { from: '2026-11-10', to: '2026-11-05' }, NOW),
      'invalid to "2026-11-05": is before `from` 2026-11-10',
      'invalid --to "2026-11-05": is before --from 2026-11-10',
    ],
    [
      'a backfill of more than 1,000 slots without yes',
      () => planBackfill(daily.job, daily.expression, { from: '2020-01-01', to: '2026-11-30' }, NOW),
      'invalid from/to "2020-01-01..2026-11-30": has more than 1,000 slots of job flags-daily: narrow the range or pass `yes: true`',
      'invalid --from/--to "2020-01-01..2026-11-30": has more than 1,000 slots of job flags-daily: narrow the range or pass --yes',
    ],
    [
      'a pause whose end has passed',
      () => validatePause({ note: 'n', by: 'ops', untilMs: NOW - 1000 }, NOW),
      'invalid untilMs "2026-12-01T11:59:59.000Z": must be in the future (a pause that already ended pauses nothing)',
      'invalid --until "2026-12-01T11:59:59.000Z": must be in the future (a pause that already ended pauses nothing)',
    ],
    [
      'an endpoint option that cannot be reached',
      () => {
        throw new EndpointUnreachableError('endpoint', 'http://127.0.0.1:9', 'fix `endpoint`', {
          cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
        });
      },
      'endpoint "http://127.0.0.1:9" cannot be reached (connect ECONNREFUSED 127.0.0.1:9): fix `endpoint`',
      '--endpoint "http://127.0.0.1:9" cannot be reached (connect ECONNREFUSED 127.0.0.1:9): fix --endpoint',
    ],
  ])('%s', (_what, refuse, apiMessage, cliLine) => {
    const err = thrown(refuse);
    expect((err as Error).message).toBe(apiMessage);
    expect((err as Error).message).not.toMatch(/(^|[\s(])--[a-z]/);
    expect(cliMessage(err)).toBe(cliLine);
  });

  it('leaves a setting that is no API option (an environment variable) as it is named', () => {
    const err = new InvalidArgumentError('CRONFENCE_TABLE', '', 'is set but empty: pass `table`');
    expect(cliMessage(err)).toBe('invalid CRONFENCE_TABLE "": is set but empty: pass --table');
  });

  it('maps every API option it knows to a flag of the same words', () => {
    for (const [option, flag] of Object.entries(CLI_FLAGS))
      expect(flag.slice(2).replaceAll('-', '')).toMatch(
        new RegExp(`^${option.replace(/Ms$/, '').toLowerCase()}|^function$`),
      );
  });
});
