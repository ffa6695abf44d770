/**
 * The details a person reads on the dashboard, in chromium over a seeded SQLite store: an attempt the verifier sent
 * back (replan) is labelled by its verdict, not "completed"; a subtask that completed with a failed tool call
 * carries the amber warning in the run's header, the runs list, the timeline and the node panel; measured numbers
 * (an attempt's duration, a trace's call times) show a few significant digits, and the trace's step column is
 * filled; a two-workflow eval report has numbers in the reports list. In npm run test:long (about 10 s).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openExistingRunStore, openRunStore } from '../../src/store/open-store.js';
import { traceStoreOf } from '../../src/store/traces.js';
import { type LazyStore, lazyExistingStore } from '../../src/ui/lazy-store.js';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';
// @ts-expect-error: web/ is plain JS with JSDoc (checked by tsconfig.web.json), no declarations here.
import { formatNumber } from '../../web/format.js';
import { tempHome } from '../cli/cli-harness.js';
import { artifactPath, browserSkipReason, type LaunchedBrowser, launchChromium } from './browser-harness.js';

const skipReason = await browserSkipReason();
if (skipReason) console.log(`[dashboard-details] skipping the browser tests: ${skipReason}`);

const REPLAN_RUN = '20260101-000000-aaaa';
const TOOL_RUN = '20260101-000001-bbbb';
const TRACE = 't-20260101-000002-cccccccc';
/** A float's noise, as performance.now() differences come out: the page must not print it. */
const NOISY_MS = 2.9336839999998574;
const CALL_MS = [NOISY_MS, 0.08283300000016425, 1234.5678];

const subtask = (id: string, agent = 'writer') => ({
  id,
  objective: `do ${id}`,
  agent,
  dependsOn: [],
  status: 'not started',
  attempts: 0,
});

/** A run whose t1 is sent back by the verifier (replan), planned again, and accepted on its second attempt. */
function replanEvents(): unknown[] {
  const v1 = { task: 'Plan a bakery', subtasks: [subtask('t1')] };
  const v2 = { task: 'Plan a bakery', subtasks: [{ ...subtask('t1'), objective: 'do t1 (revised)' }] };
  return [
    { type: 'run-start', at: 0, runId: REPLAN_RUN, task: v1.task, model: 'sim', strategy: 'static', options: {} },
    { type: 'plan-chosen', at: 0.1, version: 1, index: 0, workflow: v1 },
    { type: 'task-start', at: 0.5, taskId: 't1', attempt: 1, agent: 'writer', clone: 0 },
    { type: 'task-end', at: 0.5 + NOISY_MS, taskId: 't1', attempt: 1, status: 'completed', output: 'first try' },
    { type: 'task-verify', at: 3.5, taskId: 't1', attempt: 1, verdict: 'replan', reason: 'the plan misses a step' },
    {
      type: 'plan-update',
      at: 4,
      version: 2,
      cause: 't1: the plan misses a step',
      diff: { added: [], removed: [], changed: ['t1'], rewired: [] },
      workflow: v2,
    },
    { type: 'task-start', at: 5, taskId: 't1', attempt: 2, agent: 'writer', clone: 0 },
    { type: 'task-end', at: 7, taskId: 't1', attempt: 2, status: 'completed', output: 'second try' },
    { type: 'task-verify', at: 7.1, taskId: 't1', attempt: 2, verdict: 'accept', reason: 'meets the objective' },
    { type: 'run-end', at: 8, status: 'completed' },
  ];
}

/** A run whose only subtask completed (and was accepted) although its one tool call failed. */
function toolFailureEvents(): unknown[] {
  const workflow = { task: 'Refund an order', subtasks: [subtask('refund', 'refunds')] };
  return [
    { type: 'run-start', at: 0, runId: TOOL_RUN, task: workflow.task, model: 'sim', strategy: 'static', options: {} },
    { type: 'plan-chosen', at: 0.1, version: 1, index: 0, workflow },
    { type: 'task-start', at: 1, taskId: 'refund', attempt: 1, agent: 'refunds', clone: 0 },
    {
      type: 'tool-call',
      at: 1.5,
      taskId: 'refund',
      attempt: 1,
      sequence: 0,
      step: 0,
      callId: 'c1',
      name: 'issue_refund',
      args: { id: 'R-1' },
    },
    {
      type: 'tool-result',
      at: 2.5,
      taskId: 'refund',
      attempt: 1,
      sequence: 0,
      name: 'issue_refund',
      ok: false,
      error: 'HTTP 409',
      code: 'TOOL',
      durationMs: 1,
    },
    { type: 'task-end', at: 3, taskId: 'refund', attempt: 1, status: 'completed', output: 'Refund issued.' },
    { type: 'task-verify', at: 3.1, taskId: 'refund', attempt: 1, verdict: 'accept', reason: 'looks done' },
    { type: 'run-end', at: 4, status: 'completed' },
  ];
}

async function seed(home: string): Promise<void> {
  const store = await openRunStore({ home });
  try {
    for (const [runId, events] of [
      [REPLAN_RUN, replanEvents()],
      [TOOL_RUN, toolFailureEvents()],
    ] as const) {
      const plans = events.filter((event) => /plan-(chosen|update)/.test((event as { type: string }).type));
      await store.createRun({ runId, task: `task of ${runId}`, model: 'sim', options: {} });
      for (const plan of plans as { version: number; workflow: never; cause?: string }[])
        await store.savePlanVersion({
          runId,
          version: plan.version,
          workflow: plan.workflow,
          cause: plan.cause ?? 'initial',
        });
      await store.appendEvents(runId, events as never);
      await store.setStatus(runId, 'completed');
    }
    await traceStoreOf(store).saveTrace({
      traceId: TRACE,
      task: 'Find the greatest common divisor of a and b',
      mode: 'react',
      model: 'sim',
      input: { a: 8, b: 12 },
      calls: CALL_MS.map((durationMs, step) => ({
        tool: 'modulo',
        args: { step },
        ok: true,
        result: step,
        durationMs,
        step,
      })),
      answer: 4,
      success: true,
      usage: { calls: 4, inputTokens: 600, outputTokens: 87 },
    });
  } finally {
    await store.close();
  }
  // What `weft eval pred.workflow.json --gold ref.workflow.json --json` writes: its scores were only in a table.
  writeFileSync(
    join(home, 'pair.json'),
    JSON.stringify({
      gold: { name: 'gcd', steps: 2 },
      predicted: { name: 'distilled', steps: 2 },
      f1_chain: 0.6666666666666666,
      p_chain: 1,
      r_chain: 0.5,
      f1_graph: 0.5,
      p_graph: 0.5,
      r_graph: 0.5,
    }),
  );
}

describe.skipIf(skipReason !== undefined)('the dashboard’s details in chromium', () => {
  let chromium: LaunchedBrowser;
  let home: string;
  let store: LazyStore;
  let dashboard: RunningDashboard;
  let context: BrowserContext;
  let problems: string[] = [];

  beforeAll(async () => {
    home = tempHome();
    await seed(home);
    store = lazyExistingStore(() => openExistingRunStore({ home }));
    dashboard = await startDashboard({
      store,
      port: 0,
      pollMs: 50,
      heartbeatMs: 1_000,
      storeLabel: home,
      home,
      reports: [join(home, 'pair.json')],
    });
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await dashboard?.close();
    await store?.close();
  });

  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  async function openPage(hash: string): Promise<Page> {
    context = await chromium.newContext();
    const page = await context.newPage();
    problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(dashboard.url);
    await page.goto(`http://127.0.0.1:${dashboard.port}/${hash}`);
    return page;
  }

  it('an attempt sent back with replan is labelled replan, not completed; the accepted one is completed', async () => {
    const page = await openPage(`#/runs/${REPLAN_RUN}?task=t1`);
    const panel = page.locator('#node-panel[data-task="t1"]');
    await panel.waitFor();
    const first = panel.locator('.attempt[data-attempt="1"]');
    expect(await first.getAttribute('data-state')).toBe('rejected');
    expect(await first.locator('h3').textContent()).toBe('attempt 1: replan: sent back by the verifier');
    const second = panel.locator('.attempt[data-attempt="2"]');
    expect(await second.getAttribute('data-state')).toBe('completed');
    expect(await second.locator('h3').textContent()).toBe('attempt 2: completed');
    // The first attempt lasted NOISY_MS: three significant digits, not the float's noise.
    expect(await first.locator('p.muted').first().textContent()).toContain('writer · 2.93 ms · ');
    expect(await panel.textContent()).not.toContain(String(NOISY_MS));
    // The timeline's bar says the verdict too.
    const bar = page.locator('#gantt rect.bar[data-task="t1"][data-attempt="1"]');
    expect(await bar.getAttribute('class')).toBe('bar rejected');
    expect(await bar.locator('title').textContent()).toBe(
      't1 attempt 1 (writer): 2.93 ms, sent back by the verifier (replan)',
    );
    await page.screenshot({ path: artifactPath('details-replan.png'), fullPage: true });
  }, 60_000);

  it('a subtask that completed with a failed tool call is amber with "1 tool call failed" wherever it shows', async () => {
    const page = await openPage(`#/runs/${TOOL_RUN}?task=refund`);
    await page.locator('#run-page[data-status="completed"]').waitFor();
    const warn = page.locator('#run-tool-warn');
    await warn.waitFor();
    expect(await warn.textContent()).toBe('⚠ 1 tool call failed');
    const panel = page.locator('#node-panel[data-task="refund"]');
    await panel.waitFor();
    const attempt = panel.locator('.attempt[data-attempt="1"]');
    expect(await attempt.getAttribute('class')).toBe('attempt completed tool-warn');
    expect(await attempt.locator('h3').textContent()).toBe('attempt 1: completed⚠ 1 tool call failed');
    expect(await attempt.locator('h3 .tag.tool-warn').getAttribute('title')).toBe(
      '1 tool call failed: check the output against them',
    );
    const bar = page.locator('#gantt rect.bar[data-task="refund"]');
    await bar.waitFor();
    expect(await bar.getAttribute('class')).toBe('bar completed tool-warn');
    expect(await bar.locator('title').textContent()).toContain(', 1 tool call failed');
    const fill = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('#gantt rect.bar[data-task="refund"]')).fill`,
    );
    // Not the green of a completed bar (#43a047): amber.
    expect(fill).toBe('rgb(242, 194, 0)');
    await page.screenshot({ path: artifactPath('details-tool-warn.png'), fullPage: true });

    await page.goto(`http://127.0.0.1:${dashboard.port}/#/runs`);
    const row = page.locator(`#runs tr[data-run="${TOOL_RUN}"]`);
    await row.waitFor();
    expect(await row.locator('.tag.tool-warn').getAttribute('title')).toBe('1 tool call failed');
    expect(await page.locator(`#runs tr[data-run="${REPLAN_RUN}"] .tag.tool-warn`).count()).toBe(0);
  }, 60_000);

  it('the trace page rounds its call times and fills its step column', async () => {
    const page = await openPage(`#/traces/${TRACE}`);
    const rows = page.locator('#trace-calls tbody tr');
    await rows.first().waitFor();
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].map((td) => (td.textContent ?? '').trim())),
    );
    // Columns: #, tool, step, arguments, result, ms.
    expect(cells.map((row) => row[2])).toEqual(['1', '2', '3']);
    expect(cells.map((row) => row[5])).toEqual(['2.93', '0.0828', '1235']);
    expect(cells.map((row) => row[5])).toEqual(CALL_MS.map((ms) => formatNumber(ms)));
    expect(
      await page.locator('#trace-calls tbody tr').first().locator('td').nth(2).locator('span').getAttribute('title'),
    ).toBe('model reply 1');
  }, 60_000);

  it('a two-workflow eval report shows its scores in the reports list', async () => {
    const page = await openPage('#/reports');
    const row = page.locator('#reports tbody tr').filter({ hasText: 'pair.json' });
    await row.waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('f1 chain 0.667 · f1 graph 0.5');
  }, 60_000);
});
