import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { workflowFromJson } from '../../src/graph/index.js';
import type { WeftEvent } from '../../src/run/events.js';
import { runTask, type RunTaskOptions } from '../../src/run/run-task.js';
import { summarizeRun } from '../../src/run/run-summary.js';
import { deferred, testModel } from './test-model.js';
import { tempStores } from './temp-store.js';
import { diamond, tick } from './execution-harness.js';
import { runEvents } from '../../src/run/run-events.js';

const setup = tempStores('review');

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
};

describe('review: the run summary (weft run --json) agrees with the final plan', () => {
  it('a subtask changed by an update while running and not restarted is reported "not started"', async () => {
    // The late "discarded by a plan update" task-end arrives after the plan-update that reset c, and the fold treats
    // it as a real failure of the new c.
    const { home, store } = await setup();
    const cGate = deferred<string>();
    const model = testModel({
      execute: (key, attempt) => (key === 'c' && attempt === 1 ? cGate.promise : `out ${key}`),
      verify: (key, attempt) => {
        if (key === 'z') return { verdict: 'replan', reason: 'z never works' };
        return key === 'b' && attempt === 1 ? { verdict: 'replan', reason: 'c needs z first' } : { verdict: 'accept' };
      },
      update: (call) => {
        if (call.messages[0]!.content.includes('<failed>z</failed>')) return {};
        return {
          subtasks: [
            { id: 'a', objective: 'do a', agent: 'worker', dependsOn: [] },
            { id: 'z', objective: 'do z', agent: 'worker', dependsOn: [] },
            { id: 'b', objective: 'do b', agent: 'worker', dependsOn: ['a'] },
            { id: 'c', objective: 'do c with z', agent: 'worker', dependsOn: ['a', 'z'] },
            { id: 'd', objective: 'do d', agent: 'writer', dependsOn: ['b', 'c'] },
          ],
        };
      },
    });
    const result = await runTask({
      task: 'diamond',
      model,
      store,
      home,
      plan: workflowFromJson(diamond()),
      run: { candidates: 1, maxAttempts: 1 },
    });
    expect(result.status).toBe('failed');
    const finalC = result.workflow!.subtasks.find((s) => s.id === 'c')!;
    expect(finalC.status).toBe('not started');
    expect(result.tasks.find((t) => t.id === 'c')!.status).toBe(finalC.status);
  });

  it('a cancelled run reports its interrupted subtasks as "not started"', async () => {
    const { home, store } = await setup();
    const hang = deferred<string>();
    const controller = new AbortController();
    const model = testModel({ execute: (key) => (key === 'a' ? 'out a' : hang.promise) });
    const events: WeftEvent[] = [];
    const promise = runTask({
      task: 'diamond',
      model,
      store,
      home,
      plan: workflowFromJson(diamond()),
      signal: controller.signal,
      onEvent: (e) => events.push(e),
      run: { candidates: 1 },
    });
    await until(() => events.filter((e) => e.type === 'task-start').length === 3);
    controller.abort(new WeftError('ABORTED', 'cancelled by the user'));
    const result = await promise;
    expect(result.status).toBe('cancelled');
    const finalB = result.workflow!.subtasks.find((s) => s.id === 'b')!;
    expect(finalB.status).toBe('not started');
    // --json and report.md's table should agree with the final plan (and its Mermaid diagram).
    expect(result.tasks.find((t) => t.id === 'b')!.status).toBe(finalB.status);
  });

  it('abort during planning ends the run "cancelled", with run-end as the last stored event', async () => {
    const { home, store } = await setup();
    const controller = new AbortController();
    const planGate = deferred<void>();
    const model = testModel();
    const generate = model.generate.bind(model);
    const slowPlanner = {
      ...model,
      async generate(call: Parameters<typeof generate>[0], signal?: AbortSignal) {
        if (call.tag?.purpose === 'plan') {
          await new Promise<void>((resolve, reject) => {
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
            void planGate.promise.then(resolve);
          });
        }
        return generate(call, signal);
      },
    };
    const promise = runTask({
      task: 'plan me',
      model: slowPlanner,
      store,
      home,
      signal: controller.signal,
      runId: 'r-plan-abort',
      run: { candidates: 2 },
    });
    await tick();
    controller.abort(new WeftError('ABORTED', 'cancelled by the user'));
    const result = await promise;
    expect(result.status).toBe('cancelled');
    expect(result.planVersion).toBe(0);
    const stored = await runEvents(store, 'r-plan-abort');
    expect(stored.at(-1)!.type).toBe('run-end');
    expect((await store.getRun('r-plan-abort'))!.status).toBe('cancelled');
  });

  it('every event is stored, in order, and nothing follows run-end, in a run with a discard, a retry and artifacts', async () => {
    const { home, store } = await setup();
    const slow = deferred<string>();
    const model = testModel({
      execute: (key) => (key === 'c' ? slow.promise : key === 'd' ? '```txt path=out.txt\nhello\n```' : `out ${key}`),
      verify: (key, attempt) => {
        if (key === 'b' && attempt === 1) return { verdict: 'replan', reason: 'c is unnecessary' };
        if (key === 'a' && attempt === 1) return { verdict: 'retry', reason: 'again' };
        return { verdict: 'accept' };
      },
      update: () => ({
        subtasks: [
          { id: 'a', objective: 'do a', agent: 'worker', dependsOn: [] },
          { id: 'b', objective: 'do b', agent: 'worker', dependsOn: ['a'] },
          { id: 'd', objective: 'do d', agent: 'writer', dependsOn: ['b'] },
        ],
      }),
    });
    const seen: WeftEvent[] = [];
    const result = await runTask({
      task: 'diamond',
      model,
      store,
      home,
      plan: workflowFromJson(diamond()),
      runId: 'r-order',
      onEvent: (e) => seen.push(e),
      run: { candidates: 1 },
    });
    slow.resolve('late c');
    await tick();
    expect(result.status).toBe('completed');
    const stored = await runEvents(store, 'r-order');
    expect(stored).toEqual(seen);
    expect(stored.some((e) => e.type === 'task-end' && e.error === 'discarded by a plan update')).toBe(true);
    expect(stored.at(-1)!.type).toBe('run-end');
    expect(stored.filter((e) => e.type === 'artifact')).toHaveLength(1);
    // weft show --json and weft run --json are the same fold.
    const shown = summarizeRun('r-order', stored);
    expect(shown.tasks).toEqual(result.tasks);
    const report = await readFile(join(result.runDir, 'report.md'), 'utf8');
    expect(report).toContain('out.txt');
  });
});

describe('review: the run-start event', () => {
  it('--strategy none is recorded as none', async () => {
    const { home, store } = await setup();
    const events: WeftEvent[] = [];
    await runTask({
      task: 'diamond',
      model: testModel(),
      store,
      home,
      plan: workflowFromJson(diamond()),
      run: { candidates: 1, strategy: 'none' },
      onEvent: (e) => events.push(e),
    } satisfies RunTaskOptions);
    const start = events.find((e) => e.type === 'run-start') as Extract<WeftEvent, { type: 'run-start' }>;
    expect(start.strategy as string).toBe('none');
  });
});

describe('review: a throwing event listener', () => {
  it('an onEvent listener that throws neither ends the run nor lets events follow run-end', async () => {
    // EventLog.emit calls the listener synchronously inside Execution.step(); the throw rejects execute() while b is
    // still running, runTask emits run-end, and b's task-end lands after it (and after the log was closed).
    const { home, store } = await setup();
    const cGate = deferred<string>();
    const model = testModel({ execute: (key) => (key === 'b' ? cGate.promise : `out ${key}`) });
    let thrown = false;
    const seen: WeftEvent[] = [];
    const running = runTask({
      task: 'diamond',
      model,
      store,
      home,
      plan: workflowFromJson(diamond()),
      runId: 'r-listener',
      onEvent: (e) => {
        seen.push(e);
        if (!thrown && e.type === 'task-start' && e.taskId === 'c') {
          thrown = true;
          throw new Error('progress view bug');
        }
      },
      run: { candidates: 1 },
    });
    for (let i = 0; i < 5; i++) await tick();
    cGate.resolve('out b');
    const result = await running;
    for (let i = 0; i < 5; i++) await tick();
    // Nothing may follow run-end (here b's call/task-end/verify arrive after it) ...
    expect(seen.slice(seen.findIndex((e) => e.type === 'run-end') + 1).map((e) => e.type)).toEqual([]);
    // ... and a listener's bug should not decide the run.
    expect(result.status).toBe('completed');
  });
});
