/**
 * Plan layouts without stalling the server: a plan above FAST_LAYOUT_ABOVE subtasks (seconds of dagre at 10,000)
 * is laid out in a worker thread, so live event streams and other requests keep flowing meanwhile; smaller ones
 * (milliseconds) in this thread. A worker that cannot start (a bundler moved the files, say) falls back to this
 * thread: slower to answer others, same result.
 */
import { Worker } from 'node:worker_threads';
import type { WorkflowJson } from '../graph/workflow.js';
import { FAST_LAYOUT_ABOVE, layoutPlan, type PlanLayout } from './layout-plan.js';

export async function layoutPlanOffThread(workflow: Pick<WorkflowJson, 'subtasks'>): Promise<PlanLayout> {
  if (workflow.subtasks.length <= FAST_LAYOUT_ABOVE) return layoutPlan(workflow);
  try {
    return await layoutPlanInWorker(workflow);
  } catch {
    return layoutPlan(workflow);
  }
}

/** layoutPlan in a new worker thread, whatever the plan's size; rejects when the worker cannot start. */
export function layoutPlanInWorker(workflow: Pick<WorkflowJson, 'subtasks'>): Promise<PlanLayout> {
  const subtasks = workflow.subtasks.map(({ id, agent, dependsOn }) => ({ id, agent, dependsOn }));
  return new Promise((resolve, reject) => {
    const worker = newLayoutWorker({ subtasks });
    let settled = false;
    worker.once('message', (layout: PlanLayout) => {
      settled = true;
      resolve(layout);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the layout worker exited ${code} without a layout`));
    });
  });
}

/**
 * The built package runs dist/ui/layout-worker.js. From the sources (tsx, vitest) the worker is a .ts file, which
 * Node cannot load by itself: the worker first registers tsx's loader (a dev dependency) in its own thread.
 */
function newLayoutWorker(workerData: unknown): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./layout-worker.js', import.meta.url), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = new URL('./layout-worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(code, { eval: true, workerData });
}
