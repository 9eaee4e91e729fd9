/**
 * `cronfence report` on a known history in DynamoDB Local, opened in headless Chromium (Debian package
 * `chromium`, driven by playwright-core: test/helpers/chromium.ts): the CLI builds the page
 * from the real run records, lease item and effect records; the page shows one lane per run with its
 * fence and outcome, the skips with their reason, the pause with its note and the effect transitions,
 * and loads nothing from the network. A screenshot is written to test-output/report-chromium.png.
 * Fails (never skips) when /usr/bin/chromium is missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { openHeadless, requireChromium } from '../helpers/chromium.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';
import { FAIL_ONCE, provider, reportHourly } from './fixtures/report-jobs.js';

const JOB = 'report-hourly';
const H = 3_600_000;
const T9 = Date.parse('2026-03-10T09:00:00Z');
const SHOT = resolve('test-output/report-chromium.png');

let stack: LocalStack;
let context: BrowserContext;
let page: Page;
let dir: string;
let written: Record<string, unknown>;
let requests: string[] = [];

/** Deliver the slot at `slotMs` from a worker whose clock reads `slotMs + afterMs`. */
async function at(slotMs: number, afterMs: number, attemptNumber = 1) {
  const w = stack.worker({ clock: new ControlledClock(slotMs + afterMs - Date.now()) });
  return deliver(
    reportHourly.withDeps(() => w.deps),
    { job: JOB, scheduledTimeMs: slotMs, attemptNumber, label: `attempt ${attemptNumber}` },
  );
}

/**
 * The known history: 09:00 succeeds (one effect); 10:00 fails, its Lambda retry succeeds (one effect);
 * ops-alice pauses at 10:30; 11:00 and its retry are recorded skipped/paused.
 */
async function history(): Promise<void> {
  await at(T9, 5_000);
  FAIL_ONCE.add('2026-03-10T10:00');
  await at(T9 + H, 5_000);
  await at(T9 + H, 70_000, 2);
  await new DynamoPauseStore(stack.doc, stack.tableName).pause({
    job: JOB,
    shards: 1,
    by: 'ops-alice',
    note: 'INC-7 upstream down',
    nowMs: T9 + 1.5 * H,
  });
  await at(T9 + 2 * H, 5_000);
  await at(T9 + 2 * H, 70_000, 2);
}

beforeAll(async () => {
  requireChromium();
  stack = await localStack();
  await history();
  dir = mkdtempSync(join(tmpdir(), 'cronfence-report-'));
  const file = join(dir, 'report.html');
  const r = await cli(
    [
      'report',
      JOB,
      '--jobs',
      'test/integ/fixtures/report-jobs.ts',
      '--from',
      '2026-03-10',
      '--to',
      '2026-03-10',
      '--out',
      file,
      '--json',
    ],
    stackEnv(stack),
  );
  expect(r.code, r.stderr).toBe(0);
  written = json(r);
  ({ context, page, requests } = await openHeadless(dir, file));
  mkdirSync(resolve('test-output'), { recursive: true });
  await page.screenshot({ path: SHOT, fullPage: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('cronfence report in headless Chromium', () => {
  it('counts what it read: 5 run records, 2 effects, the pause on the lease', () => {
    expect(written).toMatchObject({ job: JOB, runRecords: 5, effects: 2, paused: true });
    expect(provider.executions.map((e) => e.key)).toEqual(['pay#2026-03-10T09:00', 'pay#2026-03-10T10:00']);
  });

  it('draws one lane per run with its fence and outcome, the failure and both paused skips', async () => {
    expect(await page.title()).toBe(`cronfence report: ${JOB}`);
    expect(await page.locator('text.job').allTextContents()).toEqual([`lease ${JOB}`]);
    expect(
      await page
        .locator(`g.lane[data-job="${JOB}"]`)
        .evaluateAll((ls) => ls.map((l) => [l.getAttribute('data-fence'), l.getAttribute('data-outcome')])),
    ).toEqual([
      ['1', 'succeeded'],
      ['2', 'failed/error'],
      ['3', 'succeeded'],
      [null, 'skipped/paused'],
      [null, 'skipped/paused'],
    ]);
  });

  it('shows the pause with who and the note, and each effect pending → sending → succeeded', async () => {
    expect(await page.locator('#events tr.process td:last-child').allTextContents()).toEqual([
      'pause: paused by ops-alice: INC-7 upstream down (in force on the lease now)',
    ]);
    expect(await page.locator('path.effect').count()).toBe(6);
    expect(await page.locator('#events tr.effect td:last-child').allTextContents()).toEqual([
      'effect pay#2026-03-10T09:00: - → pending',
      'effect pay#2026-03-10T09:00: pending → sending',
      'effect pay#2026-03-10T09:00: sending → succeeded',
      'effect pay#2026-03-10T10:00: - → pending',
      'effect pay#2026-03-10T10:00: pending → sending',
      'effect pay#2026-03-10T10:00: sending → succeeded',
    ]);
  });

  it('is one self-contained file: no script, nothing loaded but itself; the screenshot is written', async () => {
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    expect(readFileSync(SHOT).subarray(1, 4).toString()).toBe('PNG');
  });
});
