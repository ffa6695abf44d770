/**
 * Issue 12's crash test: a real run process is killed with SIGKILL while a tool call is in flight (the order
 * service has received the request and holds its answer), then resumed. Counted on the server: no order is ever
 * placed twice; a lookup (idempotent) that was in flight is made again; a placement that was in flight is not, and
 * its subtask fails saying so.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WeftEvent } from '../../src/run/events.js';
import { resumeRun } from '../../src/run/resume-run.js';
import { openRunStore } from '../../src/store/open-store.js';
import { type OrderServer, orderModel, orderTools, startOrderServer } from '../run/tool-fixtures.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let server: OrderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the child until the server holds a request matching `route`, then kills it with SIGKILL. */
function runUntilHeld(home: string, url: string, route: string): Promise<{ held: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/e2e/tool-run-child.ts'), home, url], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let held = false;
    server!.hold = (candidate) => candidate === route;
    server!.onHeld = () => {
      if (held) return;
      held = true;
      child.kill('SIGKILL');
    };
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!held) reject(new Error(`the run ended (${code ?? signal}) before a ${route} request: ${stderr}`));
      else resolve({ held });
    });
  });
}

async function killAndResume(route: string) {
  server = await startOrderServer();
  const home = mkdtempSync(join(tmpdir(), 'weft-tool-crash-'));
  await runUntilHeld(home, server.url, route);
  server.hold = undefined;
  const atKill = new Map(server.posted);
  const store = await openRunStore({ home });
  try {
    const result = await resumeRun({ runId: 'tools', model: orderModel(), store, home, tools: orderTools(server.url) });
    const events = (await store.events('tools')).map((stored) => stored.event as WeftEvent);
    return { result, events, atKill, posted: server.posted, counts: server.counts };
  } finally {
    await store.close();
  }
}

describe('kill -9 during a tool loop, then resume', () => {
  it('in flight: a placement. It is not placed again; its subtask fails saying why; no order is placed twice', async () => {
    const { result, atKill, posted } = await killAndResume('POST /orders');
    for (const [item, count] of posted) expect(count, `orders for ${item}`).toBe(1);
    const failed = result.tasks.filter((task) => task.status === 'failed' && task.id !== 'sum');
    // Every placement the server received before the kill had no answer on record: those subtasks failed.
    expect(failed.map((task) => task.id).sort()).toEqual([...atKill.keys()].sort());
    for (const task of failed) expect(task.reason).toMatch(/tool call create_order .* may have run; not repeated/);
  }, 30_000);

  it('in flight: a lookup. It is made again; no order is placed twice', async () => {
    const { result, posted, events } = await killAndResume('GET /orders');
    for (const [item, count] of posted) expect(count, `orders for ${item}`).toBe(1);
    // The held lookup's start is logged twice (before the kill and at its re-issue), and its subtask completed.
    const starts = new Map<string, number>();
    for (const event of events)
      if (event.type === 'tool-call' && event.name === 'get_order') {
        const key = `${event.taskId}/${event.attempt}/${event.sequence}`;
        starts.set(key, (starts.get(key) ?? 0) + 1);
      }
    const reissued = [...starts].filter(([, count]) => count === 2).map(([key]) => key.split('/')[0]!);
    expect(reissued.length).toBeGreaterThanOrEqual(1);
    for (const id of ['a', 'b', 'c']) {
      const task = result.tasks.find((candidate) => candidate.id === id)!;
      // Another clerk's placement may have been in flight too (answered, the answer not yet logged): that one fails.
      if (task.status === 'failed') expect(task.reason).toMatch(/tool call create_order .* may have run; not repeated/);
      else expect(task.output).toMatch(new RegExp(`^order \\d+ for ${id}: placed$`));
      if (reissued.includes(id)) expect(task.status).toBe('completed');
    }
  }, 30_000);
});
