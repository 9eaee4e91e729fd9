/**
 * Headless Chromium for the report tests (Debian package `chromium` at /usr/bin/chromium, driven by
 * playwright-core): a fresh profile directory (passed as `--user-data-dir`), no sandbox, no GPU, no
 * first-run, background networking, component updates, sync or QUIC. Fails (never skips) when the
 * binary is missing: `npm test` installs it first when run as root (scripts/test-prerequisites.sh).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Where the Debian package installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** Throw a message naming the package to install when Chromium is missing. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} not found: install the Debian package (apt-get update && apt-get install -y chromium); npm test installs it first when run as root (scripts/test-prerequisites.sh)`,
    );
}

/**
 * Open `file` (an absolute path) in a new headless Chromium with its profile in `<dir>/profile`.
 * @returns the context (close it), the page, and every URL the page requested (in order).
 */
export async function openHeadless(
  dir: string,
  file: string,
): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
  requireChromium();
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
  const requests: string[] = [];
  const page = await context.newPage();
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  return { context, page, requests };
}
