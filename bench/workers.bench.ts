/**
 * Distributed throughput: independent subtasks, each one call with a fixed 200 ms simulated latency,
 * run through BullMQ on Redis by 1, 2, 4 and 8 workers (in-process `runWorker`s, one job at a time each), as a
 * ratio to one worker. Redis: WEFT_TEST_REDIS_URL, else a redis-server started on a free port; without one the
 * bench says why and reports nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQueueRunner } from '../src/workers/queue-runner.js';
import { runWorker } from '../src/workers/run-worker.js';
import { workflowFromJson } from '../src/graph/index.js';
import { createModel } from '../src/llm/resolve-model.js';
import { runTask } from '../src/run/run-task.js';
import { openRunStore } from '../src/store/open-store.js';
import { startTestRedis } from '../test/workers/redis-server.js';
import type { Bench, BenchReport, ReportRow } from './report.js';

const SUBTASKS = 32;
const WORKER_COUNTS = [1, 2, 4, 8] as const;
const MODEL = 'sim:latency=fixed(200),seed=1';

export const workersBench: Bench = {
  name: 'workers',
  async run(): Promise<BenchReport> {
    const title = `Distributed throughput: ${SUBTASKS} independent subtasks of 200 ms on BullMQ workers, ratio to 1 worker`;
    const redis = await startTestRedis();
    if (!redis.url) return { title, rows: [], notes: [`skipped: ${redis.skipReason ?? 'no Redis'}`] };
    try {
      const seconds = new Map<number, number>();
      for (const count of WORKER_COUNTS) seconds.set(count, await timeRun(redis.url, count));
      const base = SUBTASKS / seconds.get(1)!;
      const rows: ReportRow[] = WORKER_COUNTS.slice(1).map((count) => ({
        label: `${count} workers / 1 worker`,
        value: SUBTASKS / seconds.get(count)! / base,
        unit: '×',
        goal: { comparison: '>=', target: 0.85 * count },
      }));
      return {
        title,
        rows,
        notes: [
          `wall time: ${WORKER_COUNTS.map((count) => `${count} → ${seconds.get(count)!.toFixed(2)} s`).join(', ')} (ideal 1 worker: ${(SUBTASKS * 0.2).toFixed(1)} s).`,
          'Each worker runs one job at a time; verification is off, so each subtask is exactly one 200 ms call.',
        ],
      };
    } finally {
      redis.stop();
    }
  },
};

async function timeRun(redisUrl: string, workerCount: number): Promise<number> {
  const queueName = `weft-bench-${process.pid}-${workerCount}-${Date.now()}`;
  const home = mkdtempSync(join(tmpdir(), 'weft-bench-workers-'));
  const stop = new AbortController();
  let ready = 0;
  const workers = Array.from({ length: workerCount }, (_, index) =>
    runWorker({
      redisUrl,
      queueName,
      signal: stop.signal,
      id: `bench-${index}`,
      onEvent: (event) => {
        if (event.type === 'worker-ready') ready += 1;
      },
    }),
  );
  const runner = await createQueueRunner({ redisUrl, queueName });
  const store = await openRunStore({ home });
  try {
    while (ready < workerCount) await new Promise((resolve) => setTimeout(resolve, 10));
    const plan = workflowFromJson({
      task: 'independent subtasks',
      roles: [{ name: 'worker', prompt: 'You work.' }],
      subtasks: Array.from({ length: SUBTASKS }, (_, i) => ({
        id: `s${i}`,
        objective: `step ${i}`,
        agent: 'worker',
        dependsOn: [],
      })),
    });
    const started = performance.now();
    const result = await runTask({
      task: plan.task,
      plan,
      model: await createModel(MODEL),
      store,
      home,
      attemptRunner: runner.attemptRunner,
      run: { verify: false },
    });
    const elapsed = (performance.now() - started) / 1000;
    if (result.status !== 'completed')
      throw new Error(`The run with ${workerCount} workers ended ${result.status}: ${result.reason ?? ''}`);
    return elapsed;
  } finally {
    await runner.close();
    await store.close();
    stop.abort();
    await Promise.all(workers);
    rmSync(home, { recursive: true, force: true });
  }
}
