/** A failed subtask's stored reason says why it failed, and `weft show` displays it. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWorkflow } from '../../src/graph/parse-workflow.js';
import { withResilience } from '../../src/llm/resilient-model.js';
import { simModel } from '../../src/llm/sim-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { cli, tempHome } from './cli-harness.js';

const PLAN_FILE = 'examples/plans/diamond.json';

describe('the failure reason of a failed subtask', () => {
  it('names the provider error and the retries given up after, in `weft show` and its --json', async () => {
    const home = tempHome();
    const parsed = parseWorkflow(readFileSync(PLAN_FILE, 'utf8'), { file: PLAN_FILE });
    if (!parsed.ok) throw new Error('the example plan does not parse');
    const store = await openRunStore({ home });
    // Every call fails; the retries' backoff is not waited for.
    const model = withResilience(simModel('error=1'), { retry: { retries: 3, sleep: async () => {} } });
    const run = await runTask({
      task: parsed.workflow.task,
      plan: parsed.workflow,
      model,
      store,
      home,
      run: { strategy: 'none' },
    });
    await store.close();
    expect(run.status).toBe('failed');
    const why = 'provider error after 3 retries: simulated provider error (HTTP 503)';

    const text = await cli(['show', run.runId, '--home', home]);
    expect(text.stdout).toMatch(
      /facts +failed +attempts 1\n +why: provider error after 3 retries: simulated provider error \(HTTP 503\)/,
    );
    const document = JSON.parse((await cli(['show', run.runId, '--home', home, '--json'])).stdout) as {
      tasks: { id: string; status: string; reason?: string }[];
    };
    expect(document.tasks.find((task) => task.id === 'facts')).toMatchObject({ status: 'failed', reason: why });
    // Subtasks that never ran have no reason of their own.
    expect(document.tasks.find((task) => task.id === 'text')).not.toHaveProperty('reason');
  });
});
