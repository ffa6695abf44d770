/**
 * The dashboard's pages probed in chromium as an attacker and a careless user would: a run whose every string is
 * hostile (`<script>`, `<img onerror>`, `<svg onload>`, `javascript:` links, bidi overrides, 1 MB outputs, ids such
 * as `__proto__` and `a/b?c#d%2F`) shows as text, runs nothing and keeps the server well; a `?task=` naming no
 * subtask says so; a quickly switched filter shows the last choice; a stream the server refuses (503 BUSY, a
 * restarted server's new token) is said on the page and, when waiting helps, retried; the back button leaves no
 * stream open; a node opens with the keyboard. In npm run test:long (about 20 s).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openExistingRunStore, openRunStore } from '../../src/store/open-store.js';
import { type LazyStore, lazyExistingStore } from '../../src/ui/lazy-store.js';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';
import { tempHome } from '../cli/cli-harness.js';
import { browserSkipReason, type LaunchedBrowser, launchChromium } from './browser-harness.js';

const skipReason = await browserSkipReason();
if (skipReason) console.log(`[dashboard-probe] skipping the browser tests: ${skipReason}`);

const EVIL =
  '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"><svg onload="window.__xss=3"></svg>' +
  '</script>[click](javascript:window.__xss=4) \u202Eevil';
const ODD_TASK = 'a/b?c#d%2F';
const ODD_RUN = 'run/1?x#y%';

/** Runs written through the store, as `weft run` writes them, with hostile text in every field. */
async function seed(home: string): Promise<void> {
  const store = await openRunStore({ home });
  try {
    for (const [runId, status] of [
      ['__proto__', 'completed'],
      [ODD_RUN, 'failed'],
      ['live-one', 'running'],
    ] as const) {
      await store.createRun({ runId, task: `${runId} ${EVIL}`, model: `sim ${EVIL}`, options: {} });
      const subtasks = [
        { id: '__proto__', objective: EVIL, agent: EVIL, dependsOn: [] },
        { id: ODD_TASK, objective: EVIL, agent: 'constructor', dependsOn: ['__proto__'] },
        { id: EVIL, objective: 'x'.repeat(100_000), agent: 'toString', dependsOn: [ODD_TASK] },
      ];
      const workflow = { task: EVIL, subtasks };
      await store.savePlanVersion({ runId, version: 1, workflow, cause: EVIL });
      const events: unknown[] = [
        { type: 'run-start', at: 0, runId, task: EVIL, model: 'sim', strategy: 'static', options: {} },
        { type: 'plan-chosen', at: 1, version: 1, index: 0, workflow },
      ];
      for (const [at, { id, agent }] of subtasks.entries()) {
        if (status === 'running' && at > 0) break;
        const failed = status === 'failed' && at === 2;
        events.push(
          { type: 'task-start', at: 2, taskId: id, attempt: 1, agent, clone: 0 },
          {
            type: 'tool-call',
            at: 2,
            taskId: id,
            attempt: 1,
            sequence: 0,
            step: 0,
            callId: 'c',
            name: EVIL,
            args: { q: EVIL },
          },
          {
            type: 'tool-result',
            at: 3,
            taskId: id,
            attempt: 1,
            sequence: 0,
            name: EVIL,
            ok: true,
            result: EVIL,
            durationMs: 5,
          },
          { type: 'task-verify', at: 4, taskId: id, attempt: 1, verdict: 'accept', reason: EVIL },
          {
            type: 'task-end',
            at: 5,
            taskId: id,
            attempt: 1,
            status: failed ? 'failed' : 'completed',
            output: `# Out ${EVIL}\n\n[a](javascript:window.__xss=5) ![i](javascript:x)\n\n${'y'.repeat(1_000_000)}`,
            ...(failed ? { error: EVIL } : {}),
          },
        );
      }
      if (status !== 'running')
        events.push({ type: 'run-end', at: 9, status, ...(status === 'failed' ? { reason: EVIL } : {}) });
      await store.appendEvents(runId, events as never);
      if (status !== 'running') await store.setStatus(runId, status);
    }
  } finally {
    await store.close();
  }
}

describe.skipIf(skipReason !== undefined)('the dashboard probed in chromium', () => {
  let chromium: LaunchedBrowser;
  let home: string;
  let store: LazyStore;
  let dashboard: RunningDashboard;
  let context: BrowserContext;
  let problems: string[] = [];

  const origin = (board = dashboard) => `http://127.0.0.1:${board.port}/`;
  const runHash = (runId: string, task?: string) =>
    `#/runs/${encodeURIComponent(runId)}${task === undefined ? '' : `?task=${encodeURIComponent(task)}`}`;

  beforeAll(async () => {
    home = tempHome();
    await seed(home);
    store = lazyExistingStore(() => openExistingRunStore({ home }));
    dashboard = await startDashboard({ store, port: 0, pollMs: 50, heartbeatMs: 1_000, storeLabel: home });
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await dashboard?.close();
    await store?.close();
  });

  afterEach(async () => {
    await context?.close();
  });

  async function openPage(board = dashboard): Promise<Page> {
    context = await chromium.newContext();
    const page = await context.newPage();
    problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(board.url);
    return page;
  }

  it('hostile text shows as text on every run page, runs nothing, and odd ids navigate', async () => {
    const page = await openPage();
    for (const [hash, ready] of [
      ['#/runs', '#runs tbody tr[data-run]'],
      [runHash('__proto__', ODD_TASK), '#node-panel .output'],
      [runHash(ODD_RUN, EVIL), '#node-panel .output'],
      [`#/runs/${encodeURIComponent(ODD_RUN)}/plans`, 'svg.dag g.node'],
      [`#/runs/${encodeURIComponent(ODD_RUN)}/teams`, 'h1'],
    ] as const) {
      await page.goto(origin() + hash);
      await page.locator(ready).first().waitFor();
      expect(await page.evaluate('window.__xss'), hash).toBeUndefined();
      expect(await page.locator('main script, main img, main iframe, main [onload], main [onerror]').count()).toBe(0);
    }
    // The failed run's panel: its id, its objective, its tool call, all as the text they are.
    await page.goto(origin() + runHash(ODD_RUN, EVIL));
    const panel = page.locator('#node-panel');
    await panel.locator('.output').waitFor();
    expect(await panel.locator('h2').textContent()).toBe(EVIL.replace('\u202E', '[U+202E]'));
    expect(await page.locator('#run-page h1 code').textContent()).toBe(ODD_RUN);
    expect(await panel.locator('.tool-calls code').first().textContent()).toContain('<img src=x onerror=');
    // A bidi override in a tool's name does not reverse the page's own words after it.
    expect(await panel.locator('.tool-calls li').first().textContent()).toContain('[U+202E]evil ok');
    // The reason box fills when the run's end reaches the page, which may come after its panel.
    await page.locator('#run-reason:not([hidden])').waitFor();
    expect(await page.locator('#run-reason').textContent()).toContain('<script>window.__xss=1</script>');
    // Markdown: no javascript: link survives, the heading's tags are text.
    expect(await panel.locator('.output a[href^="javascript"], .output img').count()).toBe(0);
    expect(await panel.locator('.output h1').first().textContent()).toContain('<svg onload=');
    // A node with an odd id opens with the keyboard.
    await page.locator(`#dag g.node[data-id="${ODD_TASK}"]`).focus();
    await page.keyboard.press('Enter');
    await page.locator(`#node-panel[data-task="${ODD_TASK}"]`).waitFor();
    // Space opens one too, and does not scroll the page away from it.
    await page.locator('#dag g.node[data-id="__proto__"]').focus();
    const scrolled = await page.evaluate('window.scrollY');
    await page.keyboard.press(' ');
    await page.locator('#node-panel[data-task="__proto__"]').waitFor();
    expect(await page.evaluate('window.scrollY')).toBe(scrolled);
    // A `%` that starts no escape is taken as typed.
    await page.goto(`${origin()}#/runs/100%`);
    await expect.poll(() => page.locator('main .error').textContent()).toBe('No run "100%"');
    expect(problems).toEqual([]);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    // The `__proto__` subtask did not poison the server: its next answers are still right.
    const statuses = await page.evaluate(
      `Promise.all(['/api/runs', '/api/runs/live-one/plans', '/api/runs/live-one/teams'].map((path) => fetch(path).then((r) => r.status)))`,
    );
    expect(statuses).toEqual([200, 200, 200]);
  }, 60_000);

  it('a ?task= naming no subtask says so in the panel', async () => {
    const page = await openPage();
    await page.goto(origin() + runHash('__proto__', 'no-such-subtask'));
    await expect.poll(() => page.locator('#panel-error').textContent()).toContain('No subtask "no-such-subtask"');
  }, 30_000);

  it('a filter switched while an answer is on its way shows the last choice', async () => {
    const page = await openPage();
    // The answer for "failed" is slow, the one for "completed" quick: the slow one must not win.
    await page.route(/\/api\/runs\?.*status=failed/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.continue();
    });
    await page.goto(`${origin()}#/runs`);
    await page.locator('#runs tbody tr[data-run]').first().waitFor();
    await page.selectOption('#status-filter', 'failed');
    await page.selectOption('#status-filter', 'completed');
    await page.waitForTimeout(1_500);
    const shown = await page
      .locator('#runs tbody tr[data-run]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run')));
    expect(shown).toEqual(['__proto__']);
  }, 30_000);

  it('a stream refused as BUSY is said and retried; the back button leaves no stream open', async () => {
    const busy = await startDashboard({ store, port: 0, pollMs: 50, heartbeatMs: 1_000, maxStreams: 1 });
    try {
      const page = await openPage(busy);
      await page.goto(origin(busy) + runHash('live-one'));
      await page.locator('#run-page[data-events="7"]').waitFor();
      // Back to the list and forward again, twice: with the cap at one stream, a stream left open would be 503.
      for (let round = 0; round < 2; round++) {
        await page.goBack();
        await page.locator('#runs').waitFor();
        await page.goForward();
        await page.locator('#run-page[data-events="7"]').waitFor();
      }
      await page.waitForTimeout(500);
      expect(await page.locator('#stream-note').isHidden()).toBe(true);
      // A second tab on the same run: refused, and the page says why.
      const second = await context.newPage();
      await second.goto(origin(busy) + runHash('live-one'));
      const note = second.locator('#stream-note');
      await expect.poll(() => note.textContent(), { timeout: 10_000 }).toContain('BUSY');
      expect(await second.locator('#run-page').getAttribute('data-events')).toBe('0');
      // The first tab closes: the retry gets the stream and the page goes live.
      await page.close();
      await note.waitFor({ state: 'hidden', timeout: 15_000 });
      await second.locator('#run-page[data-events="7"]').waitFor();
    } finally {
      await context.close();
      await busy.close();
    }
  }, 60_000);

  it('a server restarted with a new token: the running run says its updates stopped and why', async () => {
    const page = await openPage();
    await page.goto(origin() + runHash('live-one'));
    await page.locator('#run-page[data-events="7"]').waitFor();
    const port = dashboard.port;
    await dashboard.close();
    await expect.poll(() => page.locator('#stream-note').textContent(), { timeout: 10_000 }).toContain('reconnecting');
    dashboard = await startDashboard({ store, port, pollMs: 50, heartbeatMs: 1_000 });
    await expect
      .poll(() => page.locator('#stream-note').textContent(), { timeout: 15_000 })
      .toContain('token is no longer valid');
    expect(await page.locator('#stream-note').getAttribute('data-state')).toBe('stopped');
    expect(problems).toEqual([]);
  }, 60_000);
});
