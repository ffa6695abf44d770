import type { ExecutableWorkflow } from '../../src/distill/workflow.js';

/** A workflow whose one step is its end node's `output` expression: how tests run a single expression. */
export function endsWith(output: string, name = 'hostile'): ExecutableWorkflow {
  return {
    name,
    nodes: [
      { id: 's', kind: 'start' },
      { id: 'e', kind: 'end', output },
    ],
    edges: [{ from: 's', to: 'e' }],
  };
}
