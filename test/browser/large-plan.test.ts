/**
 * A 10,000-subtask run's page in a real browser: the plan is drawn on a canvas (as SVG it would be some 80,000
 * elements), every subtask's status reaches the drawing, a click on a subtask and the "go to subtask" box both open
 * its panel. In npm run test:long (a 10,000-subtask run and a browser).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/parse-workflow.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';
import { type RunningDashboard, startDashboard } from '../../src/ui/serve-dashboard.js';
import { tempHome } from '../cli/cli-harness.js';
import { artifactPath, browserSkipReason, type LaunchedBrowser, launchChromium } from './browser-harness.js';

const skipReason = await browserSkipReason();
if (skipReason) console.log(`[large-plan] skipping the browser test: ${skipReason}`);

const RANKS = Number(process.env.LARGE_PLAN_RANKS ?? 100);
const WIDTH = 100;
const SUBTASKS = RANKS * WIDTH;

/** 100 ranks of 100 subtasks, each after one or two of the rank before. */
function largePlan(): WorkflowJson {
  const id = (rank: number, index: number) => `r${rank}-${index}`;
  const subtasks = [];
  for (let rank = 0; rank < RANKS; rank++)
    for (let index = 0; index < WIDTH; index++)
      subtasks.push({
        id: id(rank, index),
        objective: `Part ${index} of step ${rank}`,
        agent: index % 3 === 0 ? 'writer' : 'checker',
        dependsOn: rank === 0 ? [] : [...new Set([id(rank - 1, index), id(rank - 1, (index * 7) % WIDTH)])],
        status: 'not started' as const,
        attempts: 0,
      });
  return { task: 'A plan of ten thousand parts', subtasks };
}

/** Answers at once: an output per subtask, and every verification accepts. */
const instant: ChatModel = {
  id: 'test:instant',
  kind: 'sim',
  async generate(call) {
    const text = call.tag?.purpose === 'verify' ? '{"verdict":"accept","reason":"ok"}' : `done ${call.tag?.key ?? ''}`;
    return { text, usage: { inputTokens: 1, outputTokens: 1 }, model: 'instant' };
  },
};

describe.skipIf(skipReason !== undefined)('a 10,000-subtask run page in chromium', () => {
  let chromium: LaunchedBrowser;
  let store: RunStore;
  let dashboard: RunningDashboard;
  let context: BrowserContext;
  let page: Page;
  let runId: string;
  const errors: string[] = [];

  beforeAll(async () => {
    const home = tempHome();
    store = await openRunStore({ home });
    const plan = workflowFromJson(largePlan());
    const handle = runTask({ task: plan.task, plan, model: instant, store });
    runId = handle.runId;
    const result = await handle.result;
    expect(result.status).toBe('completed');
    dashboard = await startDashboard({ store, port: 0 });
    chromium = await launchChromium();
    context = await chromium.newContext();
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
  }, 600_000);

  afterAll(async () => {
    await context?.close();
    await chromium?.close();
    await dashboard?.close();
    await store?.close();
  });

  it('draws the plan on a canvas with every status, and opens a subtask by click and by id', async () => {
    // The printed URL carries the token; the page keeps it for the run page and the API.
    await page.goto(dashboard.url);
    await page.goto(`http://127.0.0.1:${dashboard.port}/#/runs/${runId}`);
    const dag = page.locator(`#dag.dag-canvas[data-nodes="${SUBTASKS}"]`);
    await dag.waitFor({ state: 'attached', timeout: 120_000 }).catch(async (error: unknown) => {
      throw new Error(
        `${String(error)}; page errors: ${errors.join(' | ')}; body: ${(await page.locator('body').textContent())?.slice(0, 800)}`,
      );
    });
    // Every subtask's status reached the drawing, and the drawing drew something.
    await page.locator(`#dag[data-status-completed="${SUBTASKS}"]`).waitFor({ state: 'attached', timeout: 120_000 });
    expect(Number(await dag.getAttribute('data-drawn'))).toBeGreaterThan(0);
    expect(await page.locator('#dag canvas').count()).toBe(1);
    expect(await page.locator('#dag g.node').count()).toBe(0);
    await page.screenshot({ path: artifactPath('large-plan.png') });

    // At 100 %, scrolled to the top left: the first subtask of the first rank is where the layout put it.
    await page.locator('.zoom-reset').click();
    const layout = (await (
      await page.request.get(`http://127.0.0.1:${dashboard.port}/api/runs/${runId}/layout`)
    ).json()) as {
      layout: { nodes: { id: string; x: number; y: number; width: number; height: number }[] };
    };
    const first = [...layout.layout.nodes].sort((a, b) => a.y - b.y || a.x - b.x)[0]!;
    const box = (await page.locator('#dag canvas').boundingBox())!;
    await page.mouse.click(box.x + first.x, box.y + first.y);
    await page.locator(`#node-panel[data-task="${first.id}"]`).waitFor({ timeout: 60_000 });

    // The keyboard's way to a subtask on a canvas: its id in the box.
    await page.locator('#subtask-find').fill(`r${RANKS - 1}-42`);
    await page.locator('#subtask-find').press('Enter');
    const panel = page.locator(`#node-panel[data-task="r${RANKS - 1}-42"]`);
    await panel.waitFor({ timeout: 60_000 });
    expect(await panel.locator('dd.objective').textContent()).toBe(`Part 42 of step ${RANKS - 1}`);
    await page.locator('#subtask-find').fill('no-such-subtask');
    await page.locator('#subtask-find').press('Enter');
    await page.getByText('no subtask no-such-subtask').waitFor();
    expect(errors).toEqual([]);
  });
});
