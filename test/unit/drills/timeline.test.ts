/**
 * The timeline report rendered in headless Chromium (Debian package `chromium`, driven by
 * playwright-core): what the page shows for a recorded scenario — lease holders per job with fences
 * and outcomes, a stale write refused, effect transitions, a killed holder, injected faults — and
 * that it loads nothing from the network. Fails (never skips) when /usr/bin/chromium is missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explorerJobs } from '../../../harness/drills/explorer/jobs.js';
import { SimProvider } from '../../../harness/drills/explorer/provider.js';
import { createMemoryDeps } from '../../../harness/drills/memory-deps.js';
import { Stage } from '../../../harness/drills/stage.js';
import { forever } from '../../../harness/faults/pause-points.js';
import { on } from '../../../harness/faults/sdk-faults.js';
import { MemoryDb } from '../../../harness/memory/index.js';
import { renderTimeline } from '../../../harness/report/timeline.js';
import { openHeadless, requireChromium } from '../../helpers/chromium.js';

const T0 = Date.parse('2026-01-05T00:00:00Z');

/** A recorded scenario: a stale report write refused by the fence, a killed settle holder, a lost provider response. */
async function scenarioHtml(): Promise<string> {
  let db: MemoryDb | undefined;
  const stage = new Stage(T0, (p) =>
    createMemoryDeps({
      db: db as MemoryDb,
      clock: p.clock,
      faults: p.faults,
      pausePoint: p.pausePoint,
      observe: p.observe,
    }),
  );
  db = new MemoryDb(() => stage.time.nowMs);
  const sleep = (ms: number) => stage.time.sleep(ms);
  const provider = new SimProvider({
    idempotencyKeys: true,
    lookup: false,
    dropResponses: [1],
    latencyMs: 40,
    sleep,
  });
  const { report, settle } = explorerJobs({ provider, sleep, workMs: 0 });
  const a = stage.worker('A');
  const b = stage.worker('B');
  const k = stage.worker('K');
  const c = stage.worker('C');
  a.pauses.add({
    name: 'VM freeze 90 s',
    at: 'before-write',
    action: () => a.suspend(90_000, { clockFrozen: true }),
  });
  a.faults.add({ name: 'renewal slow', match: on.renew, action: { kind: 'delay', ms: 5_000 }, times: 10 });
  k.pauses.add({
    name: 'kill',
    at: 'after-claim',
    action: async () => {
      k.kill();
      return forever();
    },
  });
  const at = (worker: typeof a, handler: typeof report, delayMs: number, attempt = 1) =>
    stage.deliver(
      {
        worker,
        handler,
        job: handler.job.name,
        scheduledTimeMs: T0,
        attemptNumber: attempt,
        label: worker.name,
      },
      delayMs,
    );
  void at(a, report, 0);
  void at(b, report, 65_000, 2);
  void at(k, settle, 0);
  void at(c, settle, 70_000, 2);
  void at(c, settle, 200_000, 3);
  await stage.run();
  return renderTimeline(
    stage.recorder.recording('timeline scenario', { scenario: 'stale write, kill, lost provider response' }),
  );
}

describe('timeline report in headless Chromium', () => {
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  let requests: string[] = [];

  beforeAll(async () => {
    requireChromium();
    dir = mkdtempSync(join(tmpdir(), 'cronfence-timeline-'));
    const file = join(dir, 'timeline.html');
    writeFileSync(file, await scenarioHtml());
    ({ context, page, requests } = await openHeadless(dir, file));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the title, the scenario and a lane per run under each job’s lease', async () => {
    expect(await page.title()).toBe('timeline scenario');
    expect(await page.locator('h1').textContent()).toBe('timeline scenario');
    expect(await page.locator('dd').first().textContent()).toBe('stale write, kill, lost provider response');
    expect(await page.locator('text.job').allTextContents()).toEqual(['lease ex-report', 'lease ex-settle']);
    expect(
      await page
        .locator('g.lane[data-job="ex-report"]')
        .evaluateAll((ls) => ls.map((l) => [l.getAttribute('data-fence'), l.getAttribute('data-outcome')])),
    ).toEqual([
      ['1', 'stale/stale-fence'],
      ['2', 'succeeded'],
    ]);
  });

  it('shows the refused stale write as a mark on the stale holder’s lane and a line in the event list', async () => {
    const stale = page.locator('g.lane[data-outcome="stale/stale-fence"] path.stale');
    expect(await stale.count()).toBe(1);
    expect(await stale.locator('title').textContent()).toContain('stale write refused (stored fence 2)');
    expect(await page.locator('#events tr.stale td:last-child').allTextContents()).toEqual([
      'stale write refused: fence 1 < stored 2',
    ]);
  });

  it('shows the killed holder hatched, its successor’s takeover, effect transitions and injected faults', async () => {
    const settleLanes = page.locator('g.lane[data-job="ex-settle"]');
    expect(await settleLanes.evaluateAll((ls) => ls.map((l) => l.getAttribute('data-outcome')))).toEqual([
      'running',
      'failed/error',
      'succeeded',
    ]);
    expect(await page.locator('g.lane[data-job="ex-settle"] text.outcome').first().textContent()).toBe(
      'killed (no own record)',
    );
    expect(await page.locator('#events').textContent()).toContain('marked');
    expect(await page.locator('path.effect').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('#events tr.effect td:last-child').allTextContents()).toContain(
      'effect pay#2026-01-05T00:00:00Z#0: sending → sending (outcome unknown: injected: response lost after execution)',
    );
    expect(await page.locator('#events tr.process td:last-child').allTextContents()).toEqual([
      'kill: killed: no request, pause point or timer goes on',
      'suspend: frozen 90 s (clock frozen too)',
    ]);
    expect(await page.locator('path.fault').count()).toBeGreaterThanOrEqual(1);
  });

  it('loads nothing but the file itself', async () => {
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
  });
});
