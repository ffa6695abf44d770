/**
 * A distributed run that ends leaves no work behind: the wall-time deadline withdraws
 * jobs no worker takes, SIGTERM to `weft run --workers` withdraws them like Ctrl-C and marks the run, and a worker
 * refuses a job whose run is no longer live (no coordinator waits for it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attemptJobId, DEFAULT_QUEUE_NAME, type AttemptJobData } from '../../src/workers/attempt-job.js';
import { loadQueueModules } from '../../src/workers/load-queue.js';
import { createQueueRunner } from '../../src/workers/queue-runner.js';
import { redisOptions } from '../../src/workers/redis-url.js';
import { runWorker, type WorkerEvent } from '../../src/workers/run-worker.js';
import { workflowFromJson, type WorkflowJson } from '../../src/graph/index.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { startTestRedis } from './redis-server.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

const ROOT = join(import.meta.dirname, '..', '..');

const twoSteps: WorkflowJson = {
  task: 'two independent steps',
  roles: [{ name: 'worker', prompt: 'You work.' }],
  subtasks: [
    { id: 'a', objective: 'do a', agent: 'worker', dependsOn: [] },
    { id: 'b', objective: 'do b', agent: 'worker', dependsOn: [] },
  ],
};

interface JobsView {
  getJobs(types: string[]): Promise<{ id?: string }[]>;
  add(name: string, data: AttemptJobData, options: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** A plain BullMQ queue handle, to look at what a run left on the queue. */
async function openQueue(url: string, name: string): Promise<JobsView> {
  const { Queue } = await loadQueueModules();
  return new Queue(name, { connection: redisOptions(url, 'WEFT_TEST_REDIS_URL') }) as unknown as JobsView;
}

const jobsOf = async (queue: JobsView, runId: string) =>
  (await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active'])).filter((job) =>
    job.id?.startsWith(`${runId}:`),
  );

const until = async (condition: () => Promise<boolean> | boolean, what: string) => {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe.skipIf(redis.url === undefined)('a distributed run leaves no work behind', () => {
  const url = redis.url!;

  it('the wall-time deadline ends a run whose jobs no worker takes, failed, and withdraws the jobs', {
    timeout: 30_000,
  }, async () => {
    const queueName = `weft-test-deadline-${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-deadline-'));
    const runner = await createQueueRunner({ redisUrl: url, queueName });
    const store = await openRunStore({ home });
    const queue = await openQueue(url, queueName);
    try {
      const plan = workflowFromJson(twoSteps);
      const result = await runTask({
        task: plan.task,
        plan,
        model: await createModel('sim:seed=1'),
        store,
        home,
        budget: { maxWallMs: 300 },
        attemptRunner: runner.attemptRunner,
        run: { strategy: 'none' },
      });
      expect(result.status).toBe('failed');
      expect(result.reason).toBe('Budget exhausted: wall-time budget of 0.3s reached');
      expect(await jobsOf(queue, result.runId)).toEqual([]);
    } finally {
      await queue.close();
      await runner.close();
      await store.close();
    }
  });

  it('a job a worker is running is aborted with its attempt: the worker stops its calls and reports it cancelled', {
    timeout: 30_000,
  }, async () => {
    const queueName = `weft-test-abort-running-${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-abort-running-'));
    const stop = new AbortController();
    // The same path as the deadline's: the attempt's signal aborts while its job runs (here once it has started).
    const cancel = new AbortController();
    const seen: WorkerEvent[] = [];
    const worker = runWorker({
      redisUrl: url,
      queueName,
      signal: stop.signal,
      watchMs: 20,
      onEvent: (event) => {
        seen.push(event);
        if (event.type === 'job-start') cancel.abort();
      },
    });
    const runner = await createQueueRunner({ redisUrl: url, queueName });
    const store = await openRunStore({ home });
    try {
      const plan = workflowFromJson({ ...twoSteps, subtasks: twoSteps.subtasks.slice(0, 1) });
      const result = await runTask({
        task: plan.task,
        plan,
        model: await createModel('sim:seed=1,latency=fixed(60000)'),
        store,
        home,
        signal: cancel.signal,
        attemptRunner: runner.attemptRunner,
        run: { strategy: 'none' },
      });
      expect(result.status).toBe('cancelled');
      await until(() => seen.some((event) => event.type === 'job-end'), 'the running job to end');
      expect(seen.filter((event) => event.type === 'job-start')).toHaveLength(1);
      expect(seen.find((event) => event.type === 'job-end')).toMatchObject({
        status: 'cancelled',
        error: expect.stringMatching(/cancelled|no longer live/),
      });
    } finally {
      await runner.close();
      await store.close();
      stop.abort();
      await worker;
    }
  });

  it('SIGTERM to weft run --workers withdraws its waiting jobs and ends the run cancelled, like Ctrl-C', {
    timeout: 60_000,
  }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-sigterm-'));
    const planFile = join(home, 'plan.json');
    writeFileSync(planFile, JSON.stringify(twoSteps));
    // `weft run` uses the default queue: a database of its own keeps other tests' workers off these jobs.
    const isolated = new URL(url);
    isolated.pathname = '/7';
    const queue = await openQueue(isolated.toString(), DEFAULT_QUEUE_NAME);
    try {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/main.ts',
          'run',
          '--plan',
          planFile,
          '--model',
          'sim:seed=1',
          '--workers',
          isolated.toString(),
          '--home',
          home,
          '--strategy',
          'none',
          '--json',
        ],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      // No worker runs: both jobs wait on the queue.
      let runId = '';
      await until(async () => {
        const store = await openRunStore({ home }).catch(() => undefined);
        if (!store) return false;
        runId = (await store.listRuns())[0]?.runId ?? '';
        await store.close();
        return runId !== '' && (await jobsOf(queue, runId)).length === 2;
      }, 'two waiting jobs');
      child.kill('SIGTERM');
      const exit = await exited;
      expect({ ...exit, stderr }).toMatchObject({ code: 1, signal: null });
      expect(JSON.parse(stdout)).toMatchObject({ runId, status: 'cancelled' });
      expect(await jobsOf(queue, runId)).toEqual([]);
      const store = await openRunStore({ home });
      expect((await store.getRun(runId))?.status).toBe('cancelled');
      await store.close();
    } finally {
      await queue.close();
    }
  });

  it('a worker refuses a job whose run is no longer live, without running it', { timeout: 30_000 }, async () => {
    const queueName = `weft-test-orphan-${process.pid}-${Date.now()}`;
    const queue = await openQueue(url, queueName);
    const stop = new AbortController();
    const seen: WorkerEvent[] = [];
    try {
      // What a coordinator killed without a chance to withdraw leaves behind: a job nobody waits for.
      const runId = `gone-${Date.now()}`;
      const data: AttemptJobData = {
        runId,
        task: 't',
        id: 'a',
        objective: 'do a',
        role: { name: 'worker', prompt: 'You work.', kind: 'llm' },
        parents: [],
        attempt: 1,
        verify: true,
        mask: false,
        modelSpec: 'sim:seed=1',
      };
      await queue.add('attempt', data, { jobId: attemptJobId(runId, 'a', 1) });
      const worker = runWorker({ redisUrl: url, queueName, signal: stop.signal, onEvent: (event) => seen.push(event) });
      await until(() => seen.some((event) => event.type === 'job-end'), 'the orphan job to be taken');
      stop.abort();
      await worker;
      expect(seen.filter((event) => event.type === 'job-start')).toEqual([]);
      expect(seen.find((event) => event.type === 'job-end')).toMatchObject({
        status: 'cancelled',
        calls: 0,
        error: expect.stringMatching(/no longer live/),
      });
    } finally {
      stop.abort();
      await queue.close();
    }
  });
});
