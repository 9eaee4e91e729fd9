/**
 * `cronfence report` on a known history in DynamoDB Local, opened in headless Chromium (Debian package
 * `chromium`, driven by playwright-core: test/helpers/chromium.ts): the CLI builds the page from the
 * real run records, lease item and effect records of a history over two days with a failure (its
 * payout left `sending` by a 503), a pause, its resume and a backfill that settles the payout. The page
 * shows one lane per run naming its slot, fence and outcome with the error; each effect transition in
 * the lane of the run that made it; the pause to its resume; a wall-clock axis in UTC and the job's
 * zone; a legend of only what is drawn; and loads nothing from the network. A screenshot is written to
 * test-output/report-chromium.png. Fails (never skips) when /usr/bin/chromium is missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlledClock } from '../../harness/faults/clock.js';
import { type Delivery, deliver } from '../../harness/local/scheduler-emulator.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { openHeadless, requireChromium } from '../helpers/chromium.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';
import { ledger, reportHourly, UNKNOWN_ONCE } from './fixtures/report-jobs.js';

const JOB = 'report-hourly';
const H = 3_600_000;
/** 2026-03-10T08:00Z = 09:00 Europe/Berlin (UTC+1 until the end of March). */
const T9 = Date.parse('2026-03-10T08:00:00Z');
const SHOT = resolve('test-output/report-chromium.png');

let stack: LocalStack;
let context: BrowserContext;
let page: Page;
let dir: string;
let written: Record<string, unknown>;
let requests: string[] = [];

/** Deliver the slot at `slotMs` from a worker whose clock reads `atMs`. */
async function at(slotMs: number, atMs: number, extra: Partial<Delivery> = {}) {
  const w = stack.worker({ clock: new ControlledClock(atMs - Date.now()) });
  return deliver(
    reportHourly.withDeps(() => w.deps),
    { job: JOB, scheduledTimeMs: slotMs, label: 'delivery', ...extra },
  );
}

/**
 * The known history (Berlin times): 09:00 succeeds and pays; 10:00 gets a 503 from the ledger, its
 * payout is left `sending` and the run fails; ops-alice pauses at 10:30 ("INC-7 ledger down"); 11:00 is
 * recorded skipped/paused; ops-alice resumes on 03-12 at 08:30; ops-bob backfills 10:00 at 09:00, which
 * takes the payout over and settles it.
 */
async function history(): Promise<void> {
  await at(T9, T9 + 5_000);
  UNKNOWN_ONCE.add('pay#2026-03-10T10:00');
  await at(T9 + H, T9 + H + 5_000);
  const pauses = new DynamoPauseStore(stack.doc, stack.tableName);
  await pauses.pause({
    job: JOB,
    shards: 1,
    by: 'ops-alice',
    note: 'INC-7 ledger down',
    nowMs: T9 + 1.5 * H,
  });
  await at(T9 + 2 * H, T9 + 2 * H + 5_000);
  await pauses.resume({
    job: JOB,
    shards: 1,
    pausedAtMs: T9 + 1.5 * H,
    by: 'ops-alice',
    nowMs: T9 + 47.5 * H,
  });
  await at(T9 + H, T9 + 48 * H, { extra: { trigger: 'manual', requestedBy: 'ops-bob' }, label: 'backfill' });
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
      '2026-03-12',
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
  it('counts what it read: 4 run records, 2 effects, no pause in force', () => {
    expect(written).toMatchObject({ job: JOB, runRecords: 4, effects: 2, paused: false });
    expect(ledger.executions.map((e) => e.key)).toEqual(['pay#2026-03-10T09:00', 'pay#2026-03-10T10:00']);
  });

  it('draws one lane per run naming its slot, who delivered it and its fence, with the outcome and error', async () => {
    expect(await page.title()).toBe(`cronfence report: ${JOB}`);
    expect(await page.locator('text.job').allTextContents()).toEqual([`lease ${JOB}`]);
    const runs = (await stack.runRecords(JOB)).sort((a, b) => Number(a.startedAtMs) - Number(b.startedAtMs));
    const id = (i: number) => String(runs[i]?.runId).slice(-6);
    expect(
      await page
        .locator(`g.lane[data-job="${JOB}"]`)
        .evaluateAll((ls) =>
          ls.map((l) => [
            l.querySelector('text.label')?.textContent,
            l.getAttribute('data-fence'),
            l.getAttribute('data-outcome'),
            l.querySelector('tspan.error')?.textContent ?? '',
          ]),
        ),
    ).toEqual([
      [`2026-03-10T09:00 · schedule · ${id(0)} · fence 1`, '1', 'succeeded', ''],
      [
        `2026-03-10T10:00 · schedule · ${id(1)} · fence 2`,
        '2',
        'failed/error',
        ' — EffectOutcomeUnknownError: outcome…',
      ],
      [`2026-03-10T11:00 · schedule · ${id(2)}`, null, 'skipped/paused', ''],
      [`2026-03-10T10:00 · manual:ops-bob · ${id(3)} · fence 3`, '3', 'succeeded', ''],
    ]);
  });

  it('draws each effect transition in the lane of the run that made it, inside that run', async () => {
    const marks = await page
      .locator('g.lane')
      .evaluateAll((ls) =>
        ls.map((l) =>
          [...l.querySelectorAll('path.effect')].map((m) => [
            m.getAttribute('data-label'),
            (m.getAttribute('data-at') ?? '') >= (l.getAttribute('data-start') ?? '') &&
              (m.getAttribute('data-at') ?? '') <= (l.getAttribute('data-end') ?? ''),
          ]),
        ),
      );
    expect(marks).toEqual([
      [
        ['pay#2026-03-10T09:00: - → sending', true],
        ['pay#2026-03-10T09:00: sending → succeeded', true],
      ],
      // Created by the failed run, left `sending` by the 503: not `pending`, not in the backfill's lane.
      [['pay#2026-03-10T10:00: - → sending', true]],
      [],
      [
        ['pay#2026-03-10T10:00: sending → sending (taken over, attempt 2)', true],
        ['pay#2026-03-10T10:00: sending → succeeded', true],
      ],
    ]);
  });

  it('labels the two-day axis in wall-clock UTC and Europe/Berlin, one tick every 6 hours', async () => {
    expect(await page.locator('text.tick.utc').allTextContents()).toEqual([
      '03-10 12:00',
      '18:00',
      '03-11 00:00',
      '06:00',
      '12:00',
      '18:00',
      '03-12 00:00',
      '06:00',
    ]);
    expect(await page.locator('text.tick.local').allTextContents()).toEqual([
      '03-10 13:00',
      '19:00',
      '03-11 01:00',
      '07:00',
      '13:00',
      '19:00',
      '03-12 01:00',
      '07:00',
    ]);
    expect(await page.locator('text.axis-name').allTextContents()).toEqual(['UTC', 'Europe/Berlin']);
  });

  it('draws the pause to its resume, and lists both with who, when and why', async () => {
    expect(
      await page
        .locator('g.pause')
        .evaluateAll((ps) =>
          ps.map((p) => [
            p.getAttribute('data-from'),
            p.getAttribute('data-to'),
            p.querySelector('title')?.textContent,
          ]),
        ),
    ).toEqual([
      [
        '2026-03-10T09:30:00.000Z',
        '2026-03-12T07:30:00.000Z',
        'paused 2026-03-10 09:30:00Z (10:30:00 Europe/Berlin) (paused by ops-alice: INC-7 ledger down); resumed 2026-03-12 07:30:00Z (08:30:00 Europe/Berlin) (resumed by ops-alice)',
      ],
    ]);
    expect(
      await page
        .locator('#events tr.process')
        .evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent))),
    ).toEqual([
      [
        '2026-03-10 09:30:00Z',
        '2026-03-10 10:30:00',
        'operator',
        '',
        'pause: paused by ops-alice: INC-7 ledger down',
      ],
      ['2026-03-12 07:30:00Z', '2026-03-12 08:30:00', 'operator', '', 'resume: resumed by ops-alice'],
    ]);
  });

  it("lists the failed run's error in full, and a legend of only what is drawn", async () => {
    expect(
      await page.locator('#events tr td:last-child').filter({ hasText: 'recorded failed' }).allTextContents(),
    ).toEqual([
      'recorded failed/error — EffectOutcomeUnknownError: outcome of effect "pay#2026-03-10T10:00" is unknown (HTTP 503 from the ledger: upstream timeout); it stays "sending" and the next run reconciles it under the same key',
    ]);
    expect(
      await page.locator('p.legend span').evaluateAll((ss) => ss.map((x) => x.getAttribute('data-legend'))),
    ).toEqual(['holder', 'skip', 'effect', 'pause']);
    expect(await page.locator('dl dd').last().textContent()).toMatch(
      /^2026-03-10 08:00:05\.\d{3}Z → 2026-03-12 08:00:00\.\d{3}Z \(1 d 23 h\), 4 runs \(3 held the lease\), 15 events$/,
    );
  });

  it('is one self-contained file: no script, nothing loaded but itself; the screenshot is written', async () => {
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    expect(readFileSync(SHOT).subarray(1, 4).toString()).toBe('PNG');
  });
});
