/**
 * Distributed execution through BullMQ on a real Redis (ours, or WEFT_TEST_REDIS_URL in CI): three `weft worker`
 * processes run a 40-subtask plan; one is SIGKILLed while it holds a job, which another worker then completes,
 * and every subtask's result is recorded exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadQueueModules } from '../../src/workers/load-queue.js';
import { createQueueRunner } from '../../src/workers/queue-runner.js';
import { runWorker, type WorkerEvent } from '../../src/workers/run-worker.js';
import { WeftError, isWeftError } from '../../src/errors.js';
import { workflowFromJson, type WorkflowJson } from '../../src/graph/index.js';
import { createModel } from '../../src/llm/resolve-model.js';
import type { WeftEvent } from '../../src/run/events.js';
import type { RemoteCall } from '../../src/runtime/metered-model.js';
import { runTask } from '../../src/run/run-task.js';
import type { SubtaskAttempt } from '../../src/run/run-subtask.js';
import { main } from '../../src/cli/main.js';
import { openRunStore } from '../../src/store/open-store.js';
import { startTestRedis } from './redis-server.js';

const redis = await startTestRedis();
afterAll(() => redis.stop());

const ROOT = join(import.meta.dirname, '..', '..');
const SIM = 'sim:latency=fixed(120),seed=3';

/** 40 subtasks in 10 levels of 4; each depends on the two nearest subtasks of the level before. */
function dagOf40(): WorkflowJson {
  const id = (i: number) => `s${String(i).padStart(2, '0')}`;
  return {
    task: 'A generated 40-subtask workflow for the distributed test.',
    roles: [{ name: 'worker', prompt: 'You are a careful worker.' }],
    subtasks: Array.from({ length: 40 }, (_, i) => ({
      id: id(i),
      objective: `Do step ${i}.`,
      agent: 'worker',
      dependsOn: i < 4 ? [] : [...new Set([id(i - 4), id(i - 4 + ((i + 1) % 4 === 0 ? -1 : 1))])],
    })),
  };
}

interface SpawnedWorker {
  readonly child: ChildProcess;
  lines: string[];
  readonly exited: Promise<number | null>;
}

/** `onLine` sees each stdout line as it arrives, so a test can act while the worker is mid-job. */
function spawnWorker(
  url: string,
  queue: string,
  home: string,
  onLine: (worker: SpawnedWorker, line: string) => void,
): SpawnedWorker {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'worker',
      '--redis',
      url,
      '--queue',
      queue,
      '--lock-ms',
      '1500',
      '--stalled-ms',
      '1000',
      '--home',
      home,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const worker: SpawnedWorker = {
    child,
    lines: [],
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      worker.lines.push(line);
      onLine(worker, line);
    }
  });
  child.stderr!.resume();
  return worker;
}

const until = async (condition: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(redis.url === undefined)('distributed execution on BullMQ', () => {
  const url = redis.url!;

  it('3 workers run a 40-subtask DAG; a worker SIGKILLed mid-job loses nothing and nothing is recorded twice', {
    timeout: 90_000,
  }, async () => {
    const queue = `weft-test-${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-'));
    let killed: { worker: SpawnedWorker; jobId: string } | undefined;
    let finishedJobs = 0;
    let armed = false;
    const onLine = (worker: SpawnedWorker, line: string) => {
      if (/ completed in /.test(line)) finishedJobs += 1;
      const started = /^job (\S+) started/.exec(line);
      // Once the run is well under way, kill the next worker that starts a job: it holds that job now.
      if (armed && !killed && finishedJobs >= 6 && started) {
        worker.child.kill('SIGKILL');
        killed = { worker, jobId: started[1]! };
      }
    };
    const workers = [0, 1, 2].map(() => spawnWorker(url, queue, home, onLine));
    try {
      await until(
        () => workers.every((w) => w.lines.some((line) => line.includes(' ready on queue '))),
        30_000,
        'the workers to start',
      );
      const store = await openRunStore({ home });
      const runner = await createQueueRunner({ redisUrl: url, queueName: queue });
      const events: WeftEvent[] = [];
      armed = true;
      const started = performance.now();
      let result;
      try {
        result = await runTask({
          task: 'distributed test',
          model: await createModel(SIM),
          store,
          home,
          plan: workflowFromJson(dagOf40()),
          attemptRunner: runner.attemptRunner,
          onEvent: (event) => events.push(event),
        });
      } finally {
        await runner.close();
        await store.close();
      }
      console.log(
        `distributed run: ${Math.round(performance.now() - started)} ms for 40 subtasks on 3 workers, one killed`,
      );

      expect(result.status).toBe('completed');
      expect(killed).toBeDefined();
      const { worker: victim, jobId } = killed!;
      expect(await victim.exited).toBe(null); // killed by the signal
      // Another worker finished the job the killed one held.
      const survivors = workers.filter((w) => w !== victim);
      expect(survivors.some((w) => w.lines.some((line) => line.startsWith(`job ${jobId} completed`)))).toBe(true);

      const accepted = new Map<string, number>();
      const starts = new Map<string, number>();
      for (const event of events) {
        if (event.type === 'task-verify' && event.verdict === 'accept')
          accepted.set(event.taskId, (accepted.get(event.taskId) ?? 0) + 1);
        if (event.type === 'task-start')
          starts.set(`${event.taskId}#${event.attempt}`, (starts.get(`${event.taskId}#${event.attempt}`) ?? 0) + 1);
      }
      expect(accepted.size).toBe(40);
      expect([...accepted.values()].every((count) => count === 1)).toBe(true);
      expect([...starts.values()].every((count) => count === 1)).toBe(true);
      // Each attempt's execute and verify calls were made on a worker and recorded once by the coordinator.
      const calls = events.filter((event) => event.type === 'model-call');
      expect(calls).toHaveLength(80);
      expect(
        new Set(calls.map((call) => JSON.stringify([call.purpose, call.key, call.attempt, call.sequence]))).size,
      ).toBe(80);
      expect(result.calls).toBe(80);
    } finally {
      for (const worker of workers)
        if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
      const codes = await Promise.all(workers.map((w) => w.exited));
      // The survivors stop cleanly on SIGTERM.
      expect(codes.filter((code) => code === 0).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('records a result once even if the same attempt is run twice, and refuses to dispatch with the budget spent', {
    timeout: 30_000,
  }, async () => {
    const queue = `weft-test-once-${process.pid}-${Date.now()}`;
    const stop = new AbortController();
    const seen: WorkerEvent[] = [];
    const worker = runWorker({
      redisUrl: url,
      queueName: queue,
      signal: stop.signal,
      onEvent: (event) => seen.push(event),
      id: 'in-process',
    });
    const runner = await createQueueRunner({ redisUrl: url, queueName: queue });
    try {
      const recorded: RemoteCall[] = [];
      let budgetLeft = true;
      const run = runner.attemptRunner({
        runId: 'once-run',
        modelId: SIM,
        budget: {
          admit: () => {
            if (!budgetLeft) throw new WeftError('BUDGET', 'Budget exhausted: call budget of 2 reached');
          },
        },
        recordCall: (call) => recorded.push(call),
      });
      const attempt: SubtaskAttempt = {
        task: 't',
        id: 'a',
        objective: 'do a',
        role: { name: 'worker', prompt: 'You work.', kind: 'llm' },
        parents: [],
        attempt: 1,
        model: await createModel(SIM),
        verify: true,
        mask: false,
        signal: new AbortController().signal,
      };
      const outcome = await run(attempt);
      expect(outcome.kind).toBe('verified');
      expect(recorded).toHaveLength(2);
      // A second delivery of the same (run, subtask, attempt) is the same job: it is not run again nor recorded.
      const again = await run(attempt).catch((error: unknown) => error);
      expect(isWeftError(again) && again.code).toBe('INTERNAL');
      expect(recorded).toHaveLength(2);
      expect(seen.filter((event) => event.type === 'job-start')).toHaveLength(1);

      budgetLeft = false;
      const refused = await run({ ...attempt, id: 'b' }).catch((error: unknown) => error);
      expect(isWeftError(refused) && refused.code).toBe('BUDGET');
      expect(seen.filter((event) => event.type === 'job-start')).toHaveLength(1);
    } finally {
      await runner.close();
      stop.abort();
      await worker;
    }
  });
});

describe.skipIf(redis.url === undefined)('cancellation and resume through the queue', () => {
  const url = redis.url!;
  const role = { name: 'worker', prompt: 'You work.', kind: 'llm' as const };
  const context = (
    recorded: RemoteCall[],
    replay?: Map<string, { text: string; usage: { inputTokens: number; outputTokens: number }; model: string }>,
  ) => ({
    runId: `cancel-${process.pid}-${Date.now()}`,
    modelId: SIM,
    budget: { admit: () => {} },
    recordCall: (call: RemoteCall) => recorded.push(call),
    ...(replay ? { replay } : {}),
  });

  it('an aborted attempt whose job waits is removed at once, and no worker ever runs it', {
    timeout: 30_000,
  }, async () => {
    const queue = `weft-test-cancel-${process.pid}-${Date.now()}`;
    const runner = await createQueueRunner({ redisUrl: url, queueName: queue });
    const recorded: RemoteCall[] = [];
    const ctx = context(recorded);
    const controller = new AbortController();
    try {
      const attempt: SubtaskAttempt = {
        task: 't',
        id: 'a',
        objective: 'do a',
        role,
        parents: [],
        attempt: 1,
        model: await createModel(SIM),
        verify: true,
        mask: false,
        signal: controller.signal,
      };
      const pending = runner
        .attemptRunner(ctx)(attempt)
        .catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 100)); // no worker: the job waits
      // With no worker, only the abort can end the wait (else the test times out).
      controller.abort();
      const error = await pending;
      expect(isWeftError(error) && error.code).toBe('ABORTED');

      // No job is left for a worker; a new attempt under another number runs normally.
      const stop = new AbortController();
      const seen: WorkerEvent[] = [];
      const worker = runWorker({
        redisUrl: url,
        queueName: queue,
        signal: stop.signal,
        onEvent: (event) => seen.push(event),
      });
      const outcome = await runner.attemptRunner(ctx)({ ...attempt, attempt: 2, signal: new AbortController().signal });
      expect(outcome.kind).toBe('verified');
      stop.abort();
      await worker;
      expect(
        seen.filter((event) => event.type === 'job-start').map((event) => event.type === 'job-start' && event.attempt),
      ).toEqual([2]);
      expect(recorded).toHaveLength(2);
    } finally {
      await runner.close();
    }
  });

  it('a resumed attempt gets its recorded replies on the worker: not asked again, not recorded again', {
    timeout: 30_000,
  }, async () => {
    const queue = `weft-test-replay-${process.pid}-${Date.now()}`;
    const stop = new AbortController();
    const worker = runWorker({ redisUrl: url, queueName: queue, signal: stop.signal });
    const runner = await createQueueRunner({ redisUrl: url, queueName: queue });
    try {
      const recorded: RemoteCall[] = [];
      const replay = new Map([
        [
          JSON.stringify(['execute', 'a', 1, 0]),
          { text: 'the recorded output', usage: { inputTokens: 5, outputTokens: 5 }, model: 'sim' },
        ],
      ]);
      const attempt: SubtaskAttempt = {
        task: 't',
        id: 'a',
        objective: 'do a',
        role,
        parents: [],
        attempt: 1,
        model: await createModel(SIM),
        verify: true,
        mask: false,
        signal: new AbortController().signal,
      };
      const outcome = await runner.attemptRunner(context(recorded, replay))(attempt);
      expect(outcome.kind === 'verified' && outcome.output).toBe('the recorded output');
      expect(recorded.map((call) => call.purpose)).toEqual(['verify']);
    } finally {
      await runner.close();
      stop.abort();
      await worker;
    }
  });
});

describe.skipIf(redis.url === undefined)('budgets across workers', () => {
  it('the coordinator refuses a dispatch once the budget is spent, counting the calls made on workers', {
    timeout: 30_000,
  }, async () => {
    const url = redis.url!;
    const queue = `weft-test-budget-${process.pid}-${Date.now()}`;
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-budget-'));
    const stop = new AbortController();
    const worker = runWorker({ redisUrl: url, queueName: queue, signal: stop.signal });
    const runner = await createQueueRunner({ redisUrl: url, queueName: queue });
    const store = await openRunStore({ home });
    try {
      const plan = workflowFromJson({
        task: 'six steps',
        roles: [{ name: 'worker', prompt: 'You work.' }],
        subtasks: Array.from({ length: 6 }, (_, i) => ({
          id: `s${i}`,
          objective: `step ${i}`,
          agent: 'worker',
          dependsOn: [],
        })),
      });
      const events: WeftEvent[] = [];
      const result = await runTask({
        task: plan.task,
        plan,
        model: await createModel(SIM),
        store,
        home,
        budget: { maxCalls: 4 },
        attemptRunner: runner.attemptRunner,
        onEvent: (event) => events.push(event),
        run: { concurrency: 1, strategy: 'none' },
      });
      expect(result.status).not.toBe('completed');
      // Two subtasks ran on the worker (execute + verify each); the third dispatch was refused, never enqueued.
      expect(result.calls).toBe(4);
      expect(events.some((event) => event.type === 'task-end' && event.outcome === 'refused')).toBe(true);
      expect(events.some((event) => event.type === 'budget-stop')).toBe(true);
    } finally {
      await runner.close();
      await store.close();
      stop.abort();
      await worker;
    }
  });
});

describe.skipIf(redis.url === undefined)('weft run --workers', () => {
  it('runs a plan file on a worker and prints the usual summary', { timeout: 30_000 }, async () => {
    const url = redis.url!;
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-cli-'));
    const planFile = join(home, 'plan.json');
    writeFileSync(planFile, JSON.stringify(dagOf40()));
    const stop = new AbortController();
    const jobs: string[] = [];
    // The CLI uses the default queue name, which a shared Redis may hold older jobs in: count this run's only.
    const worker = runWorker({
      redisUrl: url,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type === 'job-start') jobs.push(event.jobId);
      },
    });
    try {
      let stdout = '';
      const sink = (write: (text: string) => void) =>
        ({ write: (text: string) => (write(text), true) }) as unknown as NodeJS.WritableStream;
      const code = await main(
        ['run', '--plan', planFile, '--model', 'sim:seed=4', '--workers', url, '--home', home, '--no-verify', '--json'],
        { stdout: sink((text) => (stdout += text)), stderr: sink(() => {}) },
      );
      expect(code).toBe(0);
      const summary = JSON.parse(stdout) as { runId: string; status: string; calls: number; tasks: unknown[] };
      expect(summary.status).toBe('completed');
      expect(summary.tasks).toHaveLength(40);
      expect(summary.calls).toBe(40);
      expect(jobs.filter((jobId) => jobId.startsWith(`${summary.runId}:`))).toHaveLength(40);
    } finally {
      stop.abort();
      await worker;
    }
  });
});

describe('without bullmq installed', () => {
  it('says how to install it', async () => {
    const error = await loadQueueModules(async (name) => {
      throw new Error(`Cannot find package '${name}'`);
    }).catch((caught: unknown) => caught);
    expect(isWeftError(error) && error.code).toBe('MISSING_DEPENDENCY');
    expect((error as Error).message).toBe('Distributed runs need BullMQ and ioredis: npm install bullmq ioredis');
  });
});

describe('an unreachable Redis', () => {
  it('fails fast with a clear message, for the library and for `weft worker`', { timeout: 15_000 }, async () => {
    // A retrying client would hang into the test's time-out.
    const error = await createQueueRunner({ redisUrl: 'redis://127.0.0.1:1' }).catch((caught: unknown) => caught);
    expect(isWeftError(error) && error.code).toBe('BAD_INPUT');
    expect((error as Error).message).toMatch(/Cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/?: .*ECONNREFUSED/);

    let stderr = '';
    const sink = (write: (text: string) => void) =>
      ({ write: (text: string) => (write(text), true) }) as unknown as NodeJS.WritableStream;
    const code = await main(['worker', '--redis', 'redis://127.0.0.1:1'], {
      stdout: sink(() => {}),
      stderr: sink((text) => (stderr += text)),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/--redis: Cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);

    stderr = '';
    const home = mkdtempSync(join(tmpdir(), 'weft-dist-unreachable-'));
    const runCode = await main(
      ['run', 'a task', '--model', 'sim:seed=1', '--workers', 'redis://127.0.0.1:1', '--home', home],
      { stdout: sink(() => {}), stderr: sink((text) => (stderr += text)) },
    );
    expect(runCode).toBe(2);
    expect(stderr).toMatch(/--workers: Cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
  });
});
