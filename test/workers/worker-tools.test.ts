/**
 * Tool-using subtasks on `weft worker`, through BullMQ on a real Redis, against the order service
 * counting requests: tool events come back to the run's log; a worker without the tools, or with other schemas,
 * refuses the job; a worker SIGKILLed during a placement leaves a journal from which the next worker refuses to
 * place the order again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { Tool } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { createQueueRunner } from '../../src/workers/queue-runner.js';
import { runWorker } from '../../src/workers/run-worker.js';
import { ORDERS_MODEL, orderRunFiles } from '../e2e/tool-cli-setup.js';
import { ROOT } from '../e2e/weft-cli.js';
import { orderPlan, useOrderServer } from '../run/tool-fixtures.js';
import { startTestRedis } from './redis-server.js';
import { runEvents } from '../../src/run/run-events.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

const server = useOrderServer();

/** Runs the order plan (a and b, then sum) with the coordinator here and `worker` taking the jobs. */
async function runOnQueue(queue: string, workerTools: readonly Tool[] | undefined) {
  const files = orderRunFiles(server().url, ['a', 'b']);
  const set = await loadToolsFile(files.tools);
  const stop = new AbortController();
  const worker = runWorker({
    redisUrl: redis.url!,
    queueName: queue,
    signal: stop.signal,
    ...(workerTools ? { tools: workerTools } : {}),
  });
  const store = await openRunStore({ home: files.home });
  const runner = await createQueueRunner({ redisUrl: redis.url!, queueName: queue });
  try {
    const result = await runTask({
      task: 'place the orders',
      plan: orderPlan(['a', 'b']),
      model: await createModel(ORDERS_MODEL),
      store,
      home: files.home,
      attemptRunner: runner.attemptRunner,
      run: { strategy: 'none' },
      tools: { available: set.tools },
    });
    const events = await runEvents(store, result.runId);
    return { result, events };
  } finally {
    stop.abort();
    await worker;
    await runner.close();
    await store.close();
    await set.close();
  }
}

describe.skipIf(redis.url === undefined)('tools on workers', () => {
  it('a worker with the tools file runs the tool loops; their events reach the run log; nothing is doubled', {
    timeout: 60_000,
  }, async () => {
    const files = orderRunFiles(server().url);
    const own = await loadToolsFile(files.tools);
    const { result, events } = await runOnQueue(`weft-tools-${process.pid}-${Date.now()}`, own.tools);
    await own.close();
    expect(result.status).toBe('completed');
    expect(result.toolCalls).toBe(4);
    expect(server().counts.get('POST /orders')).toBe(2);
    expect(server().counts.get('GET /orders')).toBe(2);
    const ofA = events.filter((e) => (e.type === 'tool-call' || e.type === 'tool-result') && e.taskId === 'a');
    expect(ofA.map((e) => e.type)).toEqual(['tool-call', 'tool-result', 'tool-call', 'tool-result']);
    // The model calls made on the worker carry their tool calls, as in-process ones do (a resume replays them).
    expect(events.some((e) => e.type === 'model-call' && e.toolCalls?.[0]?.name === 'create_order')).toBe(true);
    expect(result.tasks.find((t) => t.id === 'b')?.output).toMatch(/^order \d for b: placed$/);
    // The worker's http tools name the run they call for, as the coordinator's do.
    expect(server().scopes).toEqual(Array(4).fill(`run:${result.runId}`));
  });

  it('a worker without the tools, or with another schema, refuses the job naming the tool; no request is made', {
    timeout: 60_000,
  }, async () => {
    const none = await runOnQueue(`weft-tools-none-${process.pid}-${Date.now()}`, undefined);
    expect(none.result.tasks.find((t) => t.id === 'a')?.reason).toContain(
      'The job needs tool "create_order" and this worker has no tools: start it with --tools FILE',
    );
    const files = orderRunFiles(server().url);
    const own = await loadToolsFile(files.tools);
    const changed = own.tools.map((tool) =>
      tool.name === 'get_order'
        ? { ...tool, inputSchema: { type: 'object', properties: { id: { type: 'string' } } } }
        : tool,
    );
    const other = await runOnQueue(`weft-tools-schema-${process.pid}-${Date.now()}`, changed);
    await own.close();
    expect(other.result.tasks.find((t) => t.id === 'a')?.reason).toContain(
      'Tool "get_order" of this worker has another input schema than the run\'s',
    );
    expect(server().counts.size).toBe(0);
  });

  it('a worker SIGKILLed during a placement: the next worker takes the job, reads its journal, places nothing again', {
    timeout: 90_000,
  }, async () => {
    const queue = `weft-tools-kill-${process.pid}-${Date.now()}`;
    const files = orderRunFiles(server().url, ['a']);
    const spawnWorker = (): ChildProcess =>
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/main.ts',
          'worker',
          '--redis',
          redis.url!,
          '--queue',
          queue,
          '--tools',
          files.tools,
          '--lock-ms',
          '1500',
          '--stalled-ms',
          '1000',
          '--home',
          files.home,
        ],
        { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'] },
      );
    let second: ChildProcess | undefined;
    const first = spawnWorker();
    server().hold = (route) => route === 'POST /orders';
    server().onHeld = () => {
      first.kill('SIGKILL');
      server().hold = undefined;
      second = spawnWorker();
    };
    const set = await loadToolsFile(files.tools);
    const store = await openRunStore({ home: files.home });
    const runner = await createQueueRunner({ redisUrl: redis.url!, queueName: queue });
    try {
      const result = await runTask({
        task: 'place the orders',
        plan: orderPlan(['a']),
        model: await createModel(ORDERS_MODEL),
        store,
        home: files.home,
        attemptRunner: runner.attemptRunner,
        run: { strategy: 'none' },
        tools: { available: set.tools },
      });
      expect(second).toBeDefined();
      expect(server().posted.get('a')).toBe(1);
      const a = result.tasks.find((t) => t.id === 'a')!;
      expect(a.status).toBe('failed');
      expect(a.reason).toContain('tool call create_order (#1 of subtask a, attempt 1) may have run; not repeated');
      // The dead worker's journalled start reached the run's log with the second worker's result.
      const events = await runEvents(store, result.runId);
      expect(events.filter((e) => e.type === 'tool-call' && e.name === 'create_order')).toHaveLength(1);
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGTERM');
      await runner.close();
      await store.close();
      await set.close();
    }
  });
});
