/**
 * Check-ins to an external cron monitor (integ: runs on DynamoDB Local, the monitor a local HTTP server
 * answering like a healthchecks.io / Sentry Crons endpoint): one `in_progress` and one `ok` per
 * successful occurrence, none for a skipped duplicate, `error` for a failure; a monitor that is down or
 * never answers changes nothing about the run.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const H = 3_600_000;
let stack: LocalStack;
let server: Server;
let base = '';
let hits: { path: string; status: string; run: string }[] = [];
/** How the monitor answers: 200, 500, or never. */
let mode: 'ok' | 'error' | 'hang' = 'ok';

beforeAll(async () => {
  stack = await localStack();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://monitor');
    hits.push({
      path: url.pathname,
      status: url.searchParams.get('status') ?? '',
      run: url.searchParams.get('run') ?? '',
    });
    if (mode === 'hang') return; // never answers
    res.statusCode = mode === 'ok' ? 200 : 500;
    res.end('OK');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function job(name: string, fail = false, timeoutMs = 2_000) {
  const w = stack.worker({ clock: new ControlledClock(NOW - Date.now()) });
  return defineJob({
    name,
    schedule: 'cron(0 * * * ? *)',
    lease: { durationSeconds: 30 },
    checkIn: { url: `${base}/ping/{job}?status={status}&run={runId}`, timeoutMs },
    run: async () => {
      if (fail) throw new Error('upstream down');
    },
  }).withDeps(() => w.deps);
}

describe('check-ins', () => {
  it('sends one in_progress and one ok per successful occurrence, and nothing for skipped duplicates', async () => {
    hits = [];
    mode = 'ok';
    const h = job('ci-ok');
    const first = await deliver(h, { job: 'ci-ok', scheduledTimeMs: NOW - H, label: 'on-time' });
    const dupes = await Promise.all([
      deliver(h, { job: 'ci-ok', scheduledTimeMs: NOW - H, label: 'duplicate' }),
      deliver(h, { job: 'ci-ok', scheduledTimeMs: NOW - H, attemptNumber: 2, label: 'late' }),
    ]);
    expect(first.summary?.outcome).toBe('succeeded');
    expect(dupes.map((d) => [d.summary?.outcome, d.summary?.reason])).toEqual([
      ['skipped', 'already-succeeded'],
      ['skipped', 'already-succeeded'],
    ]);
    const runId = first.summary?.runId as string;
    expect(hits).toEqual([
      { path: '/ping/ci-ok', status: 'in_progress', run: runId },
      { path: '/ping/ci-ok', status: 'ok', run: runId },
    ]);
  }, 30_000);

  it('sends error for a failure (each Lambda attempt that claims reports its own pair)', async () => {
    hits = [];
    mode = 'ok';
    const r = await deliver(job('ci-fail', true), {
      job: 'ci-fail',
      scheduledTimeMs: NOW - H,
      label: 'on-time',
    });
    expect([r.summary?.outcome, r.error?.message]).toEqual(['failed', 'upstream down']);
    expect(hits.map((x) => [x.status, x.run])).toEqual([
      ['in_progress', r.summary?.runId],
      ['error', r.summary?.runId],
    ]);
  }, 30_000);

  it.each([
    ['answers 500', 'error'],
    ['never answers', 'hang'],
  ] as const)(
    'leaves the run succeeded when the monitor %s',
    async (_what, how) => {
      hits = [];
      mode = how;
      const r = await deliver(job(`ci-${how}`, false, 200), {
        job: `ci-${how}`,
        scheduledTimeMs: NOW - H,
        label: 'on-time',
      });
      expect([r.summary?.outcome, r.error]).toEqual(['succeeded', undefined]);
      const records = await stack.runRecords(`ci-${how}`);
      expect(records.map((x) => x.outcome)).toEqual(['succeeded']);
      // Sent once each, never retried (a hung in_progress is abandoned at its timeout, then the end is sent).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hits.map((x) => x.status)).toEqual(['in_progress', 'ok']);
    },
    30_000,
  );
});
