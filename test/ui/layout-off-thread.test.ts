/**
 * A large plan's layout comes from a worker thread (the server's event loop keeps turning meanwhile) and equals
 * the one computed in-thread; a small plan's is computed at once.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import { layoutPlanInWorker, layoutPlanOffThread } from '../../src/ui/layout-off-thread.js';
import { layoutPlan } from '../../src/ui/layout-plan.js';

function chainOfLayers(count: number): Pick<WorkflowJson, 'subtasks'> {
  return {
    subtasks: Array.from({ length: count }, (_, index) => ({
      id: `s${index}`,
      objective: `step ${index}`,
      agent: index % 2 ? 'writer' : 'reviewer',
      dependsOn: index < 10 ? [] : [`s${index - 10}`, `s${index - 7}`],
    })),
  };
}

/** Whether the event loop got to run a callback before `work` settled. */
async function loopTurnedDuring<T>(work: () => Promise<T>): Promise<{ value: T; turned: boolean }> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  const value = await work();
  return { value, turned };
}

describe('layoutPlanOffThread', () => {
  it('a worker lays the plan out as this thread would, and the event loop turns meanwhile', async () => {
    const plan = chainOfLayers(60);
    const { value, turned } = await loopTurnedDuring(() => layoutPlanInWorker(plan));
    expect(turned).toBe(true);
    expect(value).toEqual(layoutPlan(plan));
    expect(value.nodes).toHaveLength(60);
  }, 60_000);

  it('lays a small plan out in this thread, at once', async () => {
    const plan = chainOfLayers(30);
    const { value, turned } = await loopTurnedDuring(() => layoutPlanOffThread(plan));
    expect(turned).toBe(false);
    expect(value).toEqual(layoutPlan(plan));
  });
});
