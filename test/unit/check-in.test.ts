/**
 * The `checkIn` option (unit): one URL template for Sentry Crons' and healthchecks.io's HTTP check-ins,
 * and the errors defineJob gives a bad one (naming the field and the value).
 */
import { describe, expect, it } from 'vitest';
import { CheckInStatus, checkInUrl } from '../../lib/core/check-in.js';
import { parseJobDefinition } from '../../lib/core/job-definition-schema.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const base = { name: 'nightly', schedule: 'cron(30 2 * * ? *)', lease: { durationSeconds: 30 } };
const run = { job: 'nightly', slot: '2026-11-20T02:30', runId: '0mwo-ab12' };
const defined = (checkIn: unknown) => parseJobDefinition({ ...base, checkIn }, NOW).definition.checkIn;

describe('check-in URLs', () => {
  it('builds Sentry Crons check-ins with the default statuses', () => {
    const options = defined({ url: 'https://o1.ingest.sentry.io/api/7/cron/{job}/KEY/?status={status}' });
    expect(options).toEqual({
      url: 'https://o1.ingest.sentry.io/api/7/cron/{job}/KEY/?status={status}',
      statuses: { inProgress: 'in_progress', ok: 'ok', error: 'error' },
      timeoutMs: 2000,
    });
    expect(Object.values(CheckInStatus).map((s) => checkInUrl(options as never, s, run))).toEqual([
      'https://o1.ingest.sentry.io/api/7/cron/nightly/KEY/?status=in_progress',
      'https://o1.ingest.sentry.io/api/7/cron/nightly/KEY/?status=ok',
      'https://o1.ingest.sentry.io/api/7/cron/nightly/KEY/?status=error',
    ]);
  });

  it('builds healthchecks.io start / success / fail pings paired by run id', () => {
    const options = defined({
      url: 'https://hc-ping.com/5b1e7c2a-0f0e-4c43-9d0e-2a4c8d0a1b11{status}?rid={runId}',
      statuses: { inProgress: '/start', ok: '', error: '/fail' },
      timeoutMs: 1500,
    });
    expect(Object.values(CheckInStatus).map((s) => checkInUrl(options as never, s, run))).toEqual([
      'https://hc-ping.com/5b1e7c2a-0f0e-4c43-9d0e-2a4c8d0a1b11/start?rid=0mwo-ab12',
      'https://hc-ping.com/5b1e7c2a-0f0e-4c43-9d0e-2a4c8d0a1b11?rid=0mwo-ab12',
      'https://hc-ping.com/5b1e7c2a-0f0e-4c43-9d0e-2a4c8d0a1b11/fail?rid=0mwo-ab12',
    ]);
  });

  it.each([
    [
      { url: 'https://hc-ping.com/abc' },
      'checkIn.url',
      'must contain {status} (where the check-in status goes)',
    ],
    [
      { url: 'ftp://x/{status}' },
      'checkIn.url',
      'must be an http(s) URL once {status}, {job}, {slot} and {runId} are filled in',
    ],
    [
      { url: 'https://x/{status}', timeoutMs: 60_000 },
      'checkIn.timeoutMs',
      'must be an integer number of ms from 100 to 10000',
    ],
    [{ url: 'https://x/{status}', statusMap: {} }, 'checkIn.statusMap', 'unknown option'],
  ])('refuses %j naming %s', (checkIn, field, message) => {
    expect(() => defined(checkIn)).toThrow(field);
    expect(() => defined(checkIn)).toThrow(message);
  });
});
