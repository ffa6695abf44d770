import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowFromJson } from '../../src/graph/index.js';
import type { WeftEvent } from '../../src/run/events.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { EventRecord, RunStore } from '../../src/store/run-store.js';
import { diamond } from './execution-harness.js';
import { testModel } from './test-model.js';

/** A store whose appends take a while, remembering what has landed. */
function slowStore(inner: RunStore, delayMs: number): { store: RunStore; durable: EventRecord[] } {
  const durable: EventRecord[] = [];
  const store: RunStore = Object.assign(Object.create(inner) as RunStore, {
    async appendEvents(runId: string, events: readonly EventRecord[]) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await inner.appendEvents(runId, events);
      durable.push(...events);
    },
  });
  return { store, durable };
}

describe('write-ahead', () => {
  it('starts no subtask before its parents’ acceptances are in the store', async () => {
    const home = mkdtempSync(join(tmpdir(), 'weft-durable-'));
    const inner = await openRunStore({ home });
    const { store, durable } = slowStore(inner, 15);
    const violations: string[] = [];
    const plan = workflowFromJson(diamond());
    const parents = new Map(plan.subtasks.map((s) => [s.id, s.dependsOn]));
    const result = await runTask({
      task: 'diamond',
      model: testModel(),
      store,
      home,
      plan,
      onEvent: (event: WeftEvent) => {
        if (event.type !== 'task-start') return;
        for (const parent of parents.get(event.taskId) ?? []) {
          const recorded = durable.some(
            (e) =>
              e.type === 'task-verify' &&
              (e as unknown as { taskId: string; verdict: string }).taskId === parent &&
              (e as unknown as { verdict: string }).verdict === 'accept',
          );
          if (!recorded) violations.push(`${event.taskId} started before ${parent}'s acceptance was stored`);
        }
      },
    });
    await inner.close();
    expect(result.status).toBe('completed');
    expect(violations).toEqual([]);
  });
});
