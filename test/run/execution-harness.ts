/** Shared fixtures for executor tests: a diamond plan, a runner that logs events, and event filters. */
import { workflowFromJson } from '../../src/graph/index.js';
import type { WorkflowJson } from '../../src/graph/workflow.js';
import type { WeftEvent } from '../../src/run/events.js';
import { execute, type ExecutionOptions } from '../../src/run/execution.js';

export type Logged = Omit<WeftEvent, 'at'> & { type: string };
type Start = Extract<WeftEvent, { type: 'task-start' }>;

/** a → (b, c) → d; b and c share a role so they run as clones. */
export function diamond(): WorkflowJson {
  return {
    task: 'diamond',
    subtasks: [
      { id: 'a', objective: 'do a', agent: 'worker', dependsOn: [] },
      { id: 'b', objective: 'do b', agent: 'worker', dependsOn: ['a'] },
      { id: 'c', objective: 'do c', agent: 'worker', dependsOn: ['a'] },
      { id: 'd', objective: 'do d', agent: 'writer', dependsOn: ['b', 'c'] },
    ],
  };
}

export function run(json: WorkflowJson, options: Omit<ExecutionOptions, 'workflow' | 'emit'>) {
  const events: Logged[] = [];
  const promise = execute({ workflow: workflowFromJson(json), emit: (event) => events.push(event), ...options });
  return { events, promise };
}

export const starts = (events: Logged[], id?: string) =>
  events.filter(
    (e): e is Omit<Start, 'at'> => e.type === 'task-start' && (id === undefined || (e as Start).taskId === id),
  );

/** One macrotask: lets every pending microtask and I/O callback run. */
export const tick = () => new Promise((resolve) => setImmediate(resolve));
