// What the UI's browser specs share: Debian's chromium and its flags (no network, no sandbox in CI),
// a watcher for console errors, CSP violations and dialogs, and screenshots as test artifacts.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = resolve('spec-artifacts/ui');

/** Skips the calling suite (from its before hook) where chromium is absent, saying why. */
export function skipWithoutChromium(suite: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  console.warn(`    (skipped: no chromium at ${CHROMIUM}; .ci/run installs it)`);
  suite.skip();
}

/** A fresh browser (default launch: a throw-away profile). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Console errors and CSP violations a page reported, and dialogs it opened (dismissed): none is expected. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return problems;
}

/** spec-artifacts/ui/<name>.png (git-ignored), the whole page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * Mocha hooks for the calling suite: a fresh chromium and one page whose problems are watched (skipped
 * where chromium is absent, before the suite's own before hooks, registered after this call); the
 * getters answer once the before hook ran.
 */
export function browserPage(viewport = { width: 1400, height: 700 }): { readonly page: Page; readonly problems: string[] } {
  let browser: Browser | undefined;
  let page: Page | undefined;
  let problems: string[] = [];
  before(async function () {
    skipWithoutChromium(this);
    browser = await launchChromium();
    page = await browser.newPage({ viewport });
    problems = watchPage(page);
  });
  after(() => browser?.close());
  return {
    get page() {
      if (!page) throw new Error('browserPage: read before its before hook ran');
      return page;
    },
    get problems() {
      return problems;
    },
  };
}
