import { afterEach, describe, expect, it, vi } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { ChatCall, ChatModel, ChatResult } from '../../src/llm/chat-model.js';
import { runEvents } from '../../src/run/run-events.js';
import { runTask } from '../../src/run/run-task.js';
import { tempStores } from './temp-store.js';

const setup = tempStores('deadline');
afterEach(() => {
  vi.useRealTimers();
});

/** The deadline's timer is faked, so it fires exactly when the test says: once the calls are in flight. */
const WALL_MS = 60_000;

/**
 * Waits for the run to reach `condition`, an event-loop turn at a time. The run's file and store work goes through
 * the thread pool, which on a loaded machine can take far more than 10,000 turns (CI failed so once): the bound is
 * there only so that a run that never gets there fails the test instead of hanging it.
 */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000_000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

/** A model whose calls of `purpose` never answer: they end only when their signal aborts. */
function hangingModel(purpose: string) {
  const aborted: string[] = [];
  const started: string[] = [];
  const model: ChatModel = {
    id: 'test:hanging',
    kind: 'scripted',
    generate(call: ChatCall, signal?: AbortSignal): Promise<ChatResult> {
      if (call.tag?.purpose !== purpose)
        return Promise.resolve({
          text: JSON.stringify({ verdict: 'accept', reason: '' }),
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'test',
        });
      started.push(`${call.tag?.purpose}:${call.tag?.key ?? ''}`);
      return new Promise((_resolve, reject) => {
        signal?.addEventListener(
          'abort',
          () => {
            aborted.push(`${call.tag?.purpose}:${call.tag?.key ?? ''}`);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
  };
  return { model, aborted, started };
}

const plan = workflowFromJson({
  task: 'two slow steps',
  subtasks: [
    { id: 'a', objective: 'write a', agent: 'writer', dependsOn: [] },
    { id: 'b', objective: 'write b', agent: 'writer', dependsOn: [] },
  ],
});

describe('the wall-time budget is a deadline', () => {
  it('aborts the calls in flight when it passes and ends the run failed with its reason', async () => {
    const { home, store } = await setup();
    const { model, aborted, started } = hangingModel('execute');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = runTask({ task: plan.task, plan, model, store, home, budget: { maxWallMs: WALL_MS } });
    await until(() => started.length === 2);
    vi.advanceTimersByTime(WALL_MS);
    const result = await running;
    expect(result.status).toBe('failed');
    expect(result.reason).toBe('Budget exhausted: wall-time budget of 60s reached');
    expect(aborted.sort()).toEqual(['execute:a', 'execute:b']);
    expect((await store.getRun(result.runId))?.status).toBe('failed');
    // The subtasks were cut short, not failed by their own doing.
    expect(result.tasks.map((task) => task.status)).toEqual(['not started', 'not started']);
    const events = await runEvents(store, result.runId);
    expect(events.flatMap((event) => (event.type === 'task-end' ? [event.outcome] : []))).toEqual([
      'aborted',
      'aborted',
    ]);
    expect(
      events.some((event) => event.type === 'budget-stop' && event.exceeded === 'wall-time budget of 60s reached'),
    ).toBe(true);
  }, 10_000);

  it('aborts planning too', async () => {
    const { home, store } = await setup();
    const { model, aborted, started } = hangingModel('plan');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = runTask({
      task: 'plan forever',
      model,
      store,
      home,
      budget: { maxWallMs: WALL_MS },
      run: { candidates: 1 },
    });
    await until(() => started.length === 1);
    vi.advanceTimersByTime(WALL_MS);
    const result = await running;
    expect(result.status).toBe('failed');
    expect(result.reason).toBe('Budget exhausted: wall-time budget of 60s reached');
    expect(aborted).toHaveLength(1);
    expect(aborted[0]).toMatch(/^plan:/);
  }, 10_000);

  it('a cancel before the deadline still ends the run cancelled', async () => {
    const { home, store } = await setup();
    const { model } = hangingModel('execute');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    const result = await runTask({
      task: plan.task,
      plan,
      model,
      store,
      home,
      signal: controller.signal,
      budget: { maxWallMs: 60_000 },
    });
    expect(result.status).toBe('cancelled');
  }, 10_000);
});
