/**
 * A run's course must not depend on how long the store takes to save a plan version (issue 10, item 3). Saving
 * used to hold the repair round open, so failures arriving during a slow save (a loaded machine) waited for a
 * later round: the rounds batched other failures, the plans differed, and a resumed run could end unlike the
 * uninterrupted one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/llm/resolve-model.js';
import { runTask, type RunTaskResult } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';

const SIM = 'sim:seed=1,latency=lognormal(3.6,0.4),tasks=10,fail=0.3,badjson=0.1';
const TASK = 'write a report in ten parts';

async function run(delaySaveMs: number): Promise<RunTaskResult> {
  const home = mkdtempSync(join(tmpdir(), 'weft-save-timing-'));
  const store = await openRunStore({ home });
  const save = store.savePlanVersion.bind(store);
  // Only later versions are slowed: the first is saved before any subtask starts.
  const slow: RunStore = Object.assign(Object.create(store) as RunStore, {
    savePlanVersion: async (version: Parameters<RunStore['savePlanVersion']>[0]) => {
      if (version.version > 1) await new Promise((resolve) => setTimeout(resolve, delaySaveMs));
      return save(version);
    },
  });
  try {
    return await runTask({ task: TASK, model: await createModel(SIM), store: delaySaveMs > 0 ? slow : store, home });
  } finally {
    await store.close();
  }
}

const course = (result: RunTaskResult) => ({
  status: result.status,
  planVersion: result.planVersion,
  calls: result.calls,
  tasks: result.tasks.map((task) => [task.id, task.status, task.attempts]),
});

describe('plan versions saved slowly', () => {
  it('leave the run on the same course: same versions, calls and attempts', async () => {
    const fast = await run(0);
    // The seed must repair more than once, or a slow save has nothing to delay.
    expect(fast.planVersion).toBeGreaterThan(2);
    expect(course(await run(150))).toEqual(course(fast));
  }, 60_000);
});
