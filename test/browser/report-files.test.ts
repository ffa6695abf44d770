/**
 * A distill eval kept with `weft distill eval --out`, in chromium: the report's Tasks table links each task run's
 * files, and a link opens the file's text (the workflow JSON indented). In npm run test:long.
 */
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';
import { reportId } from '../../src/ui/report-routes.js';
import { cli, tempHome } from '../cli/cli-harness.js';
import { join } from 'node:path';
import { browserSkipReason, type LaunchedBrowser, launchChromium } from './browser-harness.js';

const skipReason = await browserSkipReason();
if (skipReason) console.log(`[report-files] skipping the browser test: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('a distill eval report in chromium', () => {
  let chromium: LaunchedBrowser;
  let dashboard: RunningDashboard;
  let context: BrowserContext | undefined;
  let out: string;

  beforeAll(async () => {
    const home = tempHome();
    out = join(home, 'kept');
    const evaluated = await cli([
      'distill',
      'eval',
      '--suite',
      'examples/distill-suite',
      '--task',
      'gcd',
      '--model',
      'sim:seed=1',
      '--out',
      out,
      '--home',
      home,
    ]);
    if (evaluated.code !== 0) throw new Error(evaluated.stderr);
    dashboard = await startDashboard({
      store: {
        listRuns: async () => [],
        getRun: async () => undefined,
        events: async () => [],
        planVersions: async () => [],
      },
      port: 0,
      reports: [out],
    });
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await chromium?.close();
    await dashboard?.close();
  });

  it('links the workflow, traces and results of each task run, and a link shows the file', async () => {
    context = await chromium.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(dashboard.url);
    const id = reportId(join(out, 'report.json'));
    await page.goto(`${dashboard.url.split('#')[0]}#/reports/${id}`);
    const link = page.locator('table.report-table a', { hasText: 'workflow' }).first();
    await link.waitFor();
    expect(await page.locator('table.report-table a').allTextContents()).toEqual([
      'workflow',
      'traces',
      'selected',
      'results',
      'summary',
    ]);
    await link.click();
    const shown = page.locator('#report-file');
    await shown.waitFor();
    const text = await shown.textContent();
    expect(JSON.parse(text ?? '').nodes.length).toBeGreaterThan(0);
    expect(await page.locator('h1').textContent()).toBe('tasks/gcd/es-pe/workflow.json');
    expect(errors).toEqual([]);
  });
});
