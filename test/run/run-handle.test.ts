import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { WeftEvent } from '../../src/run/events.js';
import { eventQueue } from '../../src/run/run-handle.js';
import { runTask } from '../../src/run/run-task.js';
import { runEvents } from '../../src/run/run-events.js';
import { openRunStore } from '../../src/store/open-store.js';
import { diamond } from './execution-harness.js';
import { testModel } from './test-model.js';
import { tempStores } from './temp-store.js';

const setup = tempStores('handle');

describe('the run handle', () => {
  it('yields every event of the run in order, ends with run-end, and its result is the awaited one', async () => {
    const { home, store } = await setup();
    const handle = runTask({ task: 'diamond', model: testModel(), store, home, plan: workflowFromJson(diamond()) });
    const seen: WeftEvent[] = [];
    for await (const event of handle.events) seen.push(event);
    const result = await handle;
    expect(result).toBe(await handle.result);
    expect(result.runId).toBe(handle.runId);
    expect(result.status).toBe('completed');
    expect(seen[0]?.type).toBe('run-start');
    expect(seen.at(-1)?.type).toBe('run-end');
    expect(seen).toEqual(await runEvents(store, handle.runId));
    expect(handle.events.dropped()).toBe(0);
  });

  it('a consumer that breaks early leaves the run going to its end', async () => {
    const { home, store } = await setup();
    const handle = runTask({ task: 'diamond', model: testModel(), store, home, plan: workflowFromJson(diamond()) });
    for await (const event of handle.events) {
      expect(event.type).toBe('run-start');
      break;
    }
    const result = await handle.result;
    expect(result.status).toBe('completed');
    expect((await runEvents(store, handle.runId)).at(-1)?.type).toBe('run-end');
    expect(() => handle.events[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });

  it('a consumer that falls behind keeps at most the buffer: the oldest unread events are dropped and counted', async () => {
    const queue = eventQueue(3);
    for (let at = 0; at < 10; at++) queue.push({ type: 'run-end', status: 'completed', at });
    queue.end();
    const read: number[] = [];
    for await (const event of queue.events) read.push(event.at);
    expect(read).toEqual([7, 8, 9]);
    expect(queue.events.dropped()).toBe(7);
  });

  it('a run whose options are invalid rejects its result and ends its events', async () => {
    const { home, store } = await setup();
    const handle = runTask({ task: 't', model: testModel(), store, home, tools: { available: [], maxSteps: 0 } });
    const seen: WeftEvent[] = [];
    for await (const event of handle.events) seen.push(event);
    expect(seen).toEqual([]);
    await expect(handle.result).rejects.toMatchObject({ code: 'BAD_INPUT', location: { field: 'tools.maxSteps' } });
  });
});

describe('the run home', () => {
  it('comes from the store opened on a home, and a different home given with it is refused naming both', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-home-'));
    const other = mkdtempSync(join(tmpdir(), 'weft-other-'));
    const store = await openRunStore({ home });
    try {
      const result = await runTask({ task: 'diamond', model: testModel(), store, plan: workflowFromJson(diamond()) });
      expect(result.runDir).toBe(join(home, 'runs', result.runId));
      const refused = runTask({ task: 'x', model: testModel(), store, home: other });
      await expect(refused.result).rejects.toMatchObject({ code: 'BAD_INPUT', location: { field: 'home' } });
      await expect(refused.result).rejects.toThrow(other);
      await expect(refused.result).rejects.toThrow(home);
    } finally {
      await store.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });
});
