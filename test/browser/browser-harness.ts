/**
 * A real Chromium for the dashboard's browser tests and benchmark: playwright-core (an optional dependency)
 * driving the system's chromium — CHROMIUM_PATH, else `chromium` on the PATH, else /usr/bin/chromium (what
 * `.ci/run` installs with apt). Tests skip with `browserSkipReason()` printed when either is missing.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Screenshots and page logs of a test run (git-ignored). */
export const ARTIFACTS = join(REPO, 'test-artifacts');

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The chromium to drive, or undefined. */
export function findChromium(): string | undefined {
  const given = process.env['CHROMIUM_PATH'];
  if (given) return executable(given) ? given : undefined;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter(Boolean))
    for (const name of ['chromium', 'chromium-browser']) if (executable(join(dir, name))) return join(dir, name);
  return executable('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

type Playwright = typeof import('playwright-core');

async function importPlaywright(): Promise<Playwright | undefined> {
  try {
    return await import('playwright-core');
  } catch {
    return undefined;
  }
}

/** Why the browser tests cannot run here, or undefined when they can. */
export async function browserSkipReason(): Promise<string | undefined> {
  const given = process.env['CHROMIUM_PATH'];
  if (given && !executable(given)) return `CHROMIUM_PATH=${given} is not an executable file`;
  if (!findChromium())
    return 'no chromium found (set CHROMIUM_PATH, put chromium on the PATH, or apt-get install chromium)';
  if (!(await importPlaywright())) return 'playwright-core (an optional dependency) is not installed';
  return undefined;
}

export interface LaunchedBrowser {
  readonly browser: Browser;
  /** A fresh context (own cookies) per call. */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Chromium headless; Playwright gives it a fresh profile directory of its own (it refuses --user-data-dir). */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const playwright = await importPlaywright();
  const executablePath = findChromium();
  if (!playwright || !executablePath) throw new Error(`cannot launch a browser: ${await browserSkipReason()}`);
  const browser = await playwright.chromium.launch({ executablePath, args: LAUNCH_ARGS, timeout: 60_000 });
  return {
    browser,
    newContext: () => browser.newContext({ viewport: { width: 1400, height: 900 } }),
    close: () => browser.close(),
  };
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
