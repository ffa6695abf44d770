/**
 * The dashboard in a real browser (chromium driven by playwright-core), over a real SQLite store: a run started
 * in another process after the page is open appears and animates without a reload; a node's panel shows its
 * objective and output; a subtask that completed with failed tool calls is marked, not green; the token guards
 * pages and API; model text stays inert; the live stream resumes after the server goes away and comes back, with
 * no event twice. Screenshots go to test-artifacts/; with
 * WEFT_UPDATE_SCREENSHOT=1 the run page is also written to docs/dashboard.png (docs/operations.md shows it).
 * In npm run test:long (a browser, a child process and a few live runs: about 30 s).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openExistingRunStore, openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import { lazyExistingStore, type LazyStore } from '../../src/ui/lazy-store.js';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';
import { runTask } from '../../src/run/run-task.js';
import { cli, tempHome } from '../cli/cli-harness.js';
import { CARD, PLAN, recordedScriptedModel, refundTool } from '../run/refund-fixtures.js';
import {
  ARTIFACTS,
  artifactPath,
  browserSkipReason,
  type LaunchedBrowser,
  launchChromium,
  REPO,
} from './browser-harness.js';

const skipReason = await browserSkipReason();
if (skipReason) console.log(`[dashboard-live] skipping the browser tests: ${skipReason}`);

/** Eight subtasks on three levels; with this seed t5's first attempt fails verification and is retried. */
const LIVE_MODEL = 'sim:seed=6,fail=0.15,tasks=8,latency=fixed(700)';
const NODE_STATUSES = `[...document.querySelectorAll('#dag g.node')].map((node) => node.getAttribute('data-status'))`;
const XSS_TASK = 'Summarise <script>window.__xss=1</script> and <img src=x onerror="window.__xss=1"> please';

describe.skipIf(skipReason !== undefined)('the dashboard in chromium', () => {
  let chromium: LaunchedBrowser;
  let home: string;
  let store: LazyStore;
  let dashboard: RunningDashboard;
  let context: BrowserContext;
  const children: ChildProcess[] = [];

  const origin = () => `http://127.0.0.1:${dashboard.port}`;
  const start = (port = 0, token?: string) =>
    startDashboard({
      store,
      port,
      pollMs: 50,
      heartbeatMs: 1_000,
      storeLabel: join(home, 'weft.db'),
      ...(token ? { token } : {}),
    });

  beforeAll(async () => {
    home = tempHome();
    // As `weft serve` does: started before any run exists, it opens the store once there is one.
    store = lazyExistingStore(() => openExistingRunStore({ home }));
    dashboard = await start();
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await dashboard?.close();
    await store?.close();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await context?.close();
  });

  async function openPage(): Promise<Page> {
    context = await chromium.newContext();
    const page = await context.newPage();
    // Every message each EventSource delivers, before the page's own dedup by sequence: a server that sent an
    // event twice after a reconnect shows here even though the page would fold it once.
    // (Strings, not functions: this file is typed for Node, without the DOM's types.)
    await page.addInitScript(`{
      const seen = [];
      let opened = 0;
      class Counting extends window.EventSource {
        constructor(url, init) {
          super(url, init);
          this.addEventListener('open', () => (opened += 1));
          this.addEventListener('weft', (message) => seen.push(message.lastEventId));
        }
      }
      Object.assign(window, { EventSource: Counting, __sse: () => ({ seen, opened }) });
    }`);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    (page as Page & { problems?: string[] }).problems = problems;
    return page;
  }

  /** How many events the store holds for a run: what the page must have folded, no more, no fewer. */
  async function storedEvents(runId: string): Promise<number> {
    const reader: RunStore = await openRunStore({ home });
    try {
      return (await reader.events(runId)).length;
    } finally {
      await reader.close();
    }
  }

  /** `weft run` in another process (as in another terminal), from the sources. */
  function runInAnotherProcess(task: string, model: string): Promise<number | null> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'run', task, '--model', model, '--home', home],
      { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    return new Promise((resolve) =>
      child.once('exit', (code) => {
        if (code !== 0) console.log(`[dashboard-live] weft run exited ${code}: ${stderr}`);
        resolve(code);
      }),
    );
  }

  it('a run started after the page is open appears and animates live; a node shows its objective and output', async () => {
    const page = await openPage();
    const response = await page.goto(dashboard.url);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    // The token moved into a cookie: the address bar no longer shows it.
    expect(page.url()).not.toContain('token=');
    await page.locator('#runs tbody td.muted').getByText('No runs yet').waitFor();
    await page.evaluate('window.__sameDocument = true');

    const exited = runInAnotherProcess('Write a launch plan for a small bakery', LIVE_MODEL);
    const row = page.locator('#runs tbody tr[data-run]');
    await row.waitFor({ timeout: 60_000 });
    const runId = (await row.getAttribute('data-run'))!;
    await page.locator(`#runs tr[data-run="${runId}"] a`).click();

    const root = page.locator('#run-page');
    await root.waitFor();
    // Seen mid-run: a subtask not yet completed while others are…
    await page.locator('#dag g.node[data-status="completed"]').first().waitFor({ timeout: 60_000 });
    const midRun = await page.evaluate<(string | null)[]>(NODE_STATUSES);
    expect(midRun.some((status) => status !== 'completed')).toBe(true);
    const barsMidRun = await page.locator('#gantt rect.bar').count();
    // t5's first output is sent back by the verifier (a new plan version) and tried again: a second bar, while
    // the subtasks after t5 have not started yet. The moment the screenshot in docs/operations.md shows.
    await page.locator('#gantt rect.bar[data-task="t5"][data-attempt="2"]').waitFor({ timeout: 60_000 });
    await page.locator('#dag g.node[data-id="t1"]').click();
    await page.locator('#node-panel[data-task="t1"]').waitFor();
    // The timeline redraws at most twice a second: let it catch up with the graph for the picture.
    await page.waitForTimeout(600);
    const shot = await page.screenshot({ path: artifactPath('run-page-live.png'), fullPage: true });
    if (process.env['WEFT_UPDATE_SCREENSHOT'] === '1') writeFileSync(join(REPO, 'docs', 'dashboard.png'), shot);

    // …then, with no reload, every node completed and the run too.
    expect(await exited).toBe(0);
    await page.locator('#run-page[data-status="completed"]').waitFor({ timeout: 30_000 });
    const statuses = await page.evaluate<(string | null)[]>(NODE_STATUSES);
    expect(statuses).toHaveLength(8);
    expect(new Set(statuses)).toEqual(new Set(['completed']));
    expect(await page.locator('#gantt rect.bar').count()).toBeGreaterThan(barsMidRun);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    const expected = await storedEvents(runId);
    await page.locator(`#run-page[data-events="${expected}"]`).waitFor();

    // The panel: the plan's objective and the stored output, rendered from Markdown.
    const reader = await openRunStore({ home });
    const versions = await reader.planVersions(runId);
    await reader.close();
    const t1 = versions.at(-1)!.workflow.subtasks.find((subtask) => subtask.id === 't1')!;
    await page.locator('#dag g.node[data-id="t2"]').click();
    await page.locator('#dag g.node[data-id="t1"]').click();
    const panel = page.locator('#node-panel[data-task="t1"]');
    await panel.waitFor();
    expect(await panel.locator('dd.objective').textContent()).toBe(t1.objective);
    const output = readFileSync(join(home, 'runs', runId, 'outputs', 't1.md'), 'utf8').trim();
    expect((await panel.locator('.output').last().textContent())?.trim()).toBe(output);
    await page.screenshot({ path: artifactPath('run-page-done.png'), fullPage: true });
    expect((page as Page & { problems?: string[] }).problems).toEqual([]);
  }, 180_000);

  it('without the token, or with a wrong one, pages and API answer 401', async () => {
    const page = await openPage();
    for (const path of ['/', '/app.js', '/api/runs', `/?token=${'x'.repeat(32)}`, '/api/runs?token=wrong']) {
      const response = await page.goto(`${origin()}${path}`);
      expect(response?.status(), path).toBe(401);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    }
    expect(await page.locator('body').textContent()).toContain('Missing or wrong token');
    // The right token, once: afterwards the cookie is enough, for the page and for its API calls.
    expect((await page.goto(dashboard.url))?.status()).toBe(200);
    expect((await page.goto(`${origin()}/api/runs`))?.status()).toBe(200);
    await page.screenshot({ path: artifactPath('api-with-cookie.png') });
  }, 60_000);

  it('a task carrying <script> and <img onerror> shows as text and runs nothing', async () => {
    const result = await cli(['run', XSS_TASK, '--model', 'sim:seed=2,tasks=3', '--home', home, '--json']);
    expect(result.code).toBe(0);
    const runId = (JSON.parse(result.stdout) as { runId: string }).runId;
    const page = await openPage();
    const blocked: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(origin())) blocked.push(request.url());
    });
    await page.goto(dashboard.url);
    const row = page.locator(`#runs tr[data-run="${runId}"]`);
    await row.waitFor();
    expect(await row.locator('td.task').textContent()).toBe(XSS_TASK);
    await row.locator('a').click();
    await page.locator('#run-page[data-status="completed"]').waitFor();
    expect(await page.locator('#run-task').textContent()).toBe(XSS_TASK);
    await page.locator('#dag g.node[data-id="t1"]').click();
    await page.locator('#node-panel[data-task="t1"] dd.objective').waitFor();
    expect(await page.locator('#node-panel dd.objective').textContent()).toContain('<img src=x onerror=');
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.evaluate('typeof window.__xss')).toBe('undefined');
    expect(blocked).toEqual([]);
    await page.screenshot({ path: artifactPath('xss-run.png'), fullPage: true });
  }, 60_000);

  it('a subtask that completed with failed tool calls is drawn amber with a mark and its count, not green', async () => {
    // The refund of refund-fixtures.ts, unverified: its call fails (HTTP 409) and the subtask completes anyway.
    const writer = await openRunStore({ home });
    const result = await runTask({
      task: PLAN.task,
      plan: PLAN,
      model: await recordedScriptedModel(home),
      store: writer,
      home,
      tools: { available: [refundTool()] },
      run: { verify: false },
    });
    await writer.close();
    expect(result).toMatchObject({ status: 'completed', toolCallsFailed: 1 });
    const page = await openPage();
    await page.goto(dashboard.url);
    await page.goto(`${origin()}/#/runs/${result.runId}`);
    await page.locator('#run-page[data-status="completed"]').waitFor({ timeout: 30_000 });
    const node = page.locator('#dag g.node[data-id="refund"][data-status="completed"][data-tool-failures="1"]');
    await node.waitFor();
    expect(await node.locator('g.tool-warn text').textContent()).toBe('⚠ 1');
    expect(await node.locator('title').textContent()).toBe('refund: 1 failed tool call');
    const fill = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('#dag g.node[data-id="refund"] > rect')).fill`,
    );
    // Not --done-bg (#e3f3e4), the plain green of a completed subtask: --warn-bg (#fff7c2).
    expect(fill).toBe('rgb(255, 247, 194)');
    expect(await page.locator('#status-counts [data-status="tool-failures"]').textContent()).toBe(
      '⚠ 1 completed with failed tool calls',
    );
    expect(await page.locator('#run-stats').textContent()).toContain('tool calls1 (1 failed)');
    await node.click();
    const panel = page.locator('#node-panel[data-task="refund"]');
    await panel.waitFor();
    expect(await panel.locator('dd.tool-count.warn').textContent()).toBe(
      '⚠ 1 (1 failed: check the output against them)',
    );
    expect(await panel.locator('h4').first().textContent()).toBe('tool calls (1, 1 failed)');
    expect(await panel.locator('.tool-calls li.failed pre.error').textContent()).toContain('HTTP 409');
    expect(await panel.textContent()).not.toContain(CARD);
    await page.screenshot({ path: artifactPath('tool-failures.png'), fullPage: true });
    expect((page as Page & { problems?: string[] }).problems).toEqual([]);
  }, 60_000);

  it('the live stream resumes after the server goes away and comes back, with no event twice', async () => {
    const page = await openPage();
    await page.goto(dashboard.url);
    const running = cli([
      'run',
      'Plan a garden in three beds',
      '--model',
      'sim:seed=4,tasks=8,latency=fixed(500)',
      '--home',
      home,
      '--json',
    ]);
    // Straight to the run's page as soon as the run exists (the runs list would take up to its 2 s refresh).
    let runId: string | undefined;
    while (!runId) {
      runId = (await store.listRuns()).find((run) => run.task.startsWith('Plan a garden'))?.runId;
      if (!runId) await page.waitForTimeout(50);
    }
    await page.goto(`${origin()}/#/runs/${runId}`);
    await page.locator('#run-page[data-status="running"] #dag g.node').first().waitFor({ timeout: 30_000 });
    const before = Number(await page.locator('#run-page').getAttribute('data-events'));
    expect(before).toBeGreaterThan(0);

    // The server goes away mid-run (its open streams dropped), and comes back on the same port a moment later,
    // with the same token (a new `weft serve` would print a new one, and the page's cookie would be refused).
    const { port, token } = dashboard;
    await dashboard.close();
    await page.waitForTimeout(400);
    dashboard = await start(port, token);

    const result = await running;
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { runId: string }).runId).toBe(runId);
    await page.locator('#run-page[data-status="completed"]').waitFor({ timeout: 30_000 });
    const expected = await storedEvents(runId);
    await page.locator(`#run-page[data-events="${expected}"]`).waitFor({ timeout: 10_000 });
    expect(expected).toBeGreaterThan(before);
    const sse = await page.evaluate<{ seen: string[]; opened: number }>('window.__sse()');
    // Two connections (the first dropped with the server), and every event exactly once across them.
    expect(sse.opened).toBeGreaterThanOrEqual(2);
    expect(sse.seen).toHaveLength(expected);
    expect(new Set(sse.seen).size).toBe(expected);
    await page.screenshot({ path: artifactPath('resumed-run.png'), fullPage: true });
    console.log(`[dashboard-live] screenshots in ${ARTIFACTS}`);
  }, 90_000);
});
