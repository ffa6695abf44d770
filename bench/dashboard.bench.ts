/**
 * The dashboard under a 10,000-subtask zero-latency run: a real page in chromium follows the run live
 * while another process runs it, and must receive every event (its `data-events` equals the store's count).
 * Measured: the page's lag behind the run's end, the server's CPU time per 1,000 events streamed (process.cpuUsage
 * around an EventSource that only counts, so the page's own drawing is not in it), the layout time for the
 * 10k-node plan, the longest block of the server's event loop, and the page's time from navigation to the
 * 10k-node DAG drawn and every event folded. Skips, saying why, without chromium.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { openExistingRunStore } from '../src/store/open-store.js';
import { layoutPlan } from '../src/ui/layout-plan.js';
import { lazyExistingStore } from '../src/ui/lazy-store.js';
import { startDashboard } from '../src/ui/serve-dashboard.js';
import { browserSkipReason, launchChromium, REPO } from '../test/browser/browser-harness.js';
import type { Bench, BenchReport } from './report.js';

const NODES = 10_000;
const RUN_ID = '20000101-000000-b10k';
const progress = (text: string) => process.stderr.write(`  [dashboard] ${text}\n`);

export const dashboardBench: Bench = {
  name: 'dashboard',
  async run(): Promise<BenchReport> {
    const title = `Dashboard: a ${NODES.toLocaleString('en')}-subtask zero-latency run followed live in chromium`;
    const skip = await browserSkipReason();
    if (skip) return { title, rows: [], notes: [`skipped: ${skip}`] };
    const home = mkdtempSync(join(tmpdir(), 'weft-bench-dashboard-'));
    const store = lazyExistingStore(() => openExistingRunStore({ home }));
    const dashboard = await startDashboard({ store, port: 0 });
    const origin = `http://127.0.0.1:${dashboard.port}`;
    const chromium = await launchChromium();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    try {
      const context = await chromium.newContext();
      const page = await context.newPage();
      await page.goto(dashboard.url);

      // Live: the run in another process; the page opens its run page as soon as the run exists.
      loop.enable();
      const liveCpu = process.cpuUsage();
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join('bench', 'dashboard-run-child.ts'), home, RUN_ID, String(NODES)],
        { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let childOut = '';
      child.stdout!.setEncoding('utf8').on('data', (text: string) => (childOut += text));
      const childExit = new Promise<number | null>((resolve) => child.once('exit', resolve));
      progress('the run starts in its own process');
      while (!(await store.getRun(RUN_ID))) await sleep(20);
      const liveStart = performance.now();
      await page.goto(`${origin}/#/runs/${RUN_ID}`);
      if ((await childExit) !== 0) throw new Error('the benchmark run failed');
      const runEnd = performance.now();
      const run = JSON.parse(childOut) as { status: string; ms: number };
      if (run.status !== 'completed') throw new Error(`the benchmark run ended ${run.status}`);
      const events = (await store.events(RUN_ID)).length;
      progress(`the run ended (${events} events); waiting for the page`);
      await waitForAttribute(page, '#run-page', 'data-events', String(events), 600_000);
      const caughtUp = performance.now();
      const liveCpuMs = cpuMs(process.cpuUsage(liveCpu));
      loop.disable();
      // A plan this large is drawn on a canvas (web/views/dag-canvas.js), which says what it holds in attributes.
      const liveNodes = Number(await page.locator('#dag').getAttribute('data-nodes'));
      const liveCompleted = Number(await page.locator('#dag').getAttribute('data-status-completed'));

      progress('the page caught up; layout alone');
      // The layout on its own (the live page asked for it once; the server caches it per plan version).
      const versions = await store.planVersions(RUN_ID);
      const layoutStart = performance.now();
      const layout = layoutPlan(versions.at(-1)!.workflow);
      const layoutMs = performance.now() - layoutStart;
      const layoutBytes = JSON.stringify(layout).length;

      progress('the stream alone');
      // The stream alone: an EventSource in the page that only counts; server CPU around it.
      const streamCpu = process.cpuUsage();
      const streamStart = performance.now();
      const counted = await page.evaluate(
        ({ url, expected }) =>
          new Promise<number>((resolve, reject) => {
            let seen = 0;
            const source = new EventSource(url);
            source.addEventListener('weft', () => {
              seen += 1;
              if (seen === expected) {
                source.close();
                resolve(seen);
              }
            });
            source.onerror = () => reject(new Error(`the stream failed after ${seen} events`));
          }),
        { url: `/api/runs/${RUN_ID}/events`, expected: events },
      );
      const streamMs = performance.now() - streamStart;
      const streamCpuMs = cpuMs(process.cpuUsage(streamCpu));

      progress('the page from navigation');
      // The page from navigation to the 10k-node DAG drawn and every event folded (layout cached on the server).
      await page.goto('about:blank');
      const renderCpu = process.cpuUsage();
      const renderStart = performance.now();
      await page.goto(`${origin}/#/runs/${RUN_ID}`);
      await page
        .locator(`#dag[data-nodes="${NODES}"]:not([data-drawn="0"])`)
        .waitFor({ state: 'attached', timeout: 600_000 });
      const dagMs = performance.now() - renderStart;
      await waitForAttribute(page, '#run-page', 'data-events', String(events), 600_000);
      const foldedMs = performance.now() - renderStart;
      const renderCpuMs = cpuMs(process.cpuUsage(renderCpu));

      return {
        title,
        rows: [
          { label: 'events stored (the page received all)', value: counted },
          { label: 'run wall time (its own process)', value: run.ms, unit: 'ms' },
          { label: 'live: page caught up after the run ended', value: caughtUp - runEnd, unit: 'ms' },
          { label: 'live: server CPU per 1,000 events (all routes)', value: (liveCpuMs / events) * 1000, unit: 'ms' },
          { label: 'live: server event loop, longest block', value: loop.max / 1e6, unit: 'ms' },
          {
            label: 'stream only: server CPU per 1,000 events',
            value: (streamCpuMs / events) * 1000,
            unit: 'ms',
            goal: { comparison: '<', target: 50 },
          },
          { label: 'stream only: events per second', value: events / (streamMs / 1000) },
          { label: 'layout of the 10k-node plan (server, in-thread)', value: layoutMs, unit: 'ms' },
          {
            label: 'page: navigation to 10k nodes drawn',
            value: dagMs,
            unit: 'ms',
            goal: { comparison: '<', target: 2000 },
          },
          { label: 'page: navigation to every event folded', value: foldedMs, unit: 'ms' },
          { label: 'page load: server CPU per 1,000 events', value: (renderCpuMs / events) * 1000, unit: 'ms' },
        ],
        notes: [
          `live: the page opened the run page ${((runEnd - liveStart) / 1000).toFixed(1)} s before the run's process ended; ${liveNodes} nodes drawn, ${liveCompleted} completed; ${(liveCpuMs / 1000).toFixed(1)} s server CPU in all (the run API's summary, the layout's JSON, the stream).`,
          `layout: ${layout.nodes.length} nodes, ${layout.edges.length} edges, ${(layoutBytes / 1e6).toFixed(1)} MB of JSON (layered-layout.ts above 1,000 subtasks; the server computes it in a worker thread).`,
          'The longest event-loop block is the run API folding a page of events and summarising the run (reads are paged), not the layout.',
          'The server, the run and chromium share this machine; "server CPU" is this process (the server and the bench, not the run or the browser).',
        ],
      };
    } finally {
      loop.disable();
      await chromium.close();
      await dashboard.close();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    }
  },
};

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Locators, not waitForFunction: the page's CSP forbids the eval that a function polled in the page needs. */
async function waitForAttribute(page: Page, selector: string, name: string, value: string, timeout: number) {
  await page.locator(`${selector}[${name}="${value}"]`).waitFor({ state: 'attached', timeout });
}
