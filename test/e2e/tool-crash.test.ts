/**
 * The tool crash test: a real `weft run --tools` process is killed with SIGKILL while a tool call is in flight
 * (the order service has received the request and holds its answer), then `weft resume` finishes the run. Counted
 * on the server: no order is ever placed twice; a lookup (idempotent) that was in flight is made again; a
 * placement that was in flight is not, and its subtask fails saying so.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import { useOrderServer } from '../run/tool-fixtures.js';
import { ORDERS_MODEL, orderRunFiles } from './tool-cli-setup.js';
import { jsonDocument, ROOT, weft } from './weft-cli.js';
import { runEvents } from '../../src/run/run-events.js';

const server = useOrderServer();

/** Runs `weft run` until the server holds a request matching `route`, then kills it with SIGKILL. */
function runUntilHeld(args: readonly string[], route: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let held = false;
    server().hold = (candidate) => candidate === route;
    server().onHeld = () => {
      if (held) return;
      held = true;
      child.kill('SIGKILL');
    };
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (held) resolve();
      else reject(new Error(`weft run ended (${code ?? signal}) before a ${route} request: ${stderr}`));
    });
  });
}

async function killAndResume(route: string) {
  const files = orderRunFiles(server().url);
  await runUntilHeld(
    [
      'run',
      '--plan',
      files.plan,
      '--tools',
      files.tools,
      '--model',
      ORDERS_MODEL,
      '--strategy',
      'none',
      '--home',
      files.home,
    ],
    route,
  );
  const atKill = new Map(server().posted);
  server().hold = undefined;
  const store = await openRunStore({ home: files.home });
  const [run] = await store.listRuns();
  await store.close();
  // The tools file is the one recorded at the start: resume is given no --tools.
  const resumed = await weft(['resume', run!.runId, '--home', files.home, '--json']);
  const document = jsonDocument(resumed);
  const reopened = await openRunStore({ home: files.home });
  const events = await runEvents(reopened, run!.runId);
  await reopened.close();
  const tasks = document.tasks as { id: string; status: string; output: string | null; reason?: string }[];
  return { document, tasks, events, atKill };
}

describe('kill -9 during a tool loop, then weft resume', () => {
  it('in flight: a placement. It is not placed again; its subtask fails saying why; no order is placed twice', async () => {
    const { tasks, atKill } = await killAndResume('POST /orders');
    // The held placement reached the server before the kill; its subtask must not place it again.
    expect(atKill.size).toBeGreaterThanOrEqual(1);
    for (const id of ['a', 'b', 'c']) {
      const task = tasks.find((candidate) => candidate.id === id)!;
      // Never placed twice. Placed before the kill: failed (its answer was never logged). Started but killed before
      // its request left: failed too (the log cannot tell). Otherwise placed once after the resume, and completed.
      expect(server().posted.get(id) ?? 0, `orders for ${id}`).toBeLessThanOrEqual(1);
      if (atKill.has(id)) expect(task.status).toBe('failed');
      if (task.status === 'failed') expect(task.reason).toMatch(/tool call create_order .* may have run; not repeated/);
      else {
        expect(task.output).toMatch(new RegExp(`^order \\d+ for ${id}: placed$`));
        expect(server().posted.get(id)).toBe(1);
      }
    }
  }, 60_000);

  it('in flight: a lookup. It is made again; no order is placed twice', async () => {
    const { tasks, events } = await killAndResume('GET /orders');
    for (const [item, count] of server().posted) expect(count, `orders for ${item}`).toBe(1);
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
      const task = tasks.find((candidate) => candidate.id === id)!;
      // Another clerk's placement may have been in flight too (answered, the answer not yet logged): that one fails.
      if (task.status === 'failed') expect(task.reason).toMatch(/tool call create_order .* may have run; not repeated/);
      else expect(task.output).toMatch(new RegExp(`^order \\d+ for ${id}: placed$`));
      if (reissued.includes(id)) expect(task.status).toBe('completed');
    }
  }, 60_000);
});
